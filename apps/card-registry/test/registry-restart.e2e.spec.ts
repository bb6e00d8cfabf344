/**
 * Nothing acknowledged is lost across restarts:
 * - a registry process on Postgres (local bus) killed with SIGKILL while publishers keep writing, then
 *   started again: every acknowledged revision, status change and credential is there, nothing twice,
 *   and the read model catches up from the outbox and its checkpoints;
 * - the embedded tier (PGlite) closed and opened again on the same data directory serves the same.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { waitUntil } from '@trustmesh/platform-testing';

import { onboard, startRegistryApp } from './support/registry-app.fixture';
import { createRegistryPlacement, startRegistryChild, type RegistryChild, type RegistryPlacement } from './support/registry.child';
import { bytesOf, cardPath, mcpServer } from './support/registry-clients';

const NAME = 'example.acme/ledger';

describe('card registry restarts', () => {
  let placement: RegistryPlacement | undefined;
  let running: RegistryChild | undefined;
  afterAll(async () => {
    await running?.kill();
    await placement?.dispose();
  });

  it('keeps every acknowledged write when the process is killed (SIGKILL) mid-load and started again', async () => {
    placement = await createRegistryPlacement(null, 'registry-restart');
    const first = await startRegistryChild(placement, 'registry-1');
    running = first;
    const token = await onboard(first.call, 'acme', ['acme.example']);
    const acknowledged: string[] = [];
    let cutOff = 0;
    let stop = false;
    const writer = (async () => {
      for (let minor = 0; !stop; minor += 1) {
        try {
          const reply = await first.call('POST', '/v1/cards', { token, raw: bytesOf(mcpServer('acme.example', `1.${minor}.0`)) });
          expect(reply.status).toBe(201);
          acknowledged.push(reply.body.revision);
        } catch {
          cutOff += 1;
          return;
        }
      }
    })();
    await waitUntil(async () => acknowledged.length >= 6, { timeoutMs: 60_000, intervalMs: 50, what: 'six acknowledged revisions' });
    stop = true;
    await first.kill();
    running = undefined;
    await writer;

    const second = await startRegistryChild(placement, 'registry-2');
    running = second;
    const listed = await second.call('GET', cardPath(NAME, '/revisions'));
    expect(listed.status).toBe(200);
    const stored: string[] = listed.body.revisions.map((revision: { revision: string }) => revision.revision);
    // Every acknowledged revision, once; at most the one request cut off besides.
    expect(stored.slice(0, acknowledged.length)).toEqual(acknowledged);
    expect(stored.length - acknowledged.length).toBeLessThanOrEqual(cutOff);
    expect(new Set(stored).size).toBe(stored.length);

    // The credential issued before the crash still works; writes go on where they stopped.
    const yanked = await second.call('POST', cardPath(NAME, '/status'), { token, json: { status: 'yanked', revision: acknowledged[0] } });
    expect(yanked.status).toBe(200);
    await waitUntil(async () => {
      const rows = await placement!.query<{ n: string }>(`SELECT count(*) AS n FROM registry_card_revisions WHERE identifier = $1`, [NAME]);
      return Number(rows[0]?.n) === stored.length;
    }, { timeoutMs: 60_000, intervalMs: 250, what: 'the read model caught up' });
    await waitUntil(async () => {
      const rows = await placement!.query<{ status: string }>(`SELECT status FROM registry_card_revisions WHERE identifier = $1 AND revision = $2`, [NAME, acknowledged[0]]);
      return rows[0]?.status === 'yanked';
    }, { timeoutMs: 60_000, intervalMs: 250, what: 'the status change projected' });
  }, 180_000);

  it('serves the same cards after the embedded registry is closed and opened again on its data directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'registry-restart-'));
    try {
      const first = await startRegistryApp({}, { dir });
      const token = await onboard(first.call, 'acme', ['acme.example']);
      for (const version of ['1.0.0', '2.0.0']) expect((await first.call('POST', '/v1/cards', { token, raw: bytesOf(mcpServer('acme.example', version)) })).status).toBe(201);
      const before = await first.call('GET', cardPath(NAME, '/revisions/2.0.0'));
      await first.close();

      const second = await startRegistryApp({}, { dir });
      try {
        const after = await second.call('GET', cardPath(NAME, '/revisions/2.0.0'));
        expect(after.bytes.equals(before.bytes)).toBe(true);
        expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
        expect((await second.call('GET', cardPath(NAME))).body.latest.revision).toBe('2.0.0');
        expect((await second.call('POST', '/v1/cards', { token, raw: bytesOf(mcpServer('acme.example', '2.0.0')) })).status).toBe(200);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
