/**
 * What the card registry knows of the counterparty (`CounterpartyKnowledge.registry`, projected from
 * `registry.cards.v1`) as claims and signals: the registry is an authoritative source on who publishes a card,
 * whether the publisher proved the namespace (CARDS.md §5 "Ownership verification") and signed the card, the
 * card's lifecycle and the registry's look-alike flags. Claims cite it as `registry:<identifier or namespace>`
 * (§9 "[ours]": a `sourceReference`).
 *
 * Rules (SHIELD.md §9.4, §9.5, §9.2):
 * - a counterparty that claims to be an agent (type `agent`) whose card is unverified, or whose namespace the
 *   registry flags as a look-alike, raises `identity_deception`; a look-alike is flagged for any counterparty
 *   type (a look-alike domain is that tactic's own cue). A yanked or deleted card is an identity its publisher
 *   withdrew: `identity_deception` too. A deprecated card is named (`other`, low).
 * - the registry's claim about the counterparty's identity is `verified` (a verified, not withdrawn card or a
 *   proved namespace), `contradicted` (look-alike) or `unverified`; the message's own identity claims follow
 *   it for an agent, so a verified publisher is never penalised.
 * Pure: no clock (the proof's standing at the consult's time is settled by the reader of the registry facts).
 */
import type { AnalysisRequest, RegistryKnowledge, RiskTier } from '@trustmesh/shield-records';

import type { CheckedClaim, Signal } from './analysis.findings';
import type { Need } from './analysis.wording';

export interface RegistryFindings {
  /** The registry's claim about who the counterparty is, when the registry knows the reference. */
  readonly claim?: CheckedClaim;
  readonly signals: readonly Signal[];
  /** One rationale line on what the registry says. */
  readonly line?: string;
  readonly needs: readonly Need[];
  /** How the message's own identity claims stand against the registry, when it settles them. */
  readonly identityVerdict?: { status: 'verified' | 'contradicted'; reference: string; explanation: string };
}

const NONE: RegistryFindings = { signals: [], needs: [] };

const MAX_REFERENCE = 200;
const registryReference = (registry: RegistryKnowledge) => `registry:${registry.card?.identifier ?? registry.namespace}`.slice(0, MAX_REFERENCE);

function subject(registry: RegistryKnowledge): string {
  const card = registry.card;
  if (!card) return `the registered namespace ${registry.namespace}`;
  return card.name ? `the registered agent "${card.name}" (${card.identifier})` : `the registered card ${card.identifier}`;
}

function publisherName(registry: RegistryKnowledge): string {
  const publisher = registry.publisher;
  return publisher ? (publisher.displayName ?? publisher.publisherId) : 'no publisher';
}

/** Why the registry does not stand behind the identity, or null when it does. */
function unverifiedBecause(registry: RegistryKnowledge): string | null {
  if (registry.ownershipProof === 'lapsed') return `the ownership proof of ${registry.namespace} lapsed`;
  if (registry.ownershipProof === 'expired') return `the ownership proof of ${registry.namespace} expired`;
  if (registry.ownershipProof === 'none') return `no ownership of ${registry.namespace} was ever proved`;
  if (registry.card && !registry.card.verified) return "the card's signature is not verified by the namespace's key";
  return null;
}

/** The registry's claim about who the counterparty is: a card's publisher, or a namespace's holder. */
function identityClaim(registry: RegistryKnowledge, who: string): string {
  return registry.card ? `The counterparty is ${who}, published by ${publisherName(registry)}.` : `The counterparty belongs to ${who}, held by ${publisherName(registry)}.`;
}

function lookalikeText(registry: RegistryKnowledge): string {
  return registry.lookalikeOf.map((flag) => `${flag.namespace} (${flag.reason})`).join(', ');
}

export function registryFindings(request: AnalysisRequest, consequential: boolean): RegistryFindings {
  const registry = request.counterparty?.registry;
  if (!registry) return NONE;
  const claimsAgent = request.caseRecord.counterparty.type === 'agent';
  const reference = registryReference(registry);
  const who = subject(registry);
  const card = registry.card;
  const withdrawn = card !== undefined && (card.status === 'yanked' || card.status === 'deleted');
  const lookalike = registry.lookalikeOf.length > 0;
  const because = unverifiedBecause(registry);
  const signals: Signal[] = [];
  const needs: Need[] = [];
  const stake: RiskTier = consequential ? 'high' : 'medium';
  const renamed = card?.renamedTo ? ` It was renamed to ${card.renamedTo}.` : '';

  let claim: CheckedClaim;
  if (lookalike) {
    claim = {
      kind: 'identity',
      claim: identityClaim(registry, who),
      status: 'contradicted',
      significance: 'high',
      evidenceReferences: [reference],
      explanation: `The card registry flags ${registry.namespace} as a look-alike of ${lookalikeText(registry)}: it imitates another publisher's verified namespace.`,
    };
    signals.push({
      tactic: 'identity_deception',
      observation: `The counterparty's reference belongs to ${registry.namespace}, which the card registry flags as a look-alike of ${lookalikeText(registry)}.`,
      confidence: 0.9,
      significance: 'high',
      seriousHarm: false,
    });
  } else if (because === null && !withdrawn) {
    claim = {
      kind: 'identity',
      claim: identityClaim(registry, who),
      status: 'verified',
      significance: 'medium',
      evidenceReferences: [reference],
      explanation: `The card registry holds a standing ownership proof of ${registry.namespace}${card ? " and the card's verified signature" : ''}.${renamed}`,
    };
  } else {
    claim = {
      kind: 'identity',
      claim: identityClaim(registry, who),
      status: 'unverified',
      significance: claimsAgent ? stake : 'medium',
      evidenceReferences: [reference],
      explanation: `The card registry knows the reference, but ${because ?? `the card is ${card?.status}`}.${renamed}`,
    };
    if (claimsAgent && because !== null) {
      signals.push({
        tactic: 'identity_deception',
        observation: `The counterparty presents itself as ${who}, but the card registry does not verify it: ${because}.`,
        confidence: 0.7,
        significance: stake,
        seriousHarm: false,
      });
      needs.push({
        evidence: `Proof that the counterparty is ${who}: a verified card in the registry, or confirmation through a channel already on record.`,
        question: `Can the counterparty prove it is ${who} (a registry-verified card, or a channel already on record)?`,
        weight: 16,
      });
    }
  }
  if (withdrawn && card) {
    signals.push({
      tactic: 'identity_deception',
      observation: `The card ${card.identifier} was ${card.status} by its publisher: an agent presenting it is not one its publisher stands behind.`,
      confidence: 0.75,
      significance: stake,
      seriousHarm: false,
    });
  } else if (card?.status === 'deprecated') {
    signals.push({ tactic: 'other', observation: `The card ${card.identifier} is deprecated by its publisher.`, confidence: 0.6, significance: 'low', seriousHarm: false });
  }

  const line = `The card registry knows ${who}: ${lookalike ? `a look-alike of ${lookalikeText(registry)}` : because === null ? 'publisher verified' : `not verified (${because})`}${card ? `, card ${card.status}` : ''}.`;
  const identityVerdict =
    claimsAgent && lookalike
      ? { status: 'contradicted' as const, reference, explanation: claim.explanation }
      : claimsAgent && claim.status === 'verified'
        ? { status: 'verified' as const, reference, explanation: claim.explanation }
        : undefined;
  return { claim, signals, line, needs, ...(identityVerdict ? { identityVerdict } : {}) };
}
