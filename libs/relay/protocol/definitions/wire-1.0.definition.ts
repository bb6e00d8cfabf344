/**
 * Wire 1.0, defined as the difference from Wire 1.1 that BEHAVIOUR.md §2–§4 states:
 *
 * - 7 frame types: no `interaction.*` frames, and no `interaction` encrypted payload kind;
 * - `runtime.event` carries the raw, unredacted Runtime timeline (see the runtime timeline definition),
 *   without the Runtime 1.5 `appOutput` that 1.0 predates;
 * - 14 methods: `interaction.candidate` is absent; `approval.respond` and `approval.candidate` exist,
 *   both mutations;
 * - `device.connect` carries `"1.0"`.
 *
 * Thread, turn and operation params and results are the same as 1.1.
 */
import { clone, closedObject, frameVariant, oneOfStrings, property, removeProperty, text, type JsonSchema } from './json-schema';
import { runtimeTimelineMembers } from './runtime-timeline.definition';
import { dropUnreferencedDefinitions, removeMethod } from './wire-1.1.definition';
import { primitivesOf } from './wire-1.2.document';

export function defineWire10(wire11: JsonSchema, wire12: JsonSchema): JsonSchema {
  const schema = clone(wire11);
  const { uuid } = primitivesOf(wire12);
  schema.$id = 'urn:roll-agent:schema:relay-protocol:1.0';
  schema.title = 'Roll Relay Protocol v1.0';
  schema['x-roll-relay-protocol-version'] = '1.0';
  property(frameVariant(schema, 'device.connect'), 'protocolVersion').const = '1.0';

  const interactionTypes = ['interaction.request', 'interaction.resolved', 'interaction.cancelled'];
  schema.anyOf = schema.anyOf?.filter((member) => {
    const types = (member.anyOf ?? [member]).map((inner) => inner.properties?.['type']?.const);
    return !types.some((type) => interactionTypes.includes(type as string));
  });
  schema['x-roll-message-types'] = (schema['x-roll-message-types'] as string[]).filter(
    (type) => !interactionTypes.includes(type),
  );
  const payloadKind = property(frameVariant(schema, 'runtime.encrypted'), 'payloadKind');
  payloadKind.enum = payloadKind.enum?.filter((kind) => kind !== 'interaction');

  const envelope = property(frameVariant(schema, 'runtime.event'), 'event');
  const timeline = runtimeTimelineMembers(wire12);
  for (const member of timeline) {
    if (member.properties?.['type']?.const === 'tool.completed') removeProperty(member, 'appOutput');
  }
  envelope.properties = { ...envelope.properties, event: { anyOf: timeline } };

  removeMethod(schema, 'interaction.candidate');
  const legacyApproval = {
    threadId: uuid,
    turnId: uuid,
    approvalId: uuid,
    decision: oneOfStrings(['approve', 'reject']),
    reason: text({ min: 1 }),
  };
  addMethod(schema, 'approval.respond', {
    params: closedObject({ requestId: uuid, ...legacyApproval }, ['reason']),
    result: closedObject({ resolved: { type: 'boolean', const: true } }),
  });
  addMethod(schema, 'approval.candidate', {
    params: closedObject(legacyApproval, ['reason']),
    result: closedObject({ accepted: { type: 'boolean', const: true } }),
  });
  dropUnreferencedDefinitions(schema);
  return schema;
}

/** Adds a mutation method to the request enum, the registry keywords and `$defs`. */
function addMethod(schema: JsonSchema, method: string, shapes: { params: JsonSchema; result: JsonSchema }): void {
  const stem = method.replace(/\.(\w)/g, (_, letter: string) => letter.toUpperCase());
  const methodEnum = property(frameVariant(schema, 'runtime.request'), 'method');
  methodEnum.enum = [...(methodEnum.enum ?? []), method];
  schema['x-roll-request-methods'] = [...(schema['x-roll-request-methods'] as string[]), method];
  schema['x-roll-mutation-methods'] = [...(schema['x-roll-mutation-methods'] as string[]), method];
  (schema['x-roll-request-method-dispositions'] as Record<string, string>)[method] = 'mutation';
  schema.$defs = { ...schema.$defs, [`${stem}Params`]: shapes.params, [`${stem}Result`]: shapes.result };
  (schema['x-roll-request-method-schemas'] as Record<string, unknown>)[method] = {
    params: { $ref: `#/$defs/${stem}Params` },
    result: { $ref: `#/$defs/${stem}Result` },
  };
}
