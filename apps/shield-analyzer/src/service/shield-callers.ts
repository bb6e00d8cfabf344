/**
 * Who calls the Shield (SHIELD.md §13) and how they prove it: operator accounts with bearer credentials
 * configured as SHA-256 digests, and agent tokens an operator issues for one of its agents
 * (`shield-agent-tokens.ts`). Comparisons are constant-time over digests.
 */
import { indexOfDigest, sha256, type OperatorCredential } from '@trustmesh/platform-credentials';

import { AGENT_TOKEN_PREFIX, type AgentTokenHolder, type ShieldAgentTokens } from './shield-agent-tokens';

export type ShieldCaller = { kind: 'operator'; accountId: string } | ({ kind: 'agent' } & AgentTokenHolder);

/** The longest bearer credential looked at: longer ones are refused unhashed. */
const MAX_BEARER = 512;

export class ShieldCallers {
  private readonly digests: readonly Buffer[];

  constructor(
    private readonly operators: readonly OperatorCredential[],
    readonly agentTokens: ShieldAgentTokens,
  ) {
    this.digests = operators.map((operator) => operator.digest);
  }

  /** The caller a bearer credential proves, or null (401). */
  async authenticate(bearer: string | undefined): Promise<ShieldCaller | null> {
    if (!bearer || bearer.length > MAX_BEARER) return null;
    if (bearer.startsWith(AGENT_TOKEN_PREFIX)) {
      const holder = await this.agentTokens.authenticate(bearer.slice(AGENT_TOKEN_PREFIX.length));
      return holder ? { kind: 'agent', ...holder } : null;
    }
    const index = indexOfDigest(sha256(bearer), this.digests);
    const operator = this.operators[index];
    return operator ? { kind: 'operator', accountId: operator.accountId } : null;
  }
}
