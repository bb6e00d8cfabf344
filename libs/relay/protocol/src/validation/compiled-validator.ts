/**
 * The shape of an Ajv standalone validator as the generated module exports it: a plain function that
 * answers true or false and leaves the first failure on `errors`.
 */
export interface CompiledValidationError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: CompiledValidationError[] | null;
}
