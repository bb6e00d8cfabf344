/**
 * Finds the material claims in what the counterparty said (SHIELD.md §9.4: "a material assertion, mostly the
 * counterparty's, on which the action depends"): amounts, when something happened, who the sender is, approvals,
 * authority, payment destinations, what policy allows, delivery, claims to be the owner (§6), and promises or
 * intentions (which no record can settle: `not_checkable`). One claim per kind, up to three distinct amounts; each claim
 * text carries at most a short quoted cue, never the message (§12).
 */
import { formatAmount, sameAmount } from './amount.parser';
import type { ExtractedClaim } from './analysis.findings';
import type { CaseView } from './case.view';
import { findTimeMention } from './time.parser';

const DAMAGE = /damag|broken|defect|beschadig|kaput|defekt|danad|roto|endomag|case/;

function masked(account: string): string {
  return account.length > 4 ? `ending ${account.slice(-4)}` : account;
}

export function extractClaims(view: CaseView): ExtractedClaim[] {
  const { cues } = view;
  const claims: ExtractedClaim[] = [];

  const owner = cues.find('ownerClaim');
  if (owner) claims.push({ kind: 'owner', claim: `The sender claims to be the agent's owner or operator (${owner.quote}).` });

  const changed = cues.find('changedDetails');
  const newAccount = view.accounts.find((a) => !view.items.some((i) => i.accounts.includes(a)));
  if (changed || view.accounts.length > 0) {
    const account = newAccount ?? view.accounts[0];
    const where = account ? ` (account ${masked(account)})` : '';
    claims.push({
      kind: 'account',
      claim: changed
        ? `The counterparty says payment or contact details have changed${where} (${changed.quote}).`
        : `The counterparty names the account to use${where}.`,
      ...(account ? { account } : {}),
    });
  }

  const approval = cues.find('approvalClaim');
  const figure = cues.find('authorityFigure');
  const act = cues.find('authorityAct');
  if (approval) {
    claims.push({ kind: 'approval', claim: `The counterparty says the request was approved or agreed (${approval.quote}).` });
  } else if (figure && act) {
    claims.push({ kind: 'authority', claim: `The request invokes someone with authority to approve it (${figure.quote}).` });
  }

  const identity = cues.find('identityClaim');
  if (identity) claims.push({ kind: 'identity', claim: `The sender states who they are or whom they represent (${identity.quote}).` });

  const policy = cues.find('policyClaim');
  if (policy) claims.push({ kind: 'policy', claim: `The counterparty says the rules allow or entitle the request (${policy.quote}).` });

  const notReceived = cues.find('notReceived');
  if (notReceived) {
    const damaged = DAMAGE.test(view.said.text.slice(notReceived.index, notReceived.end));
    claims.push({
      kind: 'receipt',
      claim: damaged ? `The counterparty says the goods arrived damaged (${notReceived.quote}).` : `The counterparty says the goods or service never arrived (${notReceived.quote}).`,
      damaged,
    });
  }

  const purchase = cues.find('purchaseEvent');
  if (purchase) {
    const tail = view.said.text.slice(purchase.index, purchase.index + 80);
    const time = findTimeMention(tail, view.referenceMs) ?? findTimeMention(view.said.text.slice(Math.max(0, purchase.index - 60), purchase.index), view.referenceMs);
    if (time) {
      claims.push({
        kind: 'date',
        claim: `The counterparty dates the purchase or delivery about ${Math.max(0, time.daysAgo)} day(s) before this consultation (${purchase.quote}).`,
        time,
      });
    }
  }

  const seen: number[] = [];
  for (const amount of view.amounts) {
    if (seen.some((v) => sameAmount(v, amount.value))) continue;
    seen.push(amount.value);
    claims.push({ kind: 'amount', claim: `The amount involved is ${formatAmount(amount)}.`, amount });
    if (seen.length >= 3) break;
  }

  const promise = cues.find('promise');
  if (promise) claims.push({ kind: 'promise', claim: `The counterparty promises or announces a future action (${promise.quote}).` });

  return claims;
}
