/**
 * The conformance runner (BEHAVIOUR.md §14): checks this library against a fixture folder's
 * manifest, case by case, and records every mismatch with its case id, expected and actual value.
 *
 * It reads fixtures through a callback, so it runs wherever the fixtures are (the CLI reads files; the
 * test suite reads the project's own fixture sets).
 */
import { CONTROL_REGISTRY, WIRE_REGISTRY } from '../generated/registry';
import { classifyReplay, type RequestIdentity } from '../idempotency/replay-classifier';
import { methodDisposition } from '../registry/method-registry';
import { wireErrorRetryability } from '../registry/error-registry';
import { isDeferredRule } from '../rules/deferred.rules';
import { classifyAck } from '../sequencing/ack-classifier';
import { decodeFrame, readFrameText } from '../validation/frame-reader';
import { validateBrowserSessionDescriptor, validateControlMessage, validateMethodParams, validateMethodResult } from '../validation/frame-validator';
import { isWireVersion, negotiateWireVersion, versionsUpTo, type WireVersion } from '../wire-version';

export interface ConformanceCase {
  id: string;
  expected: string;
  actual: string;
}

export interface ConformanceReport {
  /** What the manifest describes: `Wire 1.2` or `Control 1.0`. */
  subject: string;
  cases: ConformanceCase[];
  mismatches: ConformanceCase[];
}

/** Returns a fixture's text; throws if it cannot be read. */
export type FixtureReader = (fixture: string) => string;

interface WireManifest {
  protocolVersion: string;
  frames?: Array<{ id: string; fixture: string; valid: boolean }>;
  negotiation?: Array<{ id: string; peerVersions: string[]; expected: string | null }>;
  methodRegistry?: Array<{ id: string; value: string; expected: string | null }>;
  methods?: Array<{ id: string; method: string; kind: 'params' | 'result'; valid: boolean; value: unknown }>;
  replay?: Array<{ id: string; existing: RequestIdentity; candidate: RequestIdentity; expected: { disposition: string; errorCode?: string } }>;
  ack?: Array<{ id: string; acknowledgedThrough: number; advertisedThrough: number; incomingThrough: number; expected: string }>;
  errors?: Array<{ id: string; code: string; retryable: boolean }>;
  encryptedVisibleMetadataFields?: string[];
  deferredBreakingRules?: string[];
}

interface ControlManifest {
  controlVersion: string;
  messages?: Array<{ fixture: string; valid: boolean; validFirstFrame: boolean }>;
  sessions?: Array<{ fixture: string; valid: boolean }>;
}

/** Facts of BEHAVIOUR.md §2 the runner asserts for every version, since some manifests list none. */
const SECTION_2 = {
  '1.0': { messageTypes: 7, methods: 14, absent: ['interaction.candidate', 'operation.result.get'] },
  '1.1': { messageTypes: 10, methods: 13, absent: ['approval.respond', 'approval.candidate', 'operation.result.get'] },
  '1.2': { messageTypes: 10, methods: 14, absent: ['approval.respond', 'approval.candidate'] },
} as const;
const SECTION_2_DISPOSITIONS: Record<string, string> = {
  initialize: 'local-only',
  'thread.list': 'query',
  'thread.create': 'mutation',
  'thread.open': 'query',
  'thread.snapshot': 'query',
  'thread.rename': 'mutation',
  'thread.delete': 'mutation',
  'thread.detach': 'mutation',
  'thread.capabilities': 'query',
  'turn.start': 'mutation',
  'turn.cancel': 'mutation',
  'operation.get': 'query',
  'approval.respond': 'mutation',
  'approval.candidate': 'mutation',
  'interaction.candidate': 'mutation',
  'operation.result.get': 'query',
};

export class ManifestError extends Error {}

const show = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

export function runConformance(manifest: unknown, readFixture: FixtureReader): ConformanceReport {
  if (manifest === null || typeof manifest !== 'object') throw new ManifestError('The manifest is not a JSON object.');
  if ('controlVersion' in manifest) return runControl(manifest as ControlManifest, readFixture);
  if ('protocolVersion' in manifest) return runWire(manifest as WireManifest, readFixture);
  throw new ManifestError('The manifest names neither `protocolVersion` nor `controlVersion`.');
}

class Recorder {
  readonly cases: ConformanceCase[] = [];
  check(id: string, expected: unknown, actual: unknown): void {
    this.cases.push({ id, expected: show(expected), actual: show(actual) });
  }
  report(subject: string): ConformanceReport {
    return { subject, cases: this.cases, mismatches: this.cases.filter((c) => c.expected !== c.actual) };
  }
}

function fixtureVerdict(readFixture: FixtureReader, fixture: string, check: (text: string) => boolean): string {
  let text: string;
  try {
    text = readFixture(fixture);
  } catch {
    return `unreadable fixture ${fixture}`;
  }
  return check(text) ? 'valid' : 'invalid';
}

