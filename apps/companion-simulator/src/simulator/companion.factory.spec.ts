import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { RequestPolicyContext } from '@trustmesh/relay-companion';
import { createWorkspaceCipher, exportPrivateKey, exportPublicKey, generateRelayKeyPair } from '@trustmesh/relay-encryption';

import { companionPolicies, DEFAULT_BEHAVIOUR, loadCompanionCipher } from './companion.factory';

const W = '0190a5e4-7c1e-7b3a-9f00-5d2c7e8a1b42';
const context = (method: string, workspaceId = W): RequestPolicyContext => ({
  method,
  workspaceId,
  boundWorkspaceId: W,
  wireVersion: '1.2',
  encrypted: false,
  appResults: true,
  generation: 1,
});

describe('the simulated Companion\'s policies', () => {
  it('serves every method by default (a foreign workspace then gets WORKSPACE_NOT_FOUND from the core)', () => {
    const { request } = companionPolicies(DEFAULT_BEHAVIOUR);
    expect(['thread.rename', 'thread.delete', 'thread.detach', 'initialize', 'operation.result.get'].map((m) => request!(context(m)))).toEqual([true, true, true, true, true]);
  });

  it('admits only the production list when asked, and refuses denied methods', () => {
    const production = companionPolicies({ ...DEFAULT_BEHAVIOUR, requestPolicy: 'production' }).request!;
    expect(production(context('thread.list'))).toBe(true);
    expect(production(context('thread.rename'))).toBe(false);
    expect(production(context('thread.list', '0190a5e4-0000-7000-8000-000000000000'))).toBe(false);
    const denying = companionPolicies({ ...DEFAULT_BEHAVIOUR, denyMethods: ['thread.delete'] }).request!;
    expect(denying(context('thread.delete'))).toBe(false);
    expect(denying(context('thread.rename'))).toBe(true);
  });

  it('answers approvals with the configured decision and grants only the listed app results', async () => {
    const policies = companionPolicies({ ...DEFAULT_BEHAVIOUR, approvalPolicy: 'deny', appResultGrants: [{ agentName: 'assistant', toolName: 'run_tests' }] });
    expect(await policies.approval!({} as never)).toBe('deny');
    expect(policies.appResults!('assistant', 'run_tests')).toBe(true);
    expect(policies.appResults!('assistant', 'shell')).toBe(false);
  });
});

describe('the Companion\'s cipher from its configured keys', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'sim-keys-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is absent without encryption, and built from a PKCS#8 or JWK key file', async () => {
    await expect(loadCompanionCipher(null, W)).resolves.toBeNull();
    const companion = await generateRelayKeyPair();
    const browser = await generateRelayKeyPair();
    const peerPublicKey = await exportPublicKey(browser.publicKey);
    const replayJournalFile = join(dir, 'journal.jsonl');
    const pkcs8 = join(dir, 'key.pkcs8');
    writeFileSync(pkcs8, `${await exportPrivateKey(companion.privateKey, 'pkcs8')}\n`);
    expect((await loadCompanionCipher({ privateKeyFile: pkcs8, peerPublicKey, replayJournalFile }, W))?.workspaceId).toBe(W);
    const jwk = join(dir, 'key.jwk');
    writeFileSync(jwk, JSON.stringify(await exportPrivateKey(companion.privateKey, 'jwk')));
    expect((await loadCompanionCipher({ privateKeyFile: jwk, peerPublicKey, replayJournalFile }, W))?.workspaceId).toBe(W);
  });

  it('withholds a frame whose opening the journal cannot keep (ENCRYPTION_STATE_UNAVAILABLE), and keeps it spent', async () => {
    const companion = await generateRelayKeyPair();
    const browser = await generateRelayKeyPair();
    const privateKeyFile = join(dir, 'journal-test.pkcs8');
    writeFileSync(privateKeyFile, await exportPrivateKey(companion.privateKey, 'pkcs8'));
    const replayJournalFile = join(dir, 'unwritable-journal.jsonl');
    const cipher = (await loadCompanionCipher({ privateKeyFile, peerPublicKey: await exportPublicKey(browser.publicKey), replayJournalFile }, W))!;
    // The journal can no longer be appended to: its path is now a directory.
    rmSync(replayJournalFile);
    mkdirSync(replayJournalFile);
    const sealer = await createWorkspaceCipher({ workspaceId: W, privateKey: browser.privateKey, peerPublicKey: companion.publicKey, role: 'browser' });
    const envelope = await sealer.seal({ type: 'runtime.request', workspaceId: W, requestId: '0190a5e4-7c1e-7b3a-9f00-5d2c7e8a1b43', method: 'thread.list', params: {} });
    await expect(cipher.open(envelope)).rejects.toMatchObject({ code: 'ENCRYPTION_STATE_UNAVAILABLE' });
    await expect(cipher.open(envelope)).rejects.toMatchObject({ code: 'ENCRYPTED_PAYLOAD_REPLAYED' });
  });

  it('refuses unusable keys without quoting them', async () => {
    const bad = join(dir, 'bad.key');
    writeFileSync(bad, 'not-a-key-secret-material');
    const error = (await loadCompanionCipher({ privateKeyFile: bad, peerPublicKey: 'A'.repeat(43), replayJournalFile: join(dir, 'bad-journal.jsonl') }, W).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/SIMULATOR_E2EE_PRIVATE_KEY_FILE/);
    expect(error.message).not.toContain('not-a-key-secret-material');
  });
});
