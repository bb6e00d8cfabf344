/**
 * Runs the project's own conformance fixture sets (libs/relay/protocol/conformance, see its README)
 * through `runConformance`, the same runner `trustmesh relay conformance` uses, and guards the sets
 * themselves: every section keeps at least its current number of cases (so an emptied or truncated
 * manifest fails), every fixture file is referenced and every referenced fixture exists, and the leak
 * sentinel appears only in fixtures and values the manifest expects to be rejected.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';

import { runConformance, type ConformanceReport } from '../src';

const CONFORMANCE_DIR = join(__dirname, '..', 'conformance');
const MANIFEST = 'manifest.json';
const SENTINEL = 'trustmesh-leak-sentinel';

type Section =
  | 'frames'
  | 'negotiation'
  | 'methodRegistry'
  | 'methods'
  | 'replay'
  | 'ack'
  | 'errors'
  | 'encryptedVisibleMetadataFields'
  | 'deferredBreakingRules'
  | 'messages'
  | 'sessions';

interface FolderExpectation {
  folder: string;
  subject: string;
  /** The least number of entries each manifest section must keep. */
  minimum: Partial<Record<Section, number>>;
}

const FOLDERS: readonly FolderExpectation[] = [
  {
    folder: 'wire-1.0',
    subject: 'Wire 1.0',
    minimum: { frames: 108, negotiation: 6, methodRegistry: 19, methods: 107, replay: 12, ack: 8, errors: 10, encryptedVisibleMetadataFields: 9, deferredBreakingRules: 3 },
  },
  {
    folder: 'wire-1.1',
    subject: 'Wire 1.1',
    minimum: { frames: 179, negotiation: 8, methodRegistry: 19, methods: 134, replay: 13, ack: 8, errors: 11, encryptedVisibleMetadataFields: 9, deferredBreakingRules: 3 },
  },
  {
    folder: 'wire-1.2',
    subject: 'Wire 1.2',
    minimum: { frames: 195, negotiation: 8, methodRegistry: 19, methods: 154, replay: 13, ack: 8, errors: 11, encryptedVisibleMetadataFields: 9, deferredBreakingRules: 3 },
  },
  {
    folder: 'control-1.0',
    subject: 'Control 1.0',
    minimum: { messages: 28, sessions: 12 },
  },
];

interface FixtureEntry {
  id?: string;
  fixture: string;
  valid: boolean;
}

interface Manifest {
  protocolVersion?: string;
  controlVersion?: string;
  frames?: FixtureEntry[];
  negotiation?: unknown[];
  methodRegistry?: unknown[];
  methods?: Array<{ id: string; valid: boolean; value: unknown }>;
  replay?: unknown[];
  ack?: unknown[];
  errors?: unknown[];
  encryptedVisibleMetadataFields?: string[];
  deferredBreakingRules?: string[];
  messages?: FixtureEntry[];
  sessions?: FixtureEntry[];
}

const folderPath = (folder: string): string => join(CONFORMANCE_DIR, folder);

function readManifest(folder: string): Manifest {
  return JSON.parse(readFileSync(join(folderPath(folder), MANIFEST), 'utf8')) as Manifest;
}

/** Reads a fixture the way the CLI does: by name, and only inside its own folder. */
function fixtureReader(folder: string): (fixture: string) => string {
  const base = resolve(folderPath(folder));
  return (fixture) => {
    const path = resolve(base, fixture);
    if (!path.startsWith(base + sep)) throw new Error(`fixture ${fixture} is outside ${folder}`);
    return readFileSync(path, 'utf8');
  };
}

function fixtureEntries(manifest: Manifest): FixtureEntry[] {
  return [...(manifest.frames ?? []), ...(manifest.messages ?? []), ...(manifest.sessions ?? [])];
}

/** The number of cases the runner records from the manifest's own entries (before its §2 checks). */
function manifestCaseCount(manifest: Manifest): number {
  const length = (section: Section) => manifest[section]?.length ?? 0;
  return (
    length('frames') +
    length('negotiation') +
    length('methodRegistry') +
    length('methods') +
    2 * length('replay') +
    length('ack') +
    length('errors') +
    (manifest.encryptedVisibleMetadataFields ? 1 : 0) +
    length('deferredBreakingRules') +
    2 * length('messages') +
    length('sessions')
  );
}

const describeMismatches = (report: ConformanceReport): string =>
  report.mismatches.map((mismatch) => `${mismatch.id}: expected ${mismatch.expected}, actual ${mismatch.actual}`).join('\n');

