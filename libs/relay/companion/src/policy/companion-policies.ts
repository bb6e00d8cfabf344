/**
 * Host policies the Companion core consults (BEHAVIOUR.md §4, §8). Each fails closed: a policy that
 * throws (or answers something it should not) counts as a refusal.
 *
 * - request policy: may a remote peer run this method at all? Checked before the idempotency cache;
 *   a refusal is `REMOTE_REQUEST_DENIED` and is never cached;
 * - responder policy: may this connection answer this interaction? (`COMPANION_ERROR` otherwise);
 * - approval policy: what the device decides when a browser approves (the §8 outcome table);
 * - app-result grant: may `operation.result.get` reveal this (agentName, toolName)'s app output?
 *   Default deny; also what 1.2 capabilities report as `tools[].appOutput.remoteReadable`.
 */
import type { WireVersion } from '@trustmesh/relay-protocol';

import type { RuntimeApprovalRequest } from '../agent-runtime.port';

export interface RequestPolicyContext {
  method: string;
  /** The workspace the request names. */
  workspaceId: string;
  /** The workspace this Companion serves. */
  boundWorkspaceId: string;
  wireVersion: WireVersion;
  /** The request arrived inside an envelope that this workspace's cipher opened. */
  encrypted: boolean;
  /** The runtime serves Runtime 1.5 app results. */
  appResults: boolean;
  generation: number;
}

/** `true` admits the request. */
export type RequestPolicy = (context: RequestPolicyContext) => boolean;

export interface ResponderPolicyContext {
  generation: number;
  interactionId: string;
  method: 'approval.request' | 'userInput.request';
  threadId: string;
  turnId: string;
}

/** `true` lets this connection answer the interaction. */
export type ResponderPolicy = (context: ResponderPolicyContext) => boolean | Promise<boolean>;

export type ApprovalDecision = 'allow' | 'deny' | 'require-local-confirmation';

export interface ApprovalPolicyContext {
  interactionId: string;
  threadId: string;
  turnId: string;
  /** The raw Runtime approval (local only: this policy runs on the device). */
  approval: RuntimeApprovalRequest;
  generation: number;
}

/**
 * Consulted when a browser approves. `allow`: the Runtime gets approve. `deny`: the Runtime gets reject
 * with a fixed local reason and the browser `LocalApprovalDeniedError`. `require-local-confirmation`:
 * nothing happens, the interaction stays pending, the browser gets `LocalConfirmationRequiredError`.
 * Anything else, or a throw: the Runtime request fails, the interaction is cancelled, the browser gets
 * `LocalApprovalDeniedError`.
 */
export type ApprovalPolicy = (context: ApprovalPolicyContext) => ApprovalDecision | Promise<ApprovalDecision>;

/** `true` lets browsers read the app output of this (agentName, toolName) pair. */
export type AppResultGrant = (agentName: string, toolName: string) => boolean;

export interface CompanionPolicies {
  /** Default: `productionRequestPolicy`. */
  request?: RequestPolicy;
  /** Default: every live connection may answer. */
  responder?: ResponderPolicy;
  /** Default: `allow` (the Runtime stays the only approval authority). */
  approval?: ApprovalPolicy;
  /** Default: deny every pair. */
  appResults?: AppResultGrant;
}

/** The reason the Runtime sees when local policy denies an approval. Fixed; it never crosses the relay. */
export const LOCAL_DENY_REASON = 'Denied by local approval policy.';

/** Methods a production host admits remotely (§8), `operation.result.get` only when it serves 1.2 app results. */
export const PRODUCTION_REMOTE_METHODS: readonly string[] = [
  'thread.list',
  'thread.create',
  'thread.open',
  'thread.snapshot',
  'thread.capabilities',
  'turn.start',
  'turn.cancel',
  'operation.get',
  'interaction.candidate',
];

export interface RequestPolicyOptions {
  /** Methods admitted; `'all'` admits every method the Wire version recognises. Default: the production list. */
  allow?: readonly string[] | 'all';
  /** Methods refused even when `allow` admits them. */
  deny?: readonly string[];
  /** Admit `operation.result.get` when the session is 1.2 and the runtime serves app results (default true). */
  appResults?: boolean;
  /**
   * Refuse requests naming another workspace with `REMOTE_REQUEST_DENIED` (as §8's production policy
   * does). Default false: they reach step 3 and get `WORKSPACE_NOT_FOUND`.
   */
  boundWorkspaceOnly?: boolean;
}

/** Builds a request policy from method lists. */
export function createRequestPolicy(options: RequestPolicyOptions = {}): RequestPolicy {
  const allow = options.allow === 'all' ? 'all' : new Set(options.allow ?? PRODUCTION_REMOTE_METHODS);
  const deny = new Set(options.deny ?? []);
  const appResults = options.appResults ?? true;
  const boundOnly = options.boundWorkspaceOnly ?? false;
  return (context) => {
    if (boundOnly && context.workspaceId !== context.boundWorkspaceId) return false;
    if (deny.has(context.method)) return false;
    if (allow === 'all') return true;
    if (context.method === 'operation.result.get' && appResults && context.wireVersion === '1.2' && context.appResults) return true;
    return allow.has(context.method);
  };
}

/** §8's production request policy: the production methods, for the bound workspace only. */
export const productionRequestPolicy: RequestPolicy = createRequestPolicy({ boundWorkspaceOnly: true });
