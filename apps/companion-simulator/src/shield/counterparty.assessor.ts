/**
 * Checks a counterparty request with the Shield before the person is asked (issue 12): opens a case for the
 * interaction (protected agent, counterparty, goal, proposed action), consults with the counterparty's
 * message, and turns the verdict into the approval's explanation. When the person answers, it closes the
 * case with the matching outcome, so the Shield's outcome intelligence for that counterparty learns from it.
 *
 * It never blocks the person and never throws: a Shield that is down, slow (each call has a deadline), or
 * refuses, yields an explanation saying plainly that the request was not checked. A case opened before a
 * failure is still closed when the person answers, so no case is left open by a failed consult.
 *
 * Logs carry case ids, dispositions and failure codes only: never the credential, the counterparty's
 * message or the Shield's text.
 */
import type { CounterpartyAnswer, CounterpartyAssessment, CounterpartyAssessor, CounterpartyRequest } from '@trustmesh/relay-companion-sim';

import { ShieldCallError, type ShieldClient } from './shield.client';
import { caseInputFor, closeInputFor, consultInputFor, readVerdict, unavailableExplanation, verdictExplanation, type ShieldVerdict } from './shield-verdict.mapping';

/** The transport's log shape: one line per event, the simulator's logger decides where it goes. */
export type AssessorLog = (level: 'log' | 'warn', message: string) => void;

export interface ShieldAssessorOptions {
  client: Pick<ShieldClient, 'openCase' | 'consult' | 'closeCase'>;
  /** The protected agent the cases belong to. */
  agentId: string;
  log?: AssessorLog;
  /** Told when a case is closed (tests and stats). */
  onClosed?: (closed: { caseId: string; answer: CounterpartyAnswer; result: string }) => void;
}

export function createShieldAssessor(options: ShieldAssessorOptions): CounterpartyAssessor {
  const log = options.log ?? (() => undefined);
  return async (request) => {
    let caseId: string | null = null;
    let verdict: ShieldVerdict | null = null;
    let explanation: string;
    try {
      caseId = await options.client.openCase(caseInputFor(request, options.agentId));
      verdict = readVerdict(await options.client.consult(caseId, consultInputFor(request)));
      if (!verdict) throw new ShieldCallError('SHIELD_ANSWER_INVALID', 'Consult');
      explanation = verdictExplanation(verdict);
      log('log', `shield consulted: case ${caseId}, ${verdict.disposition}, ${verdict.riskTier} risk`);
    } catch (error) {
      const code = error instanceof ShieldCallError ? error.code : 'SHIELD_ANSWER_INVALID';
      explanation = unavailableExplanation(code);
      log('warn', `shield could not be consulted (${code}); the approval says the request was not checked`);
    }
    return { explanation, settled: (answer) => void closeCase(options, log, caseId, verdict, request, answer) } satisfies CounterpartyAssessment;
  };
}

async function closeCase(
  options: ShieldAssessorOptions,
  log: AssessorLog,
  caseId: string | null,
  verdict: ShieldVerdict | null,
  request: CounterpartyRequest,
  answer: CounterpartyAnswer,
): Promise<void> {
  if (caseId === null) return;
  try {
    const result = await options.client.closeCase(caseId, closeInputFor(answer, verdict, request));
    log('log', `shield case ${caseId} closed: ${answer} -> ${result}`);
    options.onClosed?.({ caseId, answer, result });
  } catch (error) {
    log('warn', `shield case ${caseId} could not be closed (${error instanceof ShieldCallError ? error.code : 'SHIELD_ANSWER_INVALID'})`);
  }
}
