/** Anthropic Messages API replies, as the fake server sends them. */
import type { ScriptedReply } from './fake-model.server';

export interface WireToolCall {
  id: string;
  name: string;
  input: unknown;
}

export function anthropicToolUse(calls: WireToolCall[], usage = { input_tokens: 100, output_tokens: 20 }): ScriptedReply {
  return {
    kind: 'json',
    body: {
      id: 'msg_tool',
      type: 'message',
      role: 'assistant',
      model: 'test-model',
      content: [{ type: 'text', text: 'Reading the case.' }, ...calls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.input }))],
      stop_reason: 'tool_use',
      usage,
    },
  };
}

export function anthropicText(text: string, usage: Record<string, number> | undefined = { input_tokens: 300, output_tokens: 150 }, stopReason = 'end_turn'): ScriptedReply {
  return {
    kind: 'json',
    body: {
      id: 'msg_final',
      type: 'message',
      role: 'assistant',
      model: 'test-model',
      content: [{ type: 'text', text }],
      stop_reason: stopReason,
      ...(usage ? { usage } : {}),
    },
  };
}

export function anthropicError(status: number): ScriptedReply {
  return { kind: 'json', status, body: { type: 'error', error: { type: 'api_error', message: `failure ${status}` } } };
}
