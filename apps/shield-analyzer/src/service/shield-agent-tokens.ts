/**
 * Agent tokens (SHIELD.md §13): issued by an operator for one agent of its account, 1-30 days, shown once,
 * listed and revoked by the operator. Tokens read `tmsa_<tokenId>.<secret>`: the id finds the token's stream
 * without scanning, the secret is 32 random bytes kept only as its SHA-256.
 *
 * Two kinds of stream, neither published on the bus (nothing else needs them; a digest never travels):
 * - `shield-agent-token-<tokenId>`: what authentication reads on every call, on any replica: the issue (with
 *   the digest) and, once revoked, the revocation. No cache, so a revocation is refused at once everywhere.
 * - `shield-agent-tokens-<sha256(account, agent)>`: the agent's register of its tokens (never a digest), what
 *   the operator lists, and the consistency boundary of the live-token bound: an issue appends at the version
 *   it counted from, so two concurrent issues cannot both take the last place.
 *
 * Writes touch the two streams in the order that fails safe: an issue registers first (a token whose own
 * stream never got written is listed but authenticates nothing), a revocation writes the token's stream
 * first (a crash before the register is written leaves a refused token listed as live; revoking again,
 * which is idempotent, completes it).
 */
import { digestsEqual, mintSecret, sha256, sha256Hex } from '@trustmesh/platform-credentials';
import { ConcurrencyError, type EventStore } from '@trustmesh/platform-event-store';
import { isShieldId } from '@trustmesh/shield-records';

export const AGENT_TOKEN_SCOPES = ['mcp:access', 'profile:read', 'interaction:write', 'feedback:write'] as const;
export type AgentTokenScope = (typeof AGENT_TOKEN_SCOPES)[number];

export const AGENT_TOKEN_PREFIX = 'tmsa_';
/** Live (neither expired nor revoked) tokens one agent may hold: enough for every runtime it runs in, few enough to review. */
export const MAX_LIVE_AGENT_TOKENS = 20;
/** How many tokens a list answers with, newest first. */
export const AGENT_TOKEN_LIST_LIMIT = 100;

const ISSUED = 'ShieldAgentTokenIssued';
const REVOKED = 'ShieldAgentTokenRevoked';
const REGISTERED = 'ShieldAgentTokenRegistered';
const REVOCATION_RECORDED = 'ShieldAgentTokenRevocationRecorded';
/** Concurrent issues for one agent retry this often before answering "changed, retry". */
const REGISTER_ATTEMPTS = 5;

const tokenStream = (tokenId: string) => `shield-agent-token-${tokenId}`;
/** Hashed so any agent id (up to 200 characters, any text) makes a short, safe stream id; the NUL keeps pairs apart. */
const registerStream = (accountId: string, agentId: string) => `shield-agent-tokens-${sha256Hex(`${accountId}\u0000${agentId}`)}`;

/** What the operator sees of a token: never the secret or its digest. */
export interface AgentTokenView {
  tokenId: string;
  agentId: string;
  name?: string;
  scopes: AgentTokenScope[];
  issuedAt: string;
  expiresAt: string;
  revokedAt?: string;
  /** When the operator confirmed this token's MCP installation (issued with `mcp: true`); absent: MCP refuses it. */
  mcpInstallationConfirmedAt?: string;
  status: 'active' | 'expired' | 'revoked';
}

/** A token as the agent's register records it (`ShieldAgentTokenRegistered`): never the digest. */
interface RegisteredToken extends Omit<AgentTokenView, 'status' | 'revokedAt'> {
  accountId: string;
}

/** The token stream's first event: the register's entry plus the digest authentication compares. */
interface TokenIssued extends RegisteredToken {
  /** SHA-256 of the secret part, hex. */
  secretSha256: string;
}

/** An authenticated agent token. */
export interface AgentTokenHolder {
  accountId: string;
  agentId: string;
  tokenId: string;
  scopes: readonly AgentTokenScope[];
  mcpInstallationConfirmed: boolean;
}

export type IssueRefusal = 'limit' | 'changed';

