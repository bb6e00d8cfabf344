/**
 * Wire 1.1, defined as the difference from Wire 1.2 that BEHAVIOUR.md §2 states:
 *
 * - 1.2 adds one method, `operation.result.get` (a query);
 * - 1.2 adds `appOutput?` and `operationId?` to the `tool.completed` timeline event;
 * - 1.2 adds `appOutput?` to operations in `thread.open`, `thread.snapshot` and `operation.get` results;
 * - `device.connect` carries `"1.1"`.
 *
 * Everything else (frame set, timeline, params, results, error registry) is the same document.
 * `capabilities.manifest.appOutput` is also 1.2-only, but the manifest is free JSON in both schemas, so
 * that difference lives in the downgrade projection, not here.
 */
import {
  clone,
  frameVariant,
  normalizeUnions,
  property,
  removeProperty,
  unionMembers,
  walk,
  type JsonSchema,
} from './json-schema';

const APP_OUTPUT_METHOD = 'operation.result.get';
const OPERATION_RESULTS = ['threadOpenResult', 'threadSnapshotResult', 'operationGetResult'] as const;

export function defineWire11(wire12: JsonSchema): JsonSchema {
  const schema = clone(wire12);
  schema.$id = 'urn:roll-agent:schema:relay-protocol:1.1';
  schema.title = 'Roll Relay Protocol v1.1';
  schema['x-roll-relay-protocol-version'] = '1.1';

  property(frameVariant(schema, 'device.connect'), 'protocolVersion').const = '1.1';
  removeMethod(schema, APP_OUTPUT_METHOD);

  for (const event of timelineEvents(schema)) {
    if (event.properties?.['type']?.const !== 'tool.completed') continue;
    for (const field of ['appOutput', 'operationId']) {
      if (event.properties[field]) removeProperty(event, field);
    }
  }
  for (const resultName of OPERATION_RESULTS) {
    const result = schema.$defs?.[resultName];
    if (!result) throw new Error(`wire 1.2 has no ${resultName}`);
    walk(result, (node) => {
      if (node.properties?.['appOutput'] && node.properties['toolCallId']) removeProperty(node, 'appOutput');
    });
  }

  // The appOutput-free tool.completed member is now identical to the one 1.2 kept for 1.1 events;
  // folding duplicates leaves the 1.1 timeline union.
  normalizeUnions(schema);
  dropUnreferencedDefinitions(schema);
  return schema;
}

/** Removes a request method from every registry keyword, the request frame's enum and `$defs`. */
export function removeMethod(schema: JsonSchema, method: string): void {
  const methodEnum = property(frameVariant(schema, 'runtime.request'), 'method');
  methodEnum.enum = methodEnum.enum?.filter((name) => name !== method);
  schema['x-roll-request-methods'] = (schema['x-roll-request-methods'] as string[]).filter((name) => name !== method);
  schema['x-roll-mutation-methods'] = (schema['x-roll-mutation-methods'] as string[]).filter((name) => name !== method);
  const dispositions = schema['x-roll-request-method-dispositions'] as Record<string, string>;
  const schemas = schema['x-roll-request-method-schemas'] as Record<string, { params: JsonSchema; result: JsonSchema }>;
  const entry = schemas[method];
  if (!entry) throw new Error(`${method} has no method schemas`);
  delete dispositions[method];
  delete schemas[method];
  for (const ref of [entry.params.$ref, entry.result.$ref]) {
    const name = ref?.replace('#/$defs/', '');
    if (name) delete schema.$defs?.[name];
  }
}

/** The members of the `runtime.event` timeline union. */
export function timelineEvents(schema: JsonSchema): JsonSchema[] {
  const envelope = property(frameVariant(schema, 'runtime.event'), 'event');
  return unionMembers(property(envelope, 'event'));
}

/** Deletes `$defs` entries that nothing references any more (1.2 keeps a second JSON-value alias). */
export function dropUnreferencedDefinitions(schema: JsonSchema): void {
  const text = JSON.stringify({ ...schema, $defs: undefined });
  const defs = schema.$defs ?? {};
  let changed = true;
  const live = new Set<string>();
  // A definition is live if the document outside $defs, or another live definition, refers to it.
  while (changed) {
    changed = false;
    for (const name of Object.keys(defs)) {
      if (live.has(name)) continue;
      const ref = `"#/$defs/${name}"`;
      const referenced =
        text.includes(ref) || [...live].some((other) => JSON.stringify(defs[other]).includes(ref));
      if (referenced) {
        live.add(name);
        changed = true;
      }
    }
  }
  for (const name of Object.keys(defs)) if (!live.has(name)) delete defs[name];
}
