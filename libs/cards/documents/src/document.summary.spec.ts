import { A2A_V10, AI_CARD, check, FINAL_CATALOG, MCP_SERVER, SEED_CATALOG } from './documents.fixtures';
import { summarizeCatalogEntries, summarizeDocument } from './index';

describe('summarizeDocument', () => {
  it('indexes an AI Card by id and updatedAt, with skills, tools and protocols from its services', () => {
    expect(summarizeDocument(check(AI_CARD))).toEqual({
      kind: 'ai-card',
      identifier: 'did:web:orbit.example',
      updatedAt: '2026-02-10T09:30:00+01:00',
      name: 'Orbit Weather',
      description: 'Forecasts and severe-weather alerts for logistics planners.',
      tags: ['weather', 'logistics'],
      skills: ['forecast', 'Seven-day forecast'],
      tools: ['get_alerts'],
      protocols: ['a2a', 'mcp'],
      publisher: { identifier: 'did:web:orbit.example', name: 'Orbit Labs' },
      maturity: 'preview',
    });
  });

  it('leaves the identifier of an A2A card to the registry and takes its version and provider', () => {
    expect(summarizeDocument(check({ ...A2A_V10, provider: { organization: 'Orbit Labs', url: 'https://orbit.example' } }))).toEqual({
      kind: 'a2a',
      identifier: undefined,
      version: '3.0.0',
      name: 'Orbit Weather',
      description: 'Forecasts for logistics.',
      tags: ['alerts'],
      skills: ['alerts', 'Alerts'],
      tools: [],
      protocols: ['a2a'],
      publisher: { identifier: 'https://orbit.example', name: 'Orbit Labs' },
    });
  });

  it('indexes an MCP server by name and version, titled by its title', () => {
    expect(summarizeDocument(check(MCP_SERVER))).toMatchObject({ kind: 'mcp-server', identifier: 'io.github.orbit/weather', version: '1.4.2', name: 'Orbit Weather', protocols: ['mcp'] });
  });

  it('summarises a final catalog entry by entry, nested inline catalogs included', () => {
    const summary = summarizeDocument(check(FINAL_CATALOG));
    expect(summary).toMatchObject({ kind: 'ai-catalog', form: 'final', identifier: 'did:web:orbit.example', name: 'Orbit Labs', protocols: ['a2a', 'mcp'] });
    expect(summary?.entries).toEqual([
      expect.objectContaining({ identifier: 'urn:air:orbit.example:agent:weather', version: '2.1.0', name: 'weather', protocols: ['a2a'], url: 'https://orbit.example/.well-known/agent-card.json' }),
      expect.objectContaining({
        identifier: 'urn:air:orbit.example:bundle:weather',
        protocols: ['mcp'],
        entries: [expect.objectContaining({ identifier: 'urn:air:orbit.example:mcp:weather', name: 'weather', protocols: ['mcp'] })],
      }),
    ]);
  });

  it('summarises seed catalog entries with their card URLs', () => {
    expect(summarizeCatalogEntries(SEED_CATALOG)).toEqual([
      {
        identifier: 'did:web:orbit.example',
        type: undefined,
        updatedAt: '2026-02-10T08:30:00Z',
        name: 'Orbit Weather',
        description: 'Forecasts for logistics.',
        tags: ['weather'],
        protocols: [],
        url: 'https://orbit.example/.well-known/ai-card.json',
      },
    ]);
    expect(summarizeDocument(check(SEED_CATALOG))).toMatchObject({ form: 'seed', identifier: 'did:web:orbit.example', name: 'Orbit Labs' });
  });

  it('summarises nothing for an invalid document', () => {
    expect(summarizeDocument(check({ ...AI_CARD, services: {} }))).toBeUndefined();
    expect(summarizeCatalogEntries('not a catalog')).toEqual([]);
  });
});
