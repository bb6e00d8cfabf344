/**
 * Wire 1.2 is the user's own schema document (`schemas/wire-1.2.schema.json`), shipped unchanged as the
 * authority for 1.2. Every other definition in this folder starts from it, so shared facts (the UUID
 * and RFC 3339 patterns, the snapshot shapes, the error registry) are stated once, there.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { frameVariant, frameVariants, property, type JsonSchema } from './json-schema';

export const WIRE_12_SCHEMA_FILE = join(__dirname, '..', 'schemas', 'wire-1.2.schema.json');

export function loadWire12(): JsonSchema {
  return JSON.parse(readFileSync(WIRE_12_SCHEMA_FILE, 'utf8')) as JsonSchema;
}

/** The primitive shapes every relay schema shares, read from the 1.2 document. */
export function primitivesOf(wire12: JsonSchema) {
  // interaction.request has one member per interaction method; their common fields are identical.
  const [interactionRequest] = frameVariants(wire12, 'interaction.request');
  if (!interactionRequest) throw new Error('wire 1.2 has no interaction.request frame');
  return {
    uuid: property(frameVariant(wire12, 'device.connect'), 'deviceId'),
    dateTime: property(interactionRequest, 'expiresAt'),
    sequence: property(frameVariant(wire12, 'runtime.event'), 'relaySequence'),
    /** The schema of any JSON value (the `params`/`result` payload type). */
    jsonValue: property(frameVariant(wire12, 'runtime.request'), 'params'),
  };
}
