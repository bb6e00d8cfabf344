/**
 * Generated turns for the load mode: seeded, so two runs with the same seed stream the same text and
 * tool calls, and sized by options, so a benchmark can dial frames per turn and bytes per frame.
 */
import { createSeededRandom, type SeededRandom } from '../runtime/seeded-random';
import type { TurnScript, TurnScriptSource, TurnStep } from '../runtime/turn-script';

export interface LoadTurnOptions {
  /** Seed of the generator (default 1). */
  seed?: number;
  /** Assistant messages per turn (default 1). */
  messages?: number;
  /** Characters per assistant message (default 400). */
  messageChars?: number;
  /** Characters per `message.delta` (default 16). */
  chunkChars?: number;
  /** Delay before each delta (default 5 ms). */
  chunkDelayMs?: number;
  /** Characters of reasoning summary per turn, 0 for none (default 120). */
  reasoningChars?: number;
  /** Tool calls per turn (default 2). */
  toolCalls?: number;
  /** Characters of raw output per tool call (default 200). */
  toolOutputChars?: number;
  /** `tool.output` chunks per tool call (default 2). */
  toolOutputChunks?: number;
  /** Time a tool call runs (default 20 ms). */
  toolDurationMs?: number;
  /** Share of tool calls that ask for approval, 0..1 (default 0). */
  approvalRate?: number;
  /** Share of turns that ask for user input, 0..1 (default 0). */
  userInputRate?: number;
  /** Unanswered approvals and forms are answered at the machine after this long (default 5 s), so load never stalls. */
  autoRespondMs?: number;
  /** Share of turns that fail, 0..1 (default 0). */
  failureRate?: number;
}

export interface LoadTurnGenerator {
  /** The next generated turn. */
  next(): TurnScript;
  /** The generator as the runtime's script source for turns people start. */
  readonly source: TurnScriptSource;
}

const WORDS = [
  'the', 'build', 'passes', 'after', 'updating', 'dependency', 'cache', 'tests', 'module', 'function', 'returns', 'value', 'request',
  'relay', 'stream', 'browser', 'companion', 'config', 'error', 'fixed', 'patch', 'review', 'deploy', 'region', 'latency', 'retry',
  'buffer', 'sequence', 'snapshot', 'thread', 'approve', 'change', 'refactor', 'schema', 'query', 'index', 'rollout', 'metric',
];
const TOOLS: Array<[agent: string, tool: string]> = [
  ['assistant', 'shell'],
  ['assistant', 'read_file'],
  ['assistant', 'apply_patch'],
  ['assistant', 'run_tests'],
  ['researcher', 'web_search'],
];

export function createLoadTurnGenerator(options: LoadTurnOptions = {}): LoadTurnGenerator {
  const random = createSeededRandom(options.seed ?? 1);
  const next = (): TurnScript => generateTurn(random, options);
  return { next, source: () => next() };
}

function generateTurn(random: SeededRandom, options: LoadTurnOptions): TurnScript {
  const steps: TurnStep[] = [];
  const chunking = { chunkChars: options.chunkChars ?? 16, chunkDelayMs: options.chunkDelayMs ?? 5 };
  const autoRespondMs = options.autoRespondMs ?? 5_000;
  const reasoningChars = options.reasoningChars ?? 120;
  if (reasoningChars > 0) steps.push({ kind: 'reasoning', text: prose(random, reasoningChars), ...chunking });
  if (random.next() < (options.userInputRate ?? 0)) {
    steps.push({
      kind: 'userInput',
      form: {
        title: 'Pick a target',
        controls: [{ type: 'choice', id: 'target', label: 'Target', required: true, multiple: false, options: [{ id: 'staging', label: 'Staging' }, { id: 'production', label: 'Production' }] }],
      },
      autoRespond: { afterMs: autoRespondMs, values: [{ id: 'target', value: 'staging' }] },
    });
  }
  const toolCalls = options.toolCalls ?? 2;
  for (let index = 0; index < toolCalls; index++) {
    const [agent, tool] = random.pick(TOOLS);
    steps.push({
      kind: 'tool',
      agent,
      tool,
      input: { argument: prose(random, 40), attempt: index },
      output: prose(random, options.toolOutputChars ?? 200),
      outputChunks: options.toolOutputChunks ?? 2,
      durationMs: options.toolDurationMs ?? 20,
      ...(random.next() < (options.approvalRate ?? 0)
        ? { approval: { explanation: `Run ${tool}`, autoRespond: { afterMs: autoRespondMs, decision: 'approve' as const } } }
        : {}),
    });
  }
  const messages = options.messages ?? 1;
  for (let index = 0; index < messages; index++) steps.push({ kind: 'message', text: prose(random, options.messageChars ?? 400), ...chunking });
  if (random.next() < (options.failureRate ?? 0)) steps.push({ kind: 'fail', stage: 'execute', message: 'generated failure' });
  return { startDelayMs: 0, steps };
}

/** About `chars` characters of words. */
function prose(random: SeededRandom, chars: number): string {
  let out = '';
  while (out.length < chars) out += (out ? ' ' : '') + random.pick(WORDS);
  return out.slice(0, Math.max(1, chars));
}
