/**
 * The JSON Schema (2020-12) of scenario documents: the one definition of the format. The loader
 * validates every document with it before looking at meaning (thread references, form rules), and the
 * README documents the same fields.
 *
 * Objects are closed, except raw Runtime payloads (tool input, previews, display, app data and the
 * extra fields a raw user-input form may carry), which are free JSON as in a real runtime.
 */
import { COUNTERPARTY_REQUEST_NAMES } from './counterparty-request';

export const SCENARIO_SCHEMA_ID = 'urn:trustmesh:schema:relay-companion-sim:scenario:1';

/** Bounds: a scenario is at most 1 MiB of text; these keep what it expands to bounded too. */
export const SCENARIO_LIMITS = {
  documentBytes: 1_048_576,
  threads: 100,
  historyEntries: 10_000,
  steps: 1_000,
  turnSteps: 1_000,
  textChars: 100_000,
  maxMs: 3_600_000,
} as const;

const ms = { type: 'integer', minimum: 0, maximum: SCENARIO_LIMITS.maxMs };
const positiveMs = { type: 'integer', minimum: 1, maximum: SCENARIO_LIMITS.maxMs };
const text = { type: 'string', maxLength: SCENARIO_LIMITS.textChars };
const nonEmptyText = { type: 'string', minLength: 1, maxLength: SCENARIO_LIMITS.textChars };
const name = { type: 'string', minLength: 1, maxLength: 128, pattern: '\\S' };
const key = { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' };
const uuid = { type: 'string', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$' };
const jsonObject = { type: 'object' };
const outcome = { enum: ['success', 'user_rejected', 'policy_denied', 'invalid_input', 'cancelled', 'tool_failed'] };
const chunking = { chunkChars: { type: 'integer', minimum: 1, maximum: 10_000 }, chunkDelayMs: ms };

const closed = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const step = (kind: string, properties: Record<string, unknown>, required: string[] = []) =>
  closed({ kind: { const: kind }, ...properties }, ['kind', ...required]);

const toolFields = {
  agent: name,
  tool: name,
  input: {},
  output: { anyOf: [text, closed({ stdout: text, stderr: text })] },
  outputChunks: { type: 'integer', minimum: 1, maximum: 1000 },
  durationMs: ms,
  outcome,
  outcomeReason: text,
  display: {},
  appOutput: { $ref: '#/$defs/appOutput' },
};

export const SCENARIO_JSON_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: SCENARIO_SCHEMA_ID,
  title: 'Simulated runtime scenario',
  ...closed(
    {
      $schema: { type: 'string' },
      version: { const: 1 },
      name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' },
      description: { type: 'string', maxLength: 2000 },
      runtime: closed({
        seed: { type: 'integer', minimum: 0, maximum: 4294967295 },
        model: name,
        protocolVersion: { enum: ['1.1', '1.2', '1.3', '1.4', '1.5'] },
        interactionTimeoutMs: positiveMs,
      }),
      threads: { type: 'array', maxItems: SCENARIO_LIMITS.threads, items: { $ref: '#/$defs/thread' } },
      steps: { type: 'array', minItems: 1, maxItems: SCENARIO_LIMITS.steps, items: { $ref: '#/$defs/scenarioStep' } },
    },
    ['version', 'name', 'steps'],
  ),
  $defs: {
    thread: closed(
      {
        key,
        id: uuid,
        title: { type: 'string', minLength: 1, maxLength: 200 },
        model: name,
        history: { type: 'array', maxItems: SCENARIO_LIMITS.historyEntries, items: { $ref: '#/$defs/historyEntry' } },
      },
      ['key'],
    ),
    historyEntry: {
      type: 'object',
      required: ['kind'],
      properties: { kind: { type: 'string' } },
      discriminator: { propertyName: 'kind' },
      oneOf: [step('user', { text: nonEmptyText }, ['text']), step('assistant', { text: nonEmptyText }, ['text']), step('tool', toolFields, ['agent', 'tool', 'input'])],
    },
    scenarioStep: {
      type: 'object',
      required: ['kind'],
      properties: { kind: { type: 'string' } },
      discriminator: { propertyName: 'kind' },
      oneOf: [
        step('turn', { thread: key, input: nonEmptyText, startDelayMs: ms, steps: { $ref: '#/$defs/turnSteps' } }, ['thread', 'input', 'steps']),
        step('awaitTurn', { thread: key, match: { type: 'string', minLength: 1, maxLength: 500 }, timeoutMs: positiveMs, startDelayMs: ms, steps: { $ref: '#/$defs/turnSteps' } }, [
          'thread',
          'steps',
        ]),
        step('delay', { ms }, ['ms']),
        step('disconnect', { forMs: ms }, ['forMs']),
        step('restart', { downMs: ms }),
        step(
          'counterpartyRequest',
          {
            thread: key,
            request: { anyOf: [{ enum: COUNTERPARTY_REQUEST_NAMES }, { $ref: '#/$defs/counterpartyRequest' }] },
            expiresInMs: positiveMs,
            expect: { enum: ['approve', 'reject', 'expire'] },
          },
          ['thread', 'request'],
        ),
      ],
    },
    // Bounds of a Shield case's fields (SHIELD.md §3-§4), so a request always makes a valid case.
    counterpartyRequest: closed(
      {
        counterparty: closed({ type: { enum: ['human', 'agent', 'service', 'unknown'] }, reference: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' } }, ['type', 'reference']),
        goal: { type: 'string', minLength: 1, maxLength: 2000, pattern: '\\S' },
        message: { type: 'string', minLength: 1, maxLength: 4000, pattern: '\\S' },
        action: closed({ agent: name, tool: name, input: {}, summary: { type: 'string', minLength: 1, maxLength: 500, pattern: '\\S' } }, ['agent', 'tool', 'input', 'summary']),
      },
      ['counterparty', 'goal', 'message', 'action'],
    ),
    turnSteps: { type: 'array', maxItems: SCENARIO_LIMITS.turnSteps, items: { $ref: '#/$defs/turnStep' } },
    turnStep: {
      type: 'object',
      required: ['kind'],
      properties: { kind: { type: 'string' } },
      discriminator: { propertyName: 'kind' },
      oneOf: [
        step('message', { text: nonEmptyText, ...chunking }, ['text']),
        step('reasoning', { text: nonEmptyText, ...chunking }, ['text']),
        step('tool', { ...toolFields, approval: { $ref: '#/$defs/approval' } }, ['agent', 'tool', 'input']),
        step(
          'userInput',
          {
            agent: name,
            tool: name,
            form: { $ref: '#/$defs/form' },
            reason: text,
            expiresInMs: positiveMs,
            autoRespond: {
              anyOf: [
                closed(
                  {
                    afterMs: ms,
                    values: { type: 'array', maxItems: 16, items: closed({ id: { type: 'string', minLength: 1, maxLength: 64 }, value: {} }, ['id', 'value']) },
                  },
                  ['afterMs', 'values'],
                ),
                closed({ afterMs: ms, cancel: { const: true }, reason: { type: 'string', minLength: 1, maxLength: 500 } }, ['afterMs', 'cancel']),
              ],
            },
            expect: { enum: ['submitted', 'cancelled', 'expire'] },
          },
          ['form'],
        ),
        step('delay', { ms }, ['ms']),
        step('disconnect', { forMs: ms }, ['forMs']),
        step('restart', { downMs: ms }),
        step('fail', { stage: { enum: ['bootstrap', 'plan', 'execute'] }, message: text }, ['stage']),
        step('cancel', { reason: text, message: text }),
        step('capabilitiesChanged', {}),
      ],
    },
    approval: closed({
      explanation: { type: 'string', maxLength: 1000 },
      preview: jsonObject,
      reason: text,
      expiresInMs: positiveMs,
      autoRespond: closed({ afterMs: ms, decision: { enum: ['approve', 'reject'] }, reason: { type: 'string', minLength: 1, maxLength: 500 } }, ['afterMs', 'decision']),
      expect: { enum: ['approve', 'reject', 'expire'] },
    }),
    // The projected form's rules (§8) are checked by the loader with the relay-protocol validators;
    // here only its outline, since raw forms may carry extra runtime fields.
    form: {
      type: 'object',
      required: ['controls'],
      properties: {
        title: { type: 'string' },
        description: { type: 'string' },
        controls: { type: 'array', minItems: 1, maxItems: 16, items: {
            type: 'object',
            required: ['type', 'id', 'label'],
            properties: { type: { enum: ['text', 'multiline', 'number', 'boolean', 'choice'] }, id: { type: 'string' }, label: { type: 'string' } },
          },
        },
      },
    },
    appOutput: {
      type: 'object',
      required: ['status'],
      properties: { status: { type: 'string' } },
      discriminator: { propertyName: 'status' },
      oneOf: [
        closed(
          {
            status: { const: 'available' },
            schemaId: { type: 'string', minLength: 1, maxLength: 256 },
            schemaVersion: { type: 'integer', minimum: 1 },
            remoteReadable: { type: 'boolean' },
            data: jsonObject,
            fallbackText: { type: 'string', maxLength: 4096 },
          },
          ['status', 'schemaId', 'schemaVersion', 'remoteReadable', 'data', 'fallbackText'],
        ),
        closed({ status: { const: 'rejected' }, reason: { enum: ['credential_field', 'credential_value'] }, field: { type: 'string', maxLength: 64 } }, ['status', 'reason']),
        closed({ status: { enum: ['not_provided', 'invalid', 'too_large', 'expired', 'denied'] } }, ['status']),
      ],
    },
  },
} as const;
