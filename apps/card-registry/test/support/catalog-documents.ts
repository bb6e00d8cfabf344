/**
 * AI Catalogs the catalog suites publish (written for these tests, not copied from any spec folder): a final
 * catalog of `domain` with an inline A2A card, an inline MCP server.json, a reference by url and a nested
 * catalog (one inline A2A card and one reference), a seed catalog, and a chain of nested catalogs.
 */
import { mcpServer } from './registry-clients';

export const A2A_TYPE = 'application/a2a-agent-card+json';
export const CATALOG_TYPE = 'application/ai-catalog+json';

/** A v0.3.0 A2A AgentCard served at `https://{domain}/a2a/{name}`. */
export function a2aAgent(domain: string, name: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: `Agent ${name}`,
    description: `Handles ${name} requests`,
    url: `https://${domain}/a2a/${name}`,
    version: '1.0.0',
    protocolVersion: '0.3.0',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: name, name: `${name} skill`, description: `Does ${name}`, tags: ['catalog-test'] }],
    ...overrides,
  };
}

export const entryId = (domain: string, kind: string, name: string) => `urn:air:${domain}:${kind}:${name}`;

/** A final catalog of `domain` (host identifier `did:web:{domain}`); `tag` varies the names so suites do not collide. */
export function finalCatalog(domain: string, tag: string, overrides: { quotesDescription?: string } = {}): Record<string, unknown> {
  return {
    specVersion: '1.0',
    host: { displayName: `Catalog of ${domain}`, identifier: `did:web:${domain}` },
    entries: [
      { identifier: entryId(domain, 'agent', `${tag}-quotes`), type: A2A_TYPE, version: '1.0.0', data: a2aAgent(domain, `${tag}-quotes`, overrides.quotesDescription ? { description: overrides.quotesDescription } : {}) },
      { identifier: entryId(domain, 'mcp', `${tag}-ledger`), type: 'application/json', data: mcpServer(domain, '2.1.0'), tags: ['ledger'] },
      { identifier: entryId(domain, 'skills', `${tag}-pack`), type: 'application/agent-skills+zip', url: `https://${domain}/skills/${tag}.zip`, digest: `sha256:${'ab'.repeat(32)}`, version: '0.3.0' },
      {
        identifier: entryId(domain, 'bundle', `${tag}-support`),
        type: CATALOG_TYPE,
        displayName: 'Support bundle',
        data: {
          specVersion: '1.0',
          entries: [
            { identifier: entryId(domain, 'agent', `${tag}-tickets`), type: A2A_TYPE, data: a2aAgent(domain, `${tag}-tickets`) },
            { identifier: entryId(domain, 'mcp', `${tag}-helpdesk`), type: 'application/mcp-server-card+json', url: `https://${domain}/.well-known/mcp/server-card.json` },
          ],
        },
      },
    ],
  };
}

/** A seed catalog (`aiCards` with `cardUrl`) of `domain`. */
export function seedCatalog(domain: string, names: readonly string[]): Record<string, unknown> {
  return {
    $schema: 'https://schemas.example.org/ai-catalog/v1.json',
    host: { name: `Seed catalog of ${domain}`, id: `did:web:${domain}` },
    aiCards: names.map((name) => ({ id: `https://${domain}/agents/${name}`, name: `Agent ${name}`, description: `The ${name} agent`, cardUrl: `https://${domain}/cards/${name}.json`, updatedAt: '2026-05-01T12:00:00Z' })),
  };
}

/** A catalog nested `levels` deep (the root is level 1), each level holding one inline A2A card. */
export function nestedChain(domain: string, levels: number): Record<string, unknown> {
  let inner: Record<string, unknown> = { specVersion: '1.0', entries: [{ identifier: entryId(domain, 'agent', `deep-${levels}`), type: A2A_TYPE, data: a2aAgent(domain, `deep-${levels}`) }] };
  for (let level = levels - 1; level >= 1; level -= 1) {
    inner = { specVersion: '1.0', entries: [{ identifier: entryId(domain, 'bundle', `level-${level}`), type: CATALOG_TYPE, data: inner }] };
  }
  return inner;
}
