/**
 * A catalog publish on a server deployment: one registry process on Postgres with the Kafka bus (librdkafka's
 * mock), configured only by its environment. The entries of a final catalog with a nested catalog reach the
 * read model (through Kafka) as card revisions like any other, so the readers of those tables (search,
 * served catalogs, sync) list them; the same bytes again append nothing.
 */
import { useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { onboard } from './support/registry-app.fixture';
import { createRegistryPlacement, startRegistryChild, type RegistryChild, type RegistryPlacement } from './support/registry.child';
import { bytesOf, cardPath } from './support/registry-clients';
import { entryId, finalCatalog } from './support/catalog-documents';

const WAIT = { timeoutMs: 120_000, intervalMs: 250 };

describe('card registry catalogs on Postgres and Kafka', () => {
  let placement: RegistryPlacement;
  let registry: RegistryChild;

  afterAll(async () => {
    await registry?.stop();
    await placement?.dispose();
  });

  // After the afterAll that stops what uses the cluster: Jest runs afterAll hooks in the order they are declared,
  // and a cluster stopped first leaves every client waiting out its leave and disconnect timeouts.
  const kafka = useKafkaCluster();
  beforeAll(async () => {
    placement = await createRegistryPlacement(kafka.brokers, 'registry-catalogs');
    registry = await startRegistryChild(placement, 'registry-catalogs-a');
  }, 180_000);
  it('projects every inline entry of a published catalog, nested ones included, as card revisions; republishing appends nothing', async () => {
    const acme = await onboard(registry.call, 'acme', ['acme.example']);
    const raw = bytesOf(finalCatalog('acme.example', 'dist'));
    const created = await registry.call('POST', '/v1/catalogs', { token: acme, raw, contentType: 'application/ai-catalog+json' });
    expect(created.status).toBe(201);
    const inline = [entryId('acme.example', 'agent', 'dist-quotes'), entryId('acme.example', 'mcp', 'dist-ledger'), entryId('acme.example', 'bundle', 'dist-support'), entryId('acme.example', 'agent', 'dist-tickets')];
    const projected = async () => (await placement.query<{ identifier: string; kind: string }>('SELECT identifier, kind FROM registry_card_revisions WHERE identifier = ANY($1) ORDER BY identifier', [inline])).map((row) => `${row.identifier} ${row.kind}`);
    await waitUntil(async () => (await projected()).length === 4, { ...WAIT, what: 'the catalog entries in the read model' });
    expect(await projected()).toEqual([...inline].sort().map((identifier) => `${identifier} ${identifier.includes(':mcp:') ? 'mcp-server' : identifier.includes(':bundle:') ? 'ai-catalog' : 'a2a'}`));
    const latest = await placement.query<{ latest_revision: string }>('SELECT latest_revision FROM registry_cards WHERE identifier = $1', [inline[0]]);
    expect(latest).toEqual([{ latest_revision: '1.0.0' }]);

    const again = await registry.call('POST', '/v1/catalogs', { token: acme, raw, contentType: 'application/ai-catalog+json' });
    expect(again.status).toBe(200);
    expect(again.body.created).toBe(false);
    const catalogs = await registry.call('GET', '/v1/namespaces/acme.example/catalogs');
    expect(catalogs.body.catalogs).toHaveLength(1);
    expect((await registry.call('GET', cardPath(entryId('acme.example', 'agent', 'dist-tickets')))).body.latest.catalog).toMatchObject({ parent: entryId('acme.example', 'bundle', 'dist-support') });
  }, 300_000);
});
