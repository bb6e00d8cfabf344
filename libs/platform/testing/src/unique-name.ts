/**
 * Names that no other test (or earlier run against the same Kafka) uses: lowercase letters, digits,
 * dots and dashes only, so they are valid Kafka topic and group names.
 */
import { randomBytes } from 'node:crypto';

export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}
