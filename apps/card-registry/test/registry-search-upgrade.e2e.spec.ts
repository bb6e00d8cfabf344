/**
 * An upgrade from a registry database older than search: cards projected before the search columns existed
 * (the migration added them empty to every row) become searchable when the new registry starts, on embedded
 * PGlite and on a Postgres server, also when a backfill was stopped mid-way by a crash. The pre-search state is
 * made by emptying the search columns of projected cards exactly as the migration's ADD COLUMN leaves them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SILENT_LOGGER, type Logger } from '@trustmesh/platform-logging';

import { backfillSearchDocuments } from '../src/persistence/registry-search.backfill';
import { onboard, startRegistryApp, type RegistryApp } from './support/registry-app.fixture';
import { aiCard, bytesOf, cardPath, mcpServer } from './support/registry-clients';
import { createRegistryPlacement, type RegistryPlacement } from './support/registry.child';

/** What `20261203075014_search_sync_catalogs` gives a row projected before it: no search document. */
const PRE_SEARCH_STATE = `UPDATE registry_cards SET search_revision = NULL, search_status = NULL, content_type = NULL, name = NULL, description = NULL,
  tags = ARRAY[]::TEXT[], protocols = ARRAY[]::TEXT[], search_document = NULL`;

const INVOICES = 'https://acme.example/agents/invoices';
const WITHDRAWN = 'https://acme.example/agents/withdrawn';
const LEDGER = 'example.acme/ledger';

type Placement = { env: Record<string, string>; dir: string; dispose(): Promise<void> };

async function embedded(): Promise<Placement> {
  const dir = mkdtempSync(join(tmpdir(), 'registry-upgrade-'));
  return { env: {}, dir, dispose: async () => rmSync(dir, { recursive: true, force: true }) };
}

async function server(): Promise<Placement> {
  const placement: RegistryPlacement = await createRegistryPlacement(null, 'registry-upgrade');
  const dir = mkdtempSync(join(tmpdir(), 'registry-upgrade-'));
  return {
    env: { DATABASE_URL: placement.database.url, TRUSTMESH_BUS: 'local' },
    dir,
    async dispose() {
      await placement.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe.each([
  ['embedded PGlite', embedded],
  ['a Postgres server', server],
])('card registry upgraded from a database older than search, on %s', (_label, place) => {
  let placement: Placement;
  let app: RegistryApp | undefined;
  const start = async () => {
    app = await startRegistryApp(placement.env, { dir: placement.dir });
    return app;
  };
  const stop = async () => {
    await app?.close();
    app = undefined;
  };
  const sql = <Row>(text: string) => app!.handle.infrastructure.database.withConnection((connection) => connection.query<Row>(text));
  const found = async (query: string) => ((await app!.call('GET', `/v1/search?${query}`)).body.items as Array<{ identifier: string }>).map((item) => item.identifier).sort();
  const pending = async () => (await sql<{ n: number }>('SELECT count(*)::int AS n FROM registry_cards WHERE search_revision IS NULL'))[0]?.n;

  beforeAll(async () => {
    placement = await place();
    const first = await start();
    const token = await onboard(first.call, 'acme', ['acme.example']);
    const publish = async (document: unknown) => expect((await first.call('POST', '/v1/cards', { token, raw: bytesOf(document) })).status).toBe(201);
    await publish(aiCard('acme.example', { id: INVOICES, tags: ['Finance', 'invoices'] }));
    await publish(aiCard('acme.example', { id: WITHDRAWN, name: 'Withdrawn helper', description: 'Gone from the shelves', tags: ['retired'] }));
    await publish(mcpServer('acme.example', '1.0.0'));
    expect((await first.call('POST', cardPath(WITHDRAWN, '/status'), { token, json: { status: 'yanked' } })).status).toBe(200);
    // Projected (the yank last), then taken back to the state before search.
    for (let tries = 0; (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM registry_cards WHERE search_status IS NOT NULL AND (identifier <> '${WITHDRAWN}' OR search_status = 'yanked')`))[0]?.n !== 3; tries += 1) {
      if (tries > 400) throw new Error('the cards were never projected');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await sql(PRE_SEARCH_STATE);
    expect(await found('q=invoices')).toEqual([]);
    expect(await found('protocol=mcp')).toEqual([]);
  }, 120_000);
  afterAll(async () => {
    await stop();
    await placement?.dispose();
  });

  it('finishes a backfill a crash stopped mid-way on the next start, and every old card is found as before', async () => {
    // A backfill stopped after its first committed batch keeps that batch; the others stay pending.
    const crash = backfillSearchDocuments(app!.handle.infrastructure.database, {
      logger: SILENT_LOGGER,
      batchSize: 1,
      afterBatch: () => {
        throw new Error('crashed mid-way');
      },
    });
    await expect(crash).rejects.toThrow('crashed mid-way');
    expect(await pending()).toBe(2);
    await stop();

    const upgraded = await start();
    expect(await pending()).toBe(0);
    expect(upgraded.logs.some((line) => line.includes('"msg":"search documents backfilled"') && line.includes('"cards":2'))).toBe(true);
    expect(await found('q=invoices')).toEqual([INVOICES]);
    expect(await found('tag=finance')).toEqual([INVOICES]);
    expect(await found('protocol=mcp')).toEqual([LEDGER]);
    expect(await found('status=yanked')).toEqual([WITHDRAWN]);
    expect(await found('')).toEqual([LEDGER, INVOICES].sort());
  }, 120_000);

  it('gives up on a card its rows cannot fill after a bounded number of passes, with a warning, instead of looping', async () => {
    // A row the projection never writes: the latest revision names a revision that is not there.
    await sql(`UPDATE registry_cards SET latest_revision = 'no-such-revision', search_revision = NULL WHERE identifier = '${INVOICES}'`);
    const lines: string[] = [];
    const logger: Logger = { log: (level, message, fields) => void lines.push(JSON.stringify({ level, message, ...fields })) };
    const refreshes = await backfillSearchDocuments(app!.handle.infrastructure.database, { logger, maxPasses: 3 });
    expect(refreshes).toBe(3);
    expect(lines.some((line) => line.includes('SEARCH_BACKFILL_INCOMPLETE') && line.includes('"left":1'))).toBe(true);
    // Put right again for the next test (a later projection of the card would do the same).
    await sql(`UPDATE registry_cards SET latest_revision = (SELECT revision FROM registry_card_revisions WHERE identifier = '${INVOICES}' LIMIT 1) WHERE identifier = '${INVOICES}'`);
    await backfillSearchDocuments(app!.handle.infrastructure.database, { logger: SILENT_LOGGER });
    expect(await pending()).toBe(0);
  }, 60_000);

  it('backfills nothing on a later start', async () => {
    await stop();
    const again = await start();
    expect(again.logs.some((line) => line.includes('search documents backfilled'))).toBe(false);
    expect(await found('q=invoices')).toEqual([INVOICES]);
  }, 120_000);
});
