import { namespaceOfIdentifier } from './card-identifier';

describe('namespaceOfIdentifier', () => {
  it.each([
    ['did:web:acme.example', 'acme.example'],
    ['did:web:Acme.Example:agents:finance', 'acme.example'],
    ['did:web:acme.example%3A8443', 'acme.example'],
    ['urn:air:acme.example:agent:finance', 'acme.example'],
    ['https://agents.acme.example/finance?x=1', 'agents.acme.example'],
    ['https://acme.example:8443/a', 'acme.example'],
    ['spiffe://acme.example/fin', 'acme.example'],
    ['io.github.octo/ledger', 'octo.github.io'],
    ['com.acme/ledger', 'acme.com'],
  ])('maps %s to %s', (identifier, namespace) => {
    expect(namespaceOfIdentifier(identifier)).toBe(namespace);
  });

  it.each([['http://acme.example/a'], ['https://user@acme.example/a'], ['did:key:z6Mk'], ['urn:air:localhost:agent'], ['ledger'], [''], [`https://${'a'.repeat(510)}.example`], ['https://127.0.0.1/a']])('names no namespace for %s', (identifier) => {
    expect(namespaceOfIdentifier(identifier)).toBeNull();
  });
});
