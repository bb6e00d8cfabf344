import { cardEndpoints, MAX_CARD_ENDPOINTS } from './card-endpoints';

const base64 = (document: unknown) => Buffer.from(typeof document === 'string' ? document : JSON.stringify(document)).toString('base64');

describe('cardEndpoints', () => {
  it('reads the endpoints of an A2A card, an MCP server and an AI Card v1', () => {
    expect(cardEndpoints(base64({ url: 'https://a.example/a2a', additionalInterfaces: [{ url: 'https://a.example/grpc' }] }))).toEqual(['https://a.example/a2a', 'https://a.example/grpc']);
    expect(cardEndpoints(base64({ name: 'com.acme/ledger', remotes: [{ type: 'streamable-http', url: 'https://mcp.acme.example/' }] }))).toEqual(['https://mcp.acme.example/']);
    expect(
      cardEndpoints(base64({ services: { a2a: { protocolSpecific: { url: 'https://acme.example/a2a' } }, mcp: { protocolSpecific: { transport: { endpoint: 'https://acme.example/mcp' } } } } })),
    ).toEqual(['https://acme.example/a2a', 'https://acme.example/mcp']);
  });

  it('keeps only https URLs, each once, at most eight', () => {
    const remotes = Array.from({ length: 20 }, (_, i) => ({ url: `https://m${i}.example/` }));
    expect(cardEndpoints(base64({ url: 'http://plain.example/', remotes: [{ url: 'https://m0.example/' }, ...remotes] }))).toHaveLength(MAX_CARD_ENDPOINTS);
    expect(cardEndpoints(base64({ url: 'http://plain.example/' }))).toEqual([]);
  });

  it('gives none for bytes that are not a JSON object', () => {
    expect(cardEndpoints(base64('not json'))).toEqual([]);
    expect(cardEndpoints(base64([1, 2]))).toEqual([]);
    expect(cardEndpoints('%%%')).toEqual([]);
  });
});
