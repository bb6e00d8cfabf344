/**
 * Who calls the Shield (SHIELD.md §13) and how they prove it: operator accounts with bearer credentials
 * configured as SHA-256 digests, and agent tokens an operator issues for one of its agents (1-30 days, shown
 * once, kept only as a SHA-256 digest in the event store). Comparisons are constant-time over digests.
 *
 * Agent tokens read `tmsa_<tokenId>.<secret>`: the id finds the token's stream without scanning, the secret
 * is 32 random bytes. Tokens are appended to `shield-agent-token-<tokenId>` with no outbox topic: nothing
 * else needs them, and their digest never travels on the bus.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

import type { EventStore } from '@trustmesh/platform-event-store';
import { isShieldId } from '@trustmesh/shield-records';

import type { OperatorCredential } from '../config/shield-analyzer.config';

export const AGENT_TOKEN_SCOPES = ['mcp:access', 'profile:read', 'interaction:write', 'feedback:write'] as const;
export type AgentTokenScope = (typeof AGENT_TOKEN_SCOPES)[number];

export type ShieldCaller =
  | { kind: 'operator'; accountId: string }
  | { kind: 'agent'; accountId: string; agentId: string; tokenId: string; scopes: readonly AgentTokenScope[] };

export const AGENT_TOKEN_ISSUED = 'ShieldAgentTokenIssued';
const TOKEN_PREFIX = 'tmsa_';
const agentTokenStream = (tokenId: string) => `shield-agent-token-${tokenId}`;

export interface AgentTokenIssued {
  tokenId: string;
  accountId: string;
  agentId: string;
  name?: string;
  scopes: AgentTokenScope[];
  /** SHA-256 of the secret part, hex. */
  secretSha256: string;
  issuedAt: string;
  expiresAt: string;
}

export const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** A new random bearer credential (development operator credential, agent token secrets). */
export const mintSecret = (): string => randomBytes(32).toString('base64url');

export class ShieldCallers {
  constructor(
    private readonly operators: readonly OperatorCredential[],
    private readonly store: EventStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The caller a bearer credential proves, or null (401). */
  async authenticate(bearer: string | undefined): Promise<ShieldCaller | null> {
    if (!bearer || bearer.length > 512) return null;
    if (bearer.startsWith(TOKEN_PREFIX)) return this.authenticateAgent(bearer.slice(TOKEN_PREFIX.length));
    const digest = sha256(bearer);
    let match: OperatorCredential | null = null;
    // Every digest is compared, so the time taken does not say which account matched.
    for (const credential of this.operators) if (timingSafeEqual(credential.digest, digest) && !match) match = credential;
    return match ? { kind: 'operator', accountId: match.accountId } : null;
  }

  /** Issues an agent token; the token text is returned once and never kept. */
  async issueAgentToken(accountId: string, agentId: string, options: { name?: string; expiresInDays: number; tokenId: string }): Promise<{ token: string; record: AgentTokenIssued }> {
    const secret = mintSecret();
    const issuedAt = this.now();
    const record: AgentTokenIssued = {
      tokenId: options.tokenId,
      accountId,
      agentId,
      ...(options.name !== undefined ? { name: options.name } : {}),
      scopes: [...AGENT_TOKEN_SCOPES],
      secretSha256: sha256(secret).toString('hex'),
      issuedAt: issuedAt.toISOString(),
      expiresAt: new Date(issuedAt.getTime() + options.expiresInDays * 86_400_000).toISOString(),
    };
    await this.store.append(agentTokenStream(options.tokenId), 'no-stream', [{ eventType: AGENT_TOKEN_ISSUED, data: record }], { topic: null });
    return { token: `${TOKEN_PREFIX}${options.tokenId}.${secret}`, record };
  }

  private async authenticateAgent(rest: string): Promise<ShieldCaller | null> {
    const dot = rest.indexOf('.');
    const tokenId = rest.slice(0, dot);
    if (dot < 0 || !isShieldId(tokenId)) return null;
    const events = await this.store.readStream(agentTokenStream(tokenId));
    const issued = events.map((event) => event.envelope).find((envelope) => envelope.eventType === AGENT_TOKEN_ISSUED)?.data as AgentTokenIssued | undefined;
    if (!issued) return null;
    const presented = sha256(rest.slice(dot + 1));
    if (!timingSafeEqual(Buffer.from(issued.secretSha256, 'hex'), presented)) return null;
    if (Date.parse(issued.expiresAt) <= this.now().getTime()) return null;
    return { kind: 'agent', accountId: issued.accountId, agentId: issued.agentId, tokenId: issued.tokenId, scopes: issued.scopes };
  }
}
