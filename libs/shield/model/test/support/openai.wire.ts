/** OpenAI-compatible chat completion replies, as the fake server sends them. */
import type { ScriptedReply } from './fake-model.server';
import type { WireToolCall } from './anthropic.wire';

export function openAiToolCalls(calls: Array<WireToolCall & { rawArguments?: string }>, usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 }): ScriptedReply {
  return {
    kind: 'json',
    body: {
      id: 'chatcmpl-tool',
      object: 'chat.completion',
      model: 'test-model',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: calls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.rawArguments ?? JSON.stringify(call.input) },
            })),
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage,
    },
  };
}

export function openAiText(text: string, usage: Record<string, number> | undefined = { prompt_tokens: 300, completion_tokens: 150, total_tokens: 450 }, finishReason = 'stop'): ScriptedReply {
  return {
    kind: 'json',
    body: {
      id: 'chatcmpl-final',
      object: 'chat.completion',
      model: 'test-model',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: finishReason }],
      ...(usage ? { usage } : {}),
    },
  };
}

export function openAiError(status: number): ScriptedReply {
  return { kind: 'json', status, body: { error: { message: `failure ${status}`, type: 'server_error' } } };
}
