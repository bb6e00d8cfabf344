/**
 * The raw Runtime timeline: what the agent runtime emits before the Companion projects it for the
 * relay. Wire 1.0 carries it unredacted (BEHAVIOUR.md §3); Wire 1.1 and 1.2 carry only the projection.
 *
 * It is defined as the projected 1.2 timeline plus every field the projection strips, so this file is
 * the one place that names the secret-bearing Runtime fields of BEHAVIOUR.md §9:
 *
 * - `tool.started.input`, the whole `tool.output` event;
 * - `tool.completed.display` (required) and `outcome.reason`;
 * - the approval's raw `preview` and `reason` (the projection keeps only `preview.explanation`);
 * - reasons on `approval.resolved`;
 * - `turn.cancelled.reason`/`message` and `turn.failed.message`.
 *
 * Runtime 1.5 adds `appOutput` to `tool.completed`; Wire 1.0 predates it (see the 1.0 definition).
 */
import {
  clone,
  closedObject,
  constant,
  discriminatorOf,
  oneOfStrings,
  property,
  text,
  type JsonSchema,
} from './json-schema';
import { timelineEvents } from './wire-1.1.definition';
import { primitivesOf } from './wire-1.2.document';

export const RUNTIME_TIMELINE_ID = 'urn:trustmesh:schema:runtime-timeline:1.1';

/** The raw Runtime timeline event union, as a list of members (`$ref`s point into the 1.2 `$defs`). */
export function runtimeTimelineMembers(wire12: JsonSchema): JsonSchema[] {
  const { uuid, jsonValue } = primitivesOf(wire12);
  const projected = timelineEvents(wire12);
  const projectedEvent = (type: string): JsonSchema => {
    const found = projected.filter((member) => discriminatorOf(member, 'type') === type);
    const last = found[found.length - 1];
    if (!last) throw new Error(`wire 1.2 has no ${type} event`);
    return clone(last);
  };
  const toolIdentity = (type: string) => ({
    type: constant(type),
    toolCallId: text({ min: 1 }),
    agentName: text({ min: 1 }),
    toolName: text({ min: 1 }),
  });
  // 1.2's richest tool.completed member carries the Runtime 1.5 appOutput descriptor and operationId.
  const completed = projectedEvent('tool.completed');
  const outcomeKinds = property(property(completed, 'outcome'), 'kind');
  const reason = text({ min: 1 });

  const raw: Record<string, JsonSchema> = {
    'tool.started': closedObject({ ...toolIdentity('tool.started'), input: jsonValue }),
    'tool.output': closedObject({
      ...toolIdentity('tool.output'),
      stream: oneOfStrings(['stdout', 'stderr']),
      delta: text(),
    }),
    'tool.completed': closedObject(
      {
        ...toolIdentity('tool.completed'),
        operationId: uuid,
        outcome: closedObject({ kind: outcomeKinds, reason: text() }, ['reason']),
        display: jsonValue,
        appOutput: property(completed, 'appOutput'),
      },
      ['operationId', 'outcome', 'appOutput'],
    ),
    'approval.required': closedObject({
      type: constant('approval.required'),
      approval: closedObject(
        {
          id: uuid,
          turnId: uuid,
          agentName: text({ min: 1 }),
          toolName: text({ min: 1 }),
          preview: jsonValue,
          reason: text(),
        },
        ['reason'],
      ),
    }),
    'approval.resolved': closedObject({
      type: constant('approval.resolved'),
      approvalId: uuid,
      resolution: {
        anyOf: [
          closedObject({ status: constant('resolved'), decision: constant('approve') }),
          closedObject({ status: constant('resolved'), decision: constant('reject'), reason }, ['reason']),
          closedObject({ status: constant('cancelled'), reason }),
          closedObject({ status: constant('expired'), reason }, ['reason']),
        ],
      },
    }),
    'turn.cancelled': closedObject({ type: constant('turn.cancelled'), reason: text(), message: text() }),
    'turn.failed': closedObject({
      type: constant('turn.failed'),
      stage: property(projectedEvent('turn.failed'), 'stage'),
      message: text(),
    }),
  };

  // Same order as the projected timeline, with tool.output after tool.started.
  const order = [...new Set(projected.map((member) => discriminatorOf(member, 'type') as string))];
  order.splice(order.indexOf('tool.started') + 1, 0, 'tool.output');
  return order.map((type) => raw[type] ?? projectedEvent(type));
}

/**
 * The Runtime event envelope the Companion receives. Its labels are Runtime protocol versions
 * ("1.0" … "1.5"), not Wire versions. Unknown envelope keys (the JSON-RPC `id`, newer cursors) are
 * tolerated on input and never copied out by the projection.
 */
export function defineRuntimeTimeline(wire12: JsonSchema): JsonSchema {
  const { uuid, dateTime, sequence } = primitivesOf(wire12);
  const jsonValueName = 'sharedSchema0';
  return {
    $schema: wire12.$schema,
    $id: RUNTIME_TIMELINE_ID,
    title: 'Runtime timeline event envelope (Runtime 1.0–1.5, unprojected)',
    ...closedObject(
      {
        protocolVersion: oneOfStrings(['1.0', '1.1', '1.2', '1.3', '1.4', '1.5']),
        runtimeInstanceId: uuid,
        sequence,
        timestamp: dateTime,
        threadId: uuid,
        turnId: uuid,
        event: { anyOf: runtimeTimelineMembers(wire12) },
      },
      ['turnId'],
    ),
    additionalProperties: true,
    $defs: { [jsonValueName]: clone(wire12.$defs?.[jsonValueName] ?? {}) },
  };
}