export class ShieldAgentTokens {
  constructor(
    private readonly store: EventStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Issues a token: its text is returned once and never kept. Refuses past the live-token bound. */
  async issue(
    accountId: string,
    agentId: string,
    options: { tokenId: string; name?: string; expiresInDays: number; mcp: boolean },
  ): Promise<{ ok: true; token: string; view: AgentTokenView } | { ok: false; refusal: IssueRefusal }> {
    const issuedAt = this.now();
    const entry: RegisteredToken = {
      tokenId: options.tokenId,
      accountId,
      agentId,
      ...(options.name !== undefined ? { name: options.name } : {}),
      scopes: [...AGENT_TOKEN_SCOPES],
      issuedAt: issuedAt.toISOString(),
      expiresAt: new Date(issuedAt.getTime() + options.expiresInDays * 86_400_000).toISOString(),
      ...(options.mcp ? { mcpInstallationConfirmedAt: issuedAt.toISOString() } : {}),
    };
    const registered = await this.register(accountId, agentId, entry);
    if (registered) return { ok: false, refusal: registered };
    const secret = mintSecret();
    const issued: TokenIssued = { ...entry, secretSha256: sha256Hex(secret) };
    await this.store.append(tokenStream(options.tokenId), 'no-stream', [{ eventType: ISSUED, data: issued }], { topic: null });
    return { ok: true, token: `${AGENT_TOKEN_PREFIX}${options.tokenId}.${secret}`, view: viewOf(entry, undefined, issuedAt) };
  }

  /** The agent's tokens, newest first, at most `AGENT_TOKEN_LIST_LIMIT`. */
  async list(accountId: string, agentId: string): Promise<AgentTokenView[]> {
    const { tokens } = await this.readRegister(accountId, agentId);
    const now = this.now();
    return [...tokens.values()]
      .reverse()
      .slice(0, AGENT_TOKEN_LIST_LIMIT)
      .map(({ entry, revokedAt }) => viewOf(entry, revokedAt, now));
  }

  /** Revokes one of the agent's tokens (idempotent: revoking again answers the first revocation); null if the agent has no such token. */
  async revoke(accountId: string, agentId: string, tokenId: string): Promise<AgentTokenView | null> {
    const { tokens } = await this.readRegister(accountId, agentId);
    const known = tokens.get(tokenId);
    if (!known) return null;
    const revokedAt = known.revokedAt ?? (await this.revokeToken(tokenId));
    if (!known.revokedAt) {
      await this.store.append(registerStream(accountId, agentId), 'any', [{ eventType: REVOCATION_RECORDED, data: { tokenId, revokedAt } }], { topic: null });
    }
    return viewOf(known.entry, revokedAt, this.now());
  }

  /** The holder of `tmsa_<tokenId>.<secret>` (prefix removed), or null: unknown, wrong secret, expired or revoked. */
  async authenticate(idAndSecret: string): Promise<AgentTokenHolder | null> {
    const dot = idAndSecret.indexOf('.');
    const tokenId = idAndSecret.slice(0, dot);
    if (dot < 0 || !isShieldId(tokenId)) return null;
    const events = await this.store.readStream(tokenStream(tokenId));
    const issued = events.find(({ envelope }) => envelope.eventType === ISSUED)?.envelope.data as TokenIssued | undefined;
    if (!issued) return null;
    if (!digestsEqual(Buffer.from(issued.secretSha256, 'hex'), sha256(idAndSecret.slice(dot + 1)))) return null;
    if (Date.parse(issued.expiresAt) <= this.now().getTime()) return null;
    if (events.some(({ envelope }) => envelope.eventType === REVOKED)) return null;
    return { accountId: issued.accountId, agentId: issued.agentId, tokenId, scopes: issued.scopes, mcpInstallationConfirmed: issued.mcpInstallationConfirmedAt !== undefined };
  }

  /** Appends the register entry at the version the live count was taken from; retries when another issue got there first. */
  private async register(accountId: string, agentId: string, entry: RegisteredToken): Promise<IssueRefusal | null> {
    for (let attempt = 0; attempt < REGISTER_ATTEMPTS; attempt += 1) {
      const { version, tokens } = await this.readRegister(accountId, agentId);
      const now = this.now().getTime();
      const live = [...tokens.values()].filter(({ entry: token, revokedAt }) => !revokedAt && Date.parse(token.expiresAt) > now).length;
      if (live >= MAX_LIVE_AGENT_TOKENS) return 'limit';
      try {
        await this.store.append(registerStream(accountId, agentId), version === 0 ? 'no-stream' : version, [{ eventType: REGISTERED, data: entry }], { topic: null });
        return null;
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
      }
    }
    return 'changed';
  }

  /** Appends the revocation to the token's own stream (what authentication reads); returns when it was revoked. */
  private async revokeToken(tokenId: string): Promise<string> {
    const events = await this.store.readStream(tokenStream(tokenId));
    const earlier = events.find(({ envelope }) => envelope.eventType === REVOKED)?.envelope.data as { revokedAt: string } | undefined;
    if (earlier) return earlier.revokedAt;
    const revokedAt = this.now().toISOString();
    try {
      await this.store.append(tokenStream(tokenId), events.length, [{ eventType: REVOKED, data: { tokenId, revokedAt } }], { topic: null });
      return revokedAt;
    } catch (error) {
      // A concurrent revocation of the same token won: answer with its time.
      if (error instanceof ConcurrencyError) return this.revokeToken(tokenId);
      throw error;
    }
  }

  private async readRegister(accountId: string, agentId: string): Promise<{ version: number; tokens: Map<string, { entry: RegisteredToken; revokedAt?: string }> }> {
    const events = await this.store.readStream(registerStream(accountId, agentId));
    const tokens = new Map<string, { entry: RegisteredToken; revokedAt?: string }>();
    for (const { envelope } of events) {
      if (envelope.eventType === REGISTERED) {
        const entry = envelope.data as RegisteredToken;
        tokens.set(entry.tokenId, { entry });
      } else if (envelope.eventType === REVOCATION_RECORDED) {
        const { tokenId, revokedAt } = envelope.data as { tokenId: string; revokedAt: string };
        const token = tokens.get(tokenId);
        if (token && !token.revokedAt) token.revokedAt = revokedAt;
      }
    }
    return { version: events.length, tokens };
  }
}

function viewOf(entry: RegisteredToken, revokedAt: string | undefined, now: Date): AgentTokenView {
  const status = revokedAt ? 'revoked' : Date.parse(entry.expiresAt) <= now.getTime() ? 'expired' : 'active';
  return {
    tokenId: entry.tokenId,
    agentId: entry.agentId,
    ...(entry.name !== undefined ? { name: entry.name } : {}),
    scopes: entry.scopes,
    issuedAt: entry.issuedAt,
    expiresAt: entry.expiresAt,
    ...(revokedAt ? { revokedAt } : {}),
    ...(entry.mcpInstallationConfirmedAt ? { mcpInstallationConfirmedAt: entry.mcpInstallationConfirmedAt } : {}),
    status,
  };
}