function runWire(manifest: WireManifest, readFixture: FixtureReader): ConformanceReport {
  const version = manifest.protocolVersion;
  if (!isWireVersion(version)) throw new ManifestError(`Wire version ${JSON.stringify(version)} is not one this library speaks.`);
  const r = new Recorder();
  for (const frame of manifest.frames ?? []) {
    r.check(frame.id, frame.valid ? 'valid' : 'invalid', fixtureVerdict(readFixture, frame.fixture, (text) => decodeFrame(text, { wire: version }).ok));
  }
  const local = versionsUpTo(version);
  for (const entry of manifest.negotiation ?? []) {
    r.check(entry.id, entry.expected ?? 'unsupported', negotiateWireVersion(entry.peerVersions, local) ?? 'unsupported');
  }
  for (const entry of manifest.methodRegistry ?? []) {
    r.check(entry.id, entry.expected ?? 'unrecognized', methodDisposition(version, entry.value) ?? 'unrecognized');
  }
  for (const entry of manifest.methods ?? []) {
    const validate = entry.kind === 'params' ? validateMethodParams : validateMethodResult;
    r.check(entry.id, entry.valid ? 'valid' : 'invalid', validate(version, entry.method, entry.value).ok ? 'valid' : 'invalid');
  }
  for (const entry of manifest.replay ?? []) {
    const actual = classifyReplay(entry.existing, entry.candidate);
    r.check(`${entry.id}-disposition`, entry.expected.disposition, actual.disposition);
    r.check(`${entry.id}-error-code`, entry.expected.errorCode ?? 'none', 'errorCode' in actual ? actual.errorCode : 'none');
  }
  for (const entry of manifest.ack ?? []) {
    r.check(entry.id, entry.expected, classifyAck(entry, entry.incomingThrough));
  }
  for (const entry of manifest.errors ?? []) {
    r.check(entry.id, entry.retryable, wireErrorRetryability(version, entry.code) ?? 'unrecognized');
  }
  if (manifest.encryptedVisibleMetadataFields) {
    const sorted = (fields: readonly string[]) => [...fields].sort().join(',');
    r.check('encrypted-visible-metadata-fields', sorted(manifest.encryptedVisibleMetadataFields), sorted(WIRE_REGISTRY[version].encryptedVisibleFields));
  }
  for (const rule of manifest.deferredBreakingRules ?? []) {
    r.check(`deferred-rule-${rule}`, 'switchable', isDeferredRule(rule) ? 'switchable' : 'unknown');
  }
  checkSection2(version, r);
  return r.report(`Wire ${version}`);
}

function checkSection2(version: WireVersion, r: Recorder): void {
  const facts = SECTION_2[version];
  const registry = WIRE_REGISTRY[version];
  r.check(`registry-${version}-message-type-count`, facts.messageTypes, registry.messageTypes.length);
  r.check(`registry-${version}-method-count`, facts.methods, registry.requestMethods.length);
  for (const method of registry.requestMethods) {
    r.check(`registry-${version}-disposition-${method}`, SECTION_2_DISPOSITIONS[method] ?? 'unrecognized', methodDisposition(version, method) ?? 'unrecognized');
  }
  for (const method of facts.absent) {
    r.check(`registry-${version}-absent-${method}`, 'unrecognized', methodDisposition(version, method) ?? 'unrecognized');
  }
}

function runControl(manifest: ControlManifest, readFixture: FixtureReader): ConformanceReport {
  if (manifest.controlVersion !== CONTROL_REGISTRY.controlVersion) {
    throw new ManifestError(`Control version ${JSON.stringify(manifest.controlVersion)} is not one this library speaks.`);
  }
  const r = new Recorder();
  const parse = (text: string): unknown => {
    const parsed = readFrameText(text, false, Number.MAX_SAFE_INTEGER);
    return parsed.ok ? parsed.value : undefined;
  };
  for (const message of manifest.messages ?? []) {
    let first = false;
    const verdict = fixtureVerdict(readFixture, message.fixture, (text) => {
      const result = validateControlMessage(parse(text));
      first = result.ok && result.value.type === CONTROL_REGISTRY.browserFirstMessageType;
      return result.ok;
    });
    r.check(`${message.fixture}-valid`, message.valid ? 'valid' : 'invalid', verdict);
    r.check(`${message.fixture}-valid-first-frame`, message.validFirstFrame, first);
  }
  for (const session of manifest.sessions ?? []) {
    r.check(
      session.fixture,
      session.valid ? 'valid' : 'invalid',
      fixtureVerdict(readFixture, session.fixture, (text) => validateBrowserSessionDescriptor(parse(text)).ok),
    );
  }
  return r.report(`Control ${manifest.controlVersion}`);
}
