/**
 * The Shield's MCP server (SHIELD.md §13, issue 9): the five `openclasp_shield_*` tools over streamable
 * HTTP (`POST /mcp`), with the official MCP TypeScript SDK, for agent tokens only (scope `mcp:access`).
 * Stateless: each request gets a fresh server and transport (JSON responses, no session), so any replica
 * answers any call. The tools call the same application service as REST and gRPC; over MCP the case's
 * `agentId` is always the bound agent (§3) and closing always reports as the protected agent (§7).
 *
 * Argument schemas list each tool's fields for the calling model but leave their rules to the service's
 * validation (`@trustmesh/shield-records`), so every transport refuses the same input with the same codes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '@trustmesh/platform-logging';
import { z } from 'zod';

import type { ShieldCaller } from '../service/shield-callers';
import type { ShieldCaseService } from '../service/shield-case.service';
import { isUnavailable, UNAVAILABLE, type ServiceResult } from '../service/shield-service.result';

const item = z.record(z.string(), z.unknown());
const items = (what: string) => z.array(item).optional().describe(what);

const CASE_FIELDS = {
  title: z.string().describe('1-160 characters'),
  goal: z.string().describe('What the agent must achieve, 1-2000 characters'),
  brief: z.string().optional(),
  proposedAction: z.string().optional(),
  counterparty: z.object({ type: z.string(), reference: z.string().optional() }).passthrough().describe('type: human, agent, service or unknown; reference: a stable name for the counterparty'),
  facts: items('{ factId?, statement, source, status, evidenceReferences? }'),
  evidence: items('{ evidenceId?, type, summary, sourceReference?, verification }'),
  policies: items('{ policyId?, title, statement, sourceReference? }'),
};

const CONSULT_FIELDS = {
  caseId: z.string(),
  message: z.string().describe('The request, or your question about it (never stored)'),
  situationContext: z.string().optional().describe('Current-turn context (never stored)'),
  proposedAction: z.string().optional(),
  facts: items('facts to merge into the case'),
  evidence: items('evidence to merge into the case'),
  policies: items('policies to merge into the case'),
};

const CLOSE_FIELDS = {
  caseId: z.string(),
  result: z.string().describe('successful, prevented_harm, escalated, false_alarm, unsuccessful or unknown'),
  acceptedAdvice: z.boolean(),
  actionTaken: z.string(),
  observedImpact: z.string().optional(),
};

const INTERNAL = { code: 'SHIELD_INTERNAL', path: '', message: 'Internal error' };

/**
 * Runs a tool's work. The SDK would turn an exception into a tool result holding its message, which may be a
 * database's or a library's text, and nothing would be logged: here the agent gets the same stable refusal REST
 * gives (`SHIELD_UNAVAILABLE` while the database is unreachable, else `SHIELD_INTERNAL`) and the log the
 * error's name only.
 */
async function guarded(logger: Logger, tool: string, work: () => Promise<ToolAnswer>): Promise<ToolAnswer> {
  try {
    return await work();
  } catch (error) {
    const unavailable = isUnavailable(error);
    logger.log(unavailable ? 'warn' : 'error', 'shield mcp tool failed', { tool, errorName: error instanceof Error ? error.name : 'unknown', unavailable });
    const issue = unavailable ? UNAVAILABLE : INTERNAL;
    return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: issue.message, issues: [issue] }) }] };
  }
}

type ToolAnswer = ReturnType<typeof answer>;

function answer(result: ServiceResult<unknown>): { isError?: boolean; content: Array<{ type: 'text'; text: string }> } {
  // §13: over MCP another agent's case is "not found" (REST answers 403 for the same call).
  if (!result.ok && result.failure.issues.some((issue) => issue.code === 'SHIELD_AGENT_MISMATCH')) {
    return answer({ ok: false, failure: { kind: 'not_found', error: 'Shield case not found', issues: [{ code: 'SHIELD_CASE_NOT_FOUND', path: '/caseId', message: 'Shield case not found' }] } });
  }
  if (result.ok) return { content: [{ type: 'text' as const, text: JSON.stringify(result.value) }] };
  return { isError: true, content: [{ type: 'text' as const, text: JSON.stringify({ error: result.failure.error, issues: result.failure.issues }) }] };
}

function shieldMcpServer(service: ShieldCaseService, caller: Extract<ShieldCaller, { kind: 'agent' }>, logger: Logger): McpServer {
  const server = new McpServer({ name: 'trustmesh-shield', version: '0.1.0' });
  server.registerTool(
    'openclasp_shield_open_case',
    { description: 'Open a Shield case for your agent before acting on a counterparty request.', inputSchema: z.object(CASE_FIELDS).strict() },
    (args) => guarded(logger, 'openclasp_shield_open_case', async () => answer(await service.open(caller, { ...args, agentId: caller.agentId }))),
  );
  server.registerTool(
    'openclasp_shield_consult',
    { description: 'Consult the Shield on a case: returns the updated case and the consultation (disposition, risk, claims, tactics, next steps).', inputSchema: z.object(CONSULT_FIELDS).strict() },
    ({ caseId, ...input }) => guarded(logger, 'openclasp_shield_consult', async () => answer(await service.consult(caller, caseId, input))),
  );
  server.registerTool('openclasp_shield_get_case', { description: 'One of your cases with its consultations, oldest first.', inputSchema: z.object({ caseId: z.string() }).strict() }, ({ caseId }) =>
    guarded(logger, 'openclasp_shield_get_case', async () => {
      const result = await service.get(caller, caseId);
      return answer(result.ok ? { ok: true, value: { case: result.value.case, consultations: result.value.consultations } } : result);
    }),
  );
  server.registerTool('openclasp_shield_list_cases', { description: "Your agent's cases, most recently updated first.", inputSchema: z.object({}).strict() }, () =>
    guarded(logger, 'openclasp_shield_list_cases', async () => answer(await service.list(caller))),
  );
  server.registerTool(
    'openclasp_shield_close_case',
    { description: 'Close a case with its outcome (reported as the protected agent).', inputSchema: z.object(CLOSE_FIELDS).strict() },
    ({ caseId, ...input }) => guarded(logger, 'openclasp_shield_close_case', async () => answer(await service.close(caller, caseId, input, 'feedback:write'))),
  );
  return server;
}

/** Answers one MCP request (already authenticated as an agent with `mcp:access`, body read and bounded). */
export async function handleMcpRequest(
  service: ShieldCaseService,
  logger: Logger,
  caller: Extract<ShieldCaller, { kind: 'agent' }>,
  request: IncomingMessage,
  response: ServerResponse,
  body: unknown,
): Promise<void> {
  const server = shieldMcpServer(service, caller, logger);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request, response, body);
}
