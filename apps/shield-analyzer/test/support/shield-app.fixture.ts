/**
 * Starts the Shield analyzer in-process on embedded PGlite in a temporary directory, with two operator
 * accounts, every port on 0, and the log lines captured; `call` is a real HTTP client for its REST API.
 */
import { createHash } from 'node:crypto';

import { createSeededDataDir } from '@trustmesh/platform-database/testing';

import type { DeterministicAnalyzer } from '../../src/service/shield-analyze.factory';
import { startShieldAnalyzer, type ShieldAnalyzerHandle } from '../../src/shield-analyzer.bootstrap';
import { restClient, type RestCall } from './shield-clients';

export const ACME_TOKEN = 'acme-operator-credential-for-tests-0001';
export const GLOBEX_TOKEN = 'globex-operator-credential-for-tests-0002';
const hex = (text: string) => createHash('sha256').update(text).digest('hex');
/** `SHIELD_OPERATOR_CREDENTIALS` for the two test accounts, `acme` and `globex`. */
export const OPERATOR_CREDENTIALS = `acme:${hex(ACME_TOKEN)},globex:${hex(GLOBEX_TOKEN)}`;

export interface ShieldApp {
  handle: ShieldAnalyzerHandle;
  logs: string[];
  printed: string[];
  call: RestCall;
  /** Polls until `check` returns a value (projections are eventually consistent). */
  eventually<T>(check: () => Promise<T | undefined>, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

/**
 * `options.dir`: reuse a data directory (a restart); it is then left for the caller to remove.
 * `options.analyzer`: the deterministic analysis step (a fault to inject; default the real analyzer).
 */
export async function startShieldApp(extraEnv: Record<string, string> = {}, options: { dir?: string; analyzer?: DeterministicAnalyzer } = {}): Promise<ShieldApp> {
  // A fresh directory already holds a cluster: the app opens it without an initdb of its own (10–15 s).
  const seeded = options.dir ? undefined : await createSeededDataDir('shield-e2e');
  const dir = options.dir ?? (seeded as { dataDir: string }).dataDir;
  const logs: string[] = [];
  const printed: string[] = [];
  const handle = await startShieldAnalyzer(
    {
      TRUSTMESH_DATA_DIR: dir,
      SHIELD_HTTP_PORT: '0',
      SHIELD_GRPC_PORT: '0',
      SHIELD_OPERATOR_PORT: '0',
      SHIELD_OPERATOR_CREDENTIALS: OPERATOR_CREDENTIALS,
      LOG_LEVEL: 'debug',
      ...extraEnv,
    },
    { writeLog: (line) => logs.push(line), print: (line) => printed.push(line), ...(options.analyzer ? { analyzer: options.analyzer } : {}) },
  );
  return {
    handle,
    logs,
    printed,
    call: restClient(handle.httpUrl),
    async eventually(check, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await check();
        if (value !== undefined) return value;
        if (Date.now() > deadline) throw new Error('condition not met in time');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async close() {
      await handle.close();
      await seeded?.remove();
    },
  };
}

export const caseInput = (overrides: Record<string, unknown> = {}) => ({
  agentId: 'agent-a',
  title: 'Supplier asks to change bank details',
  goal: 'Pay the March invoice of Northwind Parts to the correct account',
  counterparty: { type: 'human', reference: 'northwind-billing' },
  facts: [{ statement: 'Invoice INV-2231 is for 4,800 EUR', source: 'system', status: 'verified' }],
  evidence: [{ type: 'system_record', summary: 'Vendor master record: IBAN ending 4411, unchanged since 2024', verification: 'verified' }],
  policies: [{ title: 'Bank detail changes', statement: 'Changes to supplier bank details require a call-back on the number on record and approval by finance.' }],
  ...overrides,
});
