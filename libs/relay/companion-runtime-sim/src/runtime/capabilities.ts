/**
 * The capabilities manifest of the simulated runtime: agents, their tools (with input schemas and, for
 * Runtime 1.5, app output schemas) and the facts a real runtime reveals about its host. Exposed on
 * purpose (BEHAVIOUR.md §9), so it holds nothing secret; the Companion core applies the live host grant
 * to `tools[].appOutput.remoteReadable` and drops `appOutput` for Wire 1.1 peers.
 */
import type { RuntimeCapabilitiesManifest, RuntimeProtocolVersion } from '@trustmesh/relay-companion';

import type { JsonValue } from './turn-script';

export interface SimToolConfig {
  name: string;
  description?: string;
  inputSchema?: { [key: string]: JsonValue };
  /** Runtime 1.5 app output this tool produces. */
  appOutput?: { schemaId: string; schemaVersion: number; remoteReadable: boolean };
}

export interface SimAgentConfig {
  name: string;
  description?: string;
  tools: SimToolConfig[];
}

export const DEFAULT_AGENTS: readonly SimAgentConfig[] = [
  {
    name: 'assistant',
    description: 'General coding assistant',
    tools: [
      { name: 'shell', description: 'Run a command in the workspace', inputSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } },
      { name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
      { name: 'apply_patch', description: 'Edit files with a patch', inputSchema: { type: 'object', properties: { patch: { type: 'string' } }, required: ['patch'] } },
      { name: 'request_user_input', description: 'Ask the person to fill in a form', inputSchema: { type: 'object' } },
      {
        name: 'run_tests',
        description: 'Run the test suite and report results',
        inputSchema: { type: 'object', properties: { filter: { type: 'string' } } },
        appOutput: { schemaId: 'trustmesh.sim/test-report', schemaVersion: 1, remoteReadable: true },
      },
    ],
  },
  {
    name: 'researcher',
    description: 'Looks things up',
    tools: [
      { name: 'web_search', description: 'Search the web', inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
      {
        name: 'fetch_statement',
        description: 'Fetch an account statement',
        inputSchema: { type: 'object', properties: { account: { type: 'string' } } },
        appOutput: { schemaId: 'trustmesh.sim/statement', schemaVersion: 2, remoteReadable: false },
      },
    ],
  },
];

export function capabilitiesManifest(options: {
  agents: readonly SimAgentConfig[];
  model: string;
  runtimeProtocolVersion: RuntimeProtocolVersion;
  appResults: boolean;
  cwd: string;
}): RuntimeCapabilitiesManifest {
  return {
    runtime: { name: 'trustmesh-simulated-runtime', version: '1.0.0', protocolVersion: options.runtimeProtocolVersion },
    model: options.model,
    cwd: options.cwd,
    platform: 'simulated',
    agents: options.agents.map((agent) => ({ name: agent.name, ...(agent.description ? { description: agent.description } : {}) })),
    tools: options.agents.flatMap((agent) =>
      agent.tools.map((tool) => ({
        agentName: agent.name,
        toolName: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        inputSchema: tool.inputSchema ?? { type: 'object' },
        ...(options.appResults && tool.appOutput ? { appOutput: { ...tool.appOutput } } : {}),
      })),
    ),
    skills: [],
    vcs: { kind: 'git', branch: 'main' },
    ...(options.appResults ? { appOutput: { supported: true } } : {}),
  };
}