describe('the project conformance fixture sets', () => {
  it('has exactly the four fixture folders', () => {
    const folders = readdirSync(CONFORMANCE_DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(folders).toEqual(FOLDERS.map((expectation) => expectation.folder).sort());
  });

  describe.each(FOLDERS)('$folder', ({ folder, subject, minimum }) => {
    const manifest = readManifest(folder);

    it('passes the conformance runner with zero mismatches', () => {
      const report = runConformance(manifest, fixtureReader(folder));
      expect(report.subject).toBe(subject);
      expect(describeMismatches(report)).toBe('');
      expect(report.mismatches).toHaveLength(0);
      expect(report.cases.length).toBeGreaterThanOrEqual(manifestCaseCount(manifest));
    });

    it.each(Object.entries(minimum))('keeps at least its cases in %s (%i)', (section, least) => {
      const entries = manifest[section as Section];
      expect(Array.isArray(entries)).toBe(true);
      expect(entries?.length ?? 0).toBeGreaterThanOrEqual(least);
    });

    it('uses unique case ids and fixture names', () => {
      const ids = Object.entries(manifest)
        .filter(([, value]) => Array.isArray(value))
        .flatMap(([, value]) => (value as Array<{ id?: unknown }>).map((entry) => entry.id))
        .filter((id): id is string => typeof id === 'string');
      expect(new Set(ids).size).toBe(ids.length);
      const fixtures = fixtureEntries(manifest).map((entry) => entry.fixture);
      expect(new Set(fixtures).size).toBe(fixtures.length);
    });

    it('references every fixture file in the folder, and every referenced fixture exists', () => {
      const onDisk = readdirSync(folderPath(folder))
        .filter((name) => name !== MANIFEST)
        .sort();
      const referenced = fixtureEntries(manifest)
        .map((entry) => entry.fixture)
        .sort();
      const orphans = onDisk.filter((name) => !referenced.includes(name));
      const missing = referenced.filter((name) => !onDisk.includes(name));
      expect({ orphans, missing }).toEqual({ orphans: [], missing: [] });
    });

    it('has both accepted and rejected fixtures, and every fixture is a JSON document', () => {
      const entries = fixtureEntries(manifest);
      expect(entries.some((entry) => entry.valid)).toBe(true);
      expect(entries.some((entry) => !entry.valid)).toBe(true);
      const read = fixtureReader(folder);
      for (const entry of entries) expect(() => JSON.parse(read(entry.fixture)) as unknown).not.toThrow();
    });

    it('plants the leak sentinel only where the manifest expects a rejection, and in every leak case', () => {
      const read = fixtureReader(folder);
      for (const entry of fixtureEntries(manifest)) {
        const carriesSentinel = read(entry.fixture).includes(SENTINEL);
        const label = entry.id ?? entry.fixture;
        if (carriesSentinel) expect(`${label}: ${String(entry.valid)}`).toBe(`${label}: false`);
        if (label.includes('leak')) expect(`${label}: ${String(carriesSentinel)}`).toBe(`${label}: true`);
      }
      for (const entry of manifest.methods ?? []) {
        const carriesSentinel = JSON.stringify(entry.value).includes(SENTINEL);
        if (carriesSentinel) expect(`${entry.id}: ${String(entry.valid)}`).toBe(`${entry.id}: false`);
        if (entry.id.includes('leak')) expect(`${entry.id}: ${String(carriesSentinel)}`).toBe(`${entry.id}: true`);
      }
    });

    it('is not vacuous: flipping one expected verdict produces a mismatch', () => {
      const entries = fixtureEntries(manifest);
      const [first] = entries;
      if (!first) throw new Error(`${folder} has no fixture entries`);
      const flip = (list: FixtureEntry[] | undefined) => list?.map((entry) => (entry === first ? { ...entry, valid: !entry.valid } : entry));
      const tampered: Manifest = { ...manifest, frames: flip(manifest.frames), messages: flip(manifest.messages), sessions: flip(manifest.sessions) };
      for (const key of ['frames', 'messages', 'sessions'] as const) if (manifest[key] === undefined) delete tampered[key];
      const report = runConformance(tampered, fixtureReader(folder));
      expect(report.mismatches.length).toBeGreaterThan(0);
    });
  });

  it('covers every leak rule of BEHAVIOUR.md §9 in both redacted Wire versions', () => {
    const leakCases = [
      'reject-leak-tool-started-input',
      'reject-leak-tool-output-event',
      'reject-leak-tool-completed-display',
      'reject-leak-tool-completed-outcome-reason',
      'reject-leak-approval-projection-raw-input',
      'reject-leak-approval-projection-preview',
      'reject-leak-approval-projection-reason',
      'reject-leak-approval-projection-extra-secret-key',
      'reject-leak-approval-resolved-reject-reason',
      'reject-leak-turn-cancelled-reason',
      'reject-leak-turn-cancelled-message',
      'reject-leak-turn-failed-message',
      'reject-leak-interaction-resolved-result',
      'reject-leak-interaction-resolved-reason',
      'reject-leak-interaction-cancelled-reason',
      'reject-leak-interaction-cancelled-result',
      'reject-leak-interaction-request-sensitivity-secret',
      'reject-leak-authentication-request-method',
      'reject-leak-file-picker-method',
      'reject-leak-event-envelope-json-rpc-id',
      'reject-leak-encrypted-envelope-plaintext-key',
    ];
    for (const folder of ['wire-1.1', 'wire-1.2']) {
      const frames = readManifest(folder).frames ?? [];
      const rejected = new Set(frames.filter((frame) => !frame.valid).map((frame) => frame.id));
      expect(leakCases.filter((id) => !rejected.has(id))).toEqual([]);
    }
  });
});
