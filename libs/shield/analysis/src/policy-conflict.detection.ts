/**
 * Conflicts between the request and the case's policies and owner guidance (SHIELD.md §9.1 "fits every known
 * policy", §6 guidance is authoritative): amount limits, time windows ("refunds within 30 days"), required approvals
 * and call-backs, forbidden actions, and payment destinations that differ from the records. Numbers, limits and
 * windows are parsed from the rule text and compared with the message's amounts and dates.
 *
 * Each conflict names its resolution path for the §9.1 tie-break: `approval` (a human can decide: seek_approval),
 * `modify` (a safe variant reaches the legitimate goal: modify_plan) or `none` (do_not_proceed). Guidance that gives
 * permission or approval (§6) can resolve an approval requirement, but it never turns a claim into verified evidence.
 */
import type { Conflict } from './analysis.findings';
import type { CaseView, RuleView } from './case.view';
import { sharedStems, stems } from './claim.anchors';
import { CuePattern, CUES, itemHas } from './cue.patterns';
import { SUBJECT_TOPICS_MASK, topicBit } from './topic.lexicon';

export interface RuleAssessment {
  readonly conflicts: Conflict[];
  /** Records the rules need that the case lacks (missing evidence, §9.1 gather_evidence). */
  readonly needs: { readonly evidence: string; readonly question: string }[];
  readonly relevantRuleIds: string[];
  readonly brokenRuleIds: string[];
  readonly gatingRules: RuleView[];
  readonly overLimit: boolean;
  readonly windowPolicy: boolean;
  readonly windowDays?: number;
  readonly changeDetected: boolean;
  readonly callbackRecorded: boolean;
  readonly approvalRecorded: boolean;
}

const CONSEQUENTIAL = topicBit('payment') | topicBit('refund') | topicBit('bankDetails') | topicBit('credentials') | topicBit('access') | topicBit('personalData') | topicBit('deletion');
const MONEY = topicBit('payment') | topicBit('refund') | topicBit('bankDetails');
const DISCLOSE_VERB = /\b(?:share|send|disclose|reveal|give out|tel+|provide|forward|weitergeben|mit+eilen|senden|teilen|compartir|revelar|enviar|divulguer|com+uniquer|partager|envoyer|transmet+re)\w*/;
const RESET_LINK = /\b(?:link|enlace|lien)\b/;
const DATA_REQUEST = new CuePattern([
  {
    source: `${CUES.requestVerb.source}[^.?!\\n]{0,60}(?:${CUES.secretData.source}|${CUES.personalData.source}|${CUES.internalData.source})`,
    leading: ['requestVerb'],
    trailing: ['secretData', 'personalData', 'internalData'],
    inSentence: true,
  },
]);

// "only to the registered channels", "nur über das Portal": the path a restrictive rule still allows (rule texts are
// folded: "ausschließlich" reads "auschlieslich", "committee" reads "comite").
const ONLY_CLAUSE = /\b(?:only|solely|exclusively|nur|aus+chlies+lich|solo|unicamente|uniquement|seulement|exclusivement)\b([^.;]{0,140})/;
// An allowed path that runs through a person or a team is a decision for them.
const DECIDER = /\b(?:team|legal|manager|owner|department|ap+rover|com+it+e+|abteilung|leitung|equipo|responsable|juridique|service|direction|gerente|director)\w*/;

function allowedPath(ruleText: string): string | undefined {
  return ONLY_CLAUSE.exec(ruleText)?.[1];
}

function ruleLabel(rule: RuleView): string {
  return rule.origin === 'guidance' ? 'Owner guidance' : `Policy "${rule.title.length > 80 ? `${rule.title.slice(0, 77)}…` : rule.title}"`;
}

