/**
 * Builds `interaction.candidate` params from a tracked interaction (BEHAVIOUR.md §4, §8): identity fields
 * always come from the pending request, never from the caller, and user input is normalised against the
 * original form before it is sent, so an invalid answer fails here with the form's own issues.
 */
import { normalizeUserInput, type FrameIssue, type UserInputSubmission, type UserInputValue, type Verdict, type Wire12 } from '@trustmesh/relay-protocol';

import type { TrackedInteraction } from './interaction-tracker';

export type InteractionCandidateParams = Wire12.InteractionCandidateParams;
export type ApprovalDecision = { decision: 'approve' } | { decision: 'reject'; reason?: string };
/** Answers as `[{id, value}]` (protocol form) or as `{[controlId]: value}`. */
export type UserInputValues = UserInputSubmission['values'] | Readonly<Record<string, UserInputValue>>;

const issue = (path: string, message: string): FrameIssue => ({ code: 'FIELD_VALUE', path, message });

export function approvalCandidate(interaction: TrackedInteraction, decision: ApprovalDecision): Verdict<InteractionCandidateParams> {
  if (interaction.method !== 'approval.request') return { ok: false, issues: [issue('/method', 'This interaction asks for user input, not an approval.')] };
  if (decision.decision === 'reject' && decision.reason !== undefined && decision.reason.length === 0) {
    return { ok: false, issues: [issue('/candidate/reason', 'A rejection reason, when given, must not be empty.')] };
  }
  const candidate = decision.decision === 'approve' ? { decision: 'approve' as const } : decision.reason === undefined ? { decision: 'reject' as const } : { decision: 'reject' as const, reason: decision.reason };
  return {
    ok: true,
    value: { interactionId: interaction.interactionId, threadId: interaction.threadId, turnId: interaction.turnId, method: 'approval.request', candidate },
  };
}

export function userInputCandidate(interaction: TrackedInteraction, values: UserInputValues): Verdict<InteractionCandidateParams> {
  const request = interaction.request;
  if (request.method !== 'userInput.request') return { ok: false, issues: [issue('/method', 'This interaction asks for an approval, not user input.')] };
  const list = Array.isArray(values)
    ? (values as UserInputSubmission['values'])
    : Object.entries(values as Readonly<Record<string, UserInputValue>>).map(([id, value]) => ({ id, value }));
  const normalized = normalizeUserInput(request.projection, { status: 'submitted', values: list });
  if (!normalized.ok) return normalized;
  return {
    ok: true,
    value: { interactionId: interaction.interactionId, threadId: interaction.threadId, turnId: interaction.turnId, method: 'userInput.request', candidate: normalized.value },
  };
}

export function userInputCancellation(interaction: TrackedInteraction, reason?: string): Verdict<InteractionCandidateParams> {
  if (interaction.method !== 'userInput.request') return { ok: false, issues: [issue('/method', 'This interaction asks for an approval, not user input.')] };
  if (reason !== undefined && (reason.length === 0 || reason.length > 500)) {
    return { ok: false, issues: [issue('/candidate/reason', 'A cancel reason has 1 to 500 characters.')] };
  }
  const candidate = reason === undefined ? { status: 'cancelled' as const } : { status: 'cancelled' as const, reason };
  return {
    ok: true,
    value: { interactionId: interaction.interactionId, threadId: interaction.threadId, turnId: interaction.turnId, method: 'userInput.request', candidate },
  };
}
