import { canonicalNamespace, namespaceOf } from './card-identifier';

describe('namespaceOf', () => {
  it.each([
    ['did:web:acme.example', 'acme.example'],
    ['did:web:Acme.Example:agents:finance', 'acme.example'],
    ['did:web:acme.example%3A8443', 'acme.example'],
    ['urn:air:acme.example:agent:finance', 'acme.example'],
    ['https://agents.acme.example/finance?x=1', 'agents.acme.example'],
    ['spiffe://acme.example/fin', 'acme.example'],
    ['io.github.octo/ledger', 'octo.github.io'],
  ])('maps %s to %s', (identifier, namespace) => {
    expect(namespaceOf(identifier)).toBe(namespace);
  });

  it.each([['http://acme.example/a'], ['https://user@acme.example/a'], ['did:key:z6Mk'], ['ledger'], [''], [`https://acme.example/${'a'.repeat(510)}`]])('names no namespace for %s', (identifier) => {
    expect(namespaceOf(identifier)).toBeNull();
  });

  it('canonicalises a namespace an operator names and refuses what is not a domain', () => {
    expect(canonicalNamespace('Acme.Example')).toBe('acme.example');
    expect(canonicalNamespace('Not_A_Domain')).toBeNull();
    expect(canonicalNamespace('acme.example.')).toBeNull();
  });
});