export function assessRules(view: CaseView, elapsedDays: number | undefined): RuleAssessment {
  const auth = view.items.filter((i) => i.standing === 'authoritative');
  const approvalTopic = topicBit('approval');
  const approvalRecorded = auth.some((i) => i.topics & approvalTopic && !i.negated && !i.requirement);
  const callbackRecorded = auth.some((i) => i.callback && !i.negated && !i.requirement);
  const expiredRecord = auth.find((i) => i.expired && !i.requirement);
  const itemAccounts = new Set(view.items.flatMap((i) => i.accounts));
  const changeDetected =
    (view.cues.has('changedDetails') && (view.requestTopics & MONEY) !== 0) || view.accounts.some((a) => itemAccounts.size > 0 && !itemAccounts.has(a));
  const requestAmount = view.amounts.reduce((m, a) => Math.max(m, a.value), 0);
  const dataMatch =
    view.cues.has('secretData') || view.cues.has('personalData') || view.cues.has('internalData') ? DATA_REQUEST.exec(view.cues) : null;
  // "send me a password reset link" asks for the official flow, not for the data.
  const asksForData = dataMatch !== null && !RESET_LINK.test(view.said.text.slice(dataMatch.index, dataMatch.index + dataMatch[0].length + 30));

  const conflicts: Conflict[] = [];
  const needs: RuleAssessment['needs'] = [];
  const relevantRuleIds: string[] = [];
  const brokenRuleIds: string[] = [];
  const gatingRules: RuleView[] = [];
  let overLimit = false;
  let windowPolicy = false;

  const relevant = (rule: RuleView): boolean => {
    const subject = rule.topics & SUBJECT_TOPICS_MASK;
    if (subject === 0) return rule.origin === 'guidance' && (view.requestTopics & CONSEQUENTIAL) !== 0;
    return (subject & view.requestTopics) !== 0;
  };
  const ownerApproves = view.rules.some(
    (r) => r.origin === 'guidance' && r.permits && relevant(r) && (!r.amountRule || requestAmount <= r.amountRule.value),
  );

  const otherWindow = view.rules.find((r) => r.windowDays !== undefined && relevant(r))?.windowDays;

  for (const rule of view.rules) {
    if (!relevant(rule)) continue;
    relevantRuleIds.push(rule.id);
    const fromGuidance = rule.origin === 'guidance';
    const label = ruleLabel(rule);
    if (fromGuidance && rule.permits) continue; // a permission, used above as the owner's approval
    let conditional = false;
    let broken = false;

    if (rule.amountRule) {
      conditional = true;
      if (requestAmount > 0 && requestAmount > rule.amountRule.value) {
        broken = true;
        overLimit = true;
        const needsApproval = rule.requiresApproval || rule.amountRule.kind === 'threshold';
        if (!(needsApproval && (approvalRecorded || ownerApproves))) {
          conflicts.push({
            kind: needsApproval ? 'approval_required' : 'amount_limit',
            severity: 'high',
            path: needsApproval ? 'approval' : 'modify',
            references: [rule.id],
            reason: `${label}: the amount asked for is above the limit it sets${needsApproval ? ' without the approval it requires' : ''}.`,
            ...(needsApproval ? {} : { alternative: 'Offer only what the policy allows (up to its limit), or route the excess for approval.' }),
            fromGuidance,
          });
        }
      }
    }

    const windowDays = rule.windowDays ?? (rule.outsideClause ? otherWindow : undefined);
    if (rule.windowDays !== undefined || rule.outsideClause) {
      conditional = true;
      windowPolicy = true;
      const outside =
        expiredRecord !== undefined || (elapsedDays !== undefined && windowDays !== undefined && elapsedDays > windowDays);
      if (outside) {
        broken = true;
        if (!(rule.requiresApproval && (approvalRecorded || ownerApproves))) {
          conflicts.push({
            kind: 'window',
            severity: 'high',
            path: rule.requiresApproval ? 'approval' : rule.forbids ? 'none' : 'modify',
            references: expiredRecord ? [rule.id, expiredRecord.id] : [rule.id],
            reason: `${label}: the request falls outside the time window it allows${rule.requiresApproval ? ', and the exception it allows needs approval' : ''}.`,
            ...(rule.requiresApproval || rule.forbids ? {} : { alternative: 'Offer what the policy allows outside its window (for example a repair, credit or partial remedy) instead.' }),
            fromGuidance,
          });
        }
      } else if (elapsedDays === undefined || windowDays === undefined) {
        needs.push({
          evidence: 'The purchase or order date from the system of record, to check the policy window.',
          question: 'On what date was the order placed or delivered, according to the order record?',
        });
      }
    }

    if (rule.aboutChange && !changeDetected && (rule.requiresCallback || rule.forbids)) {
      // A rule about new or changed details does not bear on a request that changes nothing.
    } else if (rule.requiresCallback && !conditional) {
      gatingRules.push(rule);
      if (!callbackRecorded) {
        broken = true;
        conflicts.push({
          kind: 'callback_required',
          severity: (view.requestTopics & MONEY) !== 0 ? 'critical' : 'high',
          // A call-back on known details is evidence to gather (§9.1 gather_evidence); a rule that also requires an
          // approval needs a human decision as well, the more restrictive row (tie-break).
          path: rule.requiresApproval ? 'approval' : 'evidence',
          references: [rule.id],
          reason: `${label} requires a call-back on known contact details before acting, and none is recorded.`,
          fromGuidance,
        });
      }
    } else if (rule.requiresApproval && !conditional) {
      gatingRules.push(rule);
      if (!(approvalRecorded && !rule.ownerDecides) && !ownerApproves) {
        broken = true;
        conflicts.push({
          kind: 'approval_required',
          severity: 'high',
          path: 'approval',
          references: [rule.id],
          reason: `${label} requires an approval that the case does not record.`,
          fromGuidance,
        });
      }
    } else if (rule.forbids && !conditional) {
      const disclosure = DISCLOSE_VERB.test(rule.text);
      const allowed = allowedPath(rule.text);
      // The proposed action already takes the path the rule allows ("reset links go only to registered channels").
      // A rule that only names its one allowed path ("payment only to the account on file") is met by an action that
      // names that path at all; one that also forbids outright needs the action to match it more closely.
      const closeness = itemHas(rule.text, 'forbid') ? 2 : 1;
      const complies = allowed !== undefined && view.actionText !== '' && sharedStems(stems(allowed), view.actionText).length >= closeness;
      if ((!disclosure || asksForData) && !complies) {
        broken = true;
        // A rule that says what IS allowed leaves a safe variant (modify_plan), or a person or team who decides
        // (seek_approval); one that only forbids leaves none (§9.1).
        const path = allowed === undefined ? 'none' : DECIDER.test(allowed) ? 'approval' : 'modify';
        conflicts.push({
          kind: 'forbidden',
          severity: 'high',
          path,
          references: [rule.id],
          reason: path === 'none' ? `${label} forbids what is asked, with no exception path.` : `${label} allows this only another way than the one asked for.`,
          ...(path === 'modify' ? { alternative: `Take only the path ${label.toLowerCase()} allows.` } : {}),
          fromGuidance,
        });
      }
    }
    if (rule.requiresApproval && conditional) gatingRules.push(rule);
    if (broken) brokenRuleIds.push(rule.id);
  }

  return {
    conflicts,
    needs,
    relevantRuleIds,
    brokenRuleIds,
    gatingRules,
    overLimit,
    windowPolicy,
    ...(otherWindow !== undefined ? { windowDays: otherWindow } : {}),
    changeDetected,
    callbackRecorded,
    approvalRecorded,
  };
}
