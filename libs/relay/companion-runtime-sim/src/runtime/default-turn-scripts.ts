/**
 * The script of a turn a person starts when nothing more specific was arranged: the agent thinks,
 * looks at the workspace, and answers, so every turn streams the usual shape of a real one.
 */
import type { TurnScriptSource } from './turn-script';

export function echoTurnScripts(): TurnScriptSource {
  return (request) => {
    const topic = request.input.trim().split(/\s+/).slice(0, 8).join(' ');
    return {
      steps: [
        { kind: 'reasoning', text: `The person asked: "${topic}". Look at the workspace before answering.` },
        {
          kind: 'tool',
          agent: 'assistant',
          tool: 'read_file',
          input: { path: 'README.md' },
          output: '# Workspace\nA simulated project used by the Trustmesh companion simulator.\n',
          display: { title: 'Read README.md' },
        },
        { kind: 'message', text: `You said: ${request.input}\n\nThis is turn ${request.turnIndex + 1} of this thread in the simulated runtime.` },
      ],
    };
  };
}
