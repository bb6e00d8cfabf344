/**
 * The generated schemas, types and validators must be what the definitions produce today: a change to
 * a definition without regenerating would ship validators that disagree with the documents.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

import { VALIDATORS } from '../src/generated/validators';
import { WIRE_VERSIONS } from '../src';

const workspaceRoot = join(__dirname, '..', '..', '..', '..');

describe('generated code', () => {
  it('is up to date with the definitions and the Wire 1.2 document', () => {
    const run = spawnSync(process.execPath, [join(workspaceRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'libs/relay/protocol/codegen/generate.ts', '--check'], {
      cwd: workspaceRoot,
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  }, 60_000);
});

describe('the compiled runtime.event validator', () => {
  const NIL = '00000000-0000-0000-0000-000000000000';
  const frame = (event: Record<string, unknown>) => ({
    type: 'runtime.event',
    workspaceId: NIL,
    relaySequence: 1,
    event: { protocolVersion: '1.0', runtimeInstanceId: NIL, sequence: 1, timestamp: '2026-11-30T10:00:00Z', threadId: NIL, event },
  });
  const EVENT_UNION = '#/properties/event/properties/event/anyOf';

  // Trying every event member in turn allocated an error for each member the event is not, on every
  // frame, valid or not. The members are tried by the event's `type`: what they leave behind on a
  // failure shows which ones ran.
  it.each(WIRE_VERSIONS.map((version) => [version]))('of Wire %s tries only the members that name the event type', (version) => {
    const validate = VALIDATORS[`wire-${version}`].byType['runtime.event'].validate;
    expect(validate(frame({ type: 'turn.completed' }))).toBe(true);
    expect(validate(frame({ type: 'turn.completed', __leak: 1 }))).toBe(false);
    const members = (validate.errors ?? []).filter((error) => error.schemaPath.startsWith(`${EVENT_UNION}/`) && error.keyword !== 'anyOf');
    expect(members.map((error) => error.keyword)).toEqual(['additionalProperties']);
  });

  it.each(WIRE_VERSIONS.map((version) => [version]))('of Wire %s tries every member for an event type none names', (version) => {
    const validate = VALIDATORS[`wire-${version}`].byType['runtime.event'].validate;
    expect(validate(frame({ type: 'turn.unknown' }))).toBe(false);
    // Each member stops at its first failure, so one error per member tried.
    const members = (validate.errors ?? []).filter((error) => error.schemaPath.startsWith(`${EVENT_UNION}/`) && error.keyword !== 'anyOf');
    expect(members.length).toBeGreaterThanOrEqual(13);
  });
});
