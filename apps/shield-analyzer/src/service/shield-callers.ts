/**
 * Who calls the Shield (SHIELD.md §13) and how they prove it: operator accounts with bearer credentials
 * configured as SHA-256 digests, agent tokens an operator issues for one of its agents
 * (`shield-agent-tokens.ts`), and delegated service credentials (`SHIELD_SERVICE_CREDENTIALS`): a service such as
 * the console acts, with one credential, as the operator account `<service>:<id>` that `trustmesh-on-behalf-of`
 * names, one per person of its own. Such an account is an operator account like any other (its cases, outcomes
 * and counterparty history are its own); operator account names cannot hold `:`, so no configured operator can
 * be reached that way. Comparisons are constant-time over digests.
 */
import { delegatedAccount, indexOfDigest, sha256, type OperatorCredential, type ServiceCredential } from '@trustmesh/platform-credentials';

import { AGENT_TOKEN_PREFIX, type AgentTokenHolder, type ShieldAgentTokens } from './shield-agent-tokens';
import { fail, succeed, type ServiceResult } from './shield-service.result';

export type ShieldCaller = { kind: 'operator'; accountId: string } | ({ kind: 'agent' } & AgentTokenHolder);

/** The longest bearer credential looked at: longer ones are refused unhashed. */
const MAX_BEARER = 512;
/** What follows `<service>:` in a delegated account: an operator account name's characters. */
const DELEGATED_ID = /^[A-Za-z0-9._-]{1,64}$/;
const UNAUTHENTICATED = 'A valid bearer credential is required';

export class ShieldCallers {
  private readonly digests: readonly Buffer[];
  private readonly serviceDigests: readonly Buffer[];

  constructor(
    private readonly operators: readonly OperatorCredential[],
    readonly agentTokens: ShieldAgentTokens,
    private readonly services: readonly ServiceCredential[] = [],
  ) {
    this.digests = operators.map((operator) => operator.digest);
    this.serviceDigests = services.map((service) => service.digest);
  }

  /**
   * The caller a bearer credential proves, or why not: 401 without a valid credential, or with a service
   * credential whose `onBehalfOf` is missing or malformed; 403 when it names an account outside the service's
   * prefix. `onBehalfOf` is ignored with any other credential.
   */
  async authenticate(bearer: string | undefined, onBehalfOf?: string): Promise<ServiceResult<ShieldCaller>> {
    if (!bearer || bearer.length > MAX_BEARER) return fail('unauthenticated', 'SHIELD_UNAUTHENTICATED', UNAUTHENTICATED);
    if (bearer.startsWith(AGENT_TOKEN_PREFIX)) {
      const holder = await this.agentTokens.authenticate(bearer.slice(AGENT_TOKEN_PREFIX.length));
      return holder ? succeed({ kind: 'agent', ...holder }) : fail('unauthenticated', 'SHIELD_UNAUTHENTICATED', UNAUTHENTICATED);
    }
    const digest = sha256(bearer);
    const operator = this.operators[indexOfDigest(digest, this.digests)];
    if (operator) return succeed({ kind: 'operator', accountId: operator.accountId });
    const service = this.services[indexOfDigest(digest, this.serviceDigests)];
    if (!service) return fail('unauthenticated', 'SHIELD_UNAUTHENTICATED', UNAUTHENTICATED);
    const delegated = delegatedAccount(onBehalfOf, service.service, ':', DELEGATED_ID);
    if (delegated.ok) return succeed({ kind: 'operator', accountId: delegated.account });
    if (delegated.reason === 'foreign') return fail('forbidden', 'SHIELD_ON_BEHALF_OF_FOREIGN', `This service credential acts only for accounts ${service.service}:<id>`);
    if (delegated.reason === 'missing') {
      return fail('unauthenticated', 'SHIELD_ON_BEHALF_OF_MISSING', `A service credential acts for one account: name it in trustmesh-on-behalf-of as ${service.service}:<id>`);
    }
    return fail('unauthenticated', 'SHIELD_ON_BEHALF_OF_INVALID', `trustmesh-on-behalf-of must be ${service.service}:<id>, the id 1-64 of A-Z a-z 0-9 . _ -`);
  }
}
