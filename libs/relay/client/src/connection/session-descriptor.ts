/**
 * Checks a browser session descriptor before it is used (BEHAVIOUR.md §13): schema-valid (`wss://` only,
 * a parseable URL, `expiresAt` with an offset) and not expired. One descriptor per connection attempt.
 *
 * `allowInsecureLoopback` admits `ws://` to 127.0.0.1, ::1 or localhost, for local development and tests
 * only; every other rule still applies.
 */
import { validateBrowserSessionDescriptor, type BrowserSessionDescriptor, type FrameIssue, type Verdict } from '@trustmesh/relay-protocol';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function checkSessionDescriptor(value: unknown, nowMs: number, options: { allowInsecureLoopback?: boolean } = {}): Verdict<BrowserSessionDescriptor> {
  let candidate = value;
  let insecure = false;
  if (options.allowInsecureLoopback && isInsecureLoopback(value)) {
    candidate = { ...(value as BrowserSessionDescriptor), connectUrl: `wss://${(value as BrowserSessionDescriptor).connectUrl.slice('ws://'.length)}` };
    insecure = true;
  }
  const verdict = validateBrowserSessionDescriptor(candidate);
  if (!verdict.ok) return verdict;
  const expiresAt = Date.parse(verdict.value.expiresAt);
  if (Number.isNaN(expiresAt) || expiresAt <= nowMs) {
    const expired: FrameIssue = { code: 'FIELD_VALUE', path: '/expiresAt', message: 'The session descriptor has expired; fetch a fresh one.' };
    return { ok: false, issues: [expired] };
  }
  return { ok: true, value: insecure ? (value as BrowserSessionDescriptor) : verdict.value };
}

function isInsecureLoopback(value: unknown): boolean {
  const url = (value as { connectUrl?: unknown } | null)?.connectUrl;
  if (typeof url !== 'string' || !url.startsWith('ws://')) return false;
  try {
    return LOOPBACK_HOSTS.has(new URL(url).hostname);
  } catch {
    return false;
  }
}
