/**
 * Reads the small JSON bodies of the operator and lifecycle routes: an object with only the named members,
 * each of its type, the required ones present. Refusals name the member (by pointer), never its value.
 */
import { fail, succeed, type ServiceResult } from './registry-service.result';

type FieldType = 'string' | 'boolean';

export function readFields(body: unknown, shape: Record<string, FieldType>, required: readonly string[]): ServiceResult<Record<string, unknown>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail('invalid', 'BODY_NOT_OBJECT', 'The body must be a JSON object');
  const record = body as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const pointer = `/${key.slice(0, 64).replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (!Object.hasOwn(shape, key)) return fail('invalid', 'FIELD_UNKNOWN', `Unknown member; allowed: ${Object.keys(shape).join(', ')}`, pointer);
    if (typeof record[key] !== shape[key]) return fail('invalid', 'FIELD_TYPE', `${key} must be a ${shape[key]}`, pointer);
  }
  for (const key of required) if (record[key] === undefined) return fail('invalid', 'FIELD_REQUIRED', `${key} is required`, `/${key}`);
  return succeed(record);
}
