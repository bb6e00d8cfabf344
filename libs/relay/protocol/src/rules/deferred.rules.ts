/**
 * The deferred rules (BEHAVIOUR.md §3): senders must obey them, but validators, including the
 * conformance frame check, must not reject for them. A strict peer can switch them on to find its
 * own bugs or a misbehaving counterpart; they are off by default.
 */
import { issue, type FrameIssue } from '../validation/frame-issue';

export const DEFERRED_RULES = [
  'runtime.response-result-xor-error',
  'encrypted-payload-kind-required-metadata',
  'gap-from-not-after-through',
] as const;
export type DeferredRule = (typeof DEFERRED_RULES)[number];

export function isDeferredRule(value: string): value is DeferredRule {
  return (DEFERRED_RULES as readonly string[]).includes(value);
}

interface FrameLike {
  type: string;
  [key: string]: unknown;
}

/** Checks a schema-valid frame against the enabled deferred rules. */
export function checkDeferredRules(frame: FrameLike, enabled: readonly DeferredRule[]): FrameIssue[] {
  const issues: FrameIssue[] = [];
  const on = (rule: DeferredRule) => enabled.includes(rule);
  if (frame.type === 'runtime.response' && on('runtime.response-result-xor-error')) {
    const hasResult = 'result' in frame;
    const hasError = 'error' in frame;
    if (hasResult === hasError) {
      issues.push(
        issue(
          'RESPONSE_RESULT_XOR_ERROR',
          '',
          hasResult ? 'A response carries both `result` and `error`; send exactly one.' : 'A response carries neither `result` nor `error`; send exactly one.',
        ),
      );
    }
  }
  if (frame.type === 'runtime.encrypted' && on('encrypted-payload-kind-required-metadata')) {
    const kind = frame['payloadKind'];
    const needed = kind === 'request' || kind === 'response' ? 'requestId' : 'relaySequence';
    if (!(needed in frame)) {
      issues.push(issue('ENCRYPTED_METADATA_MISSING', `/${needed}`, `A \`${String(kind)}\` envelope must carry \`${needed}\`.`));
    }
  }
  if (frame.type === 'runtime.gap' && on('gap-from-not-after-through')) {
    if ((frame['fromRelaySequence'] as number) > (frame['throughRelaySequence'] as number)) {
      issues.push(issue('GAP_RANGE_INVERTED', '/fromRelaySequence', '`fromRelaySequence` must not be after `throughRelaySequence`.'));
    }
  }
  return issues;
}
