/**
 * The shape of an Ajv standalone validator as the generated module exports it: a plain function that
 * answers true or false and leaves every failure (`allErrors`) on `errors`.
 */
export interface CompiledRecordError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
}

export interface CompiledRecordValidator {
  (data: unknown): boolean;
  errors?: CompiledRecordError[] | null;
}
