import { registryReferenceKeys } from './registry-reference';

describe('registryReferenceKeys', () => {
  it('keeps an identifier exact and names its namespace in canonical form', () => {
    expect(registryReferenceKeys('https://Acme.example/agents/Billing')).toEqual({ exact: 'https://Acme.example/agents/Billing', namespace: 'acme.example' });
    expect(registryReferenceKeys('urn:air:acme.example:agent:finance')).toEqual({ exact: 'urn:air:acme.example:agent:finance', namespace: 'acme.example' });
    expect(registryReferenceKeys('did:web:acme.example')?.namespace).toBe('acme.example');
  });

  it('reads a bare domain as a namespace, Unicode in its A-label form', () => {
    expect(registryReferenceKeys('  ACME.example ')).toEqual({ exact: 'ACME.example', namespace: 'acme.example' });
    expect(registryReferenceKeys('münchen.example')?.namespace).toBe('xn--mnchen-3ya.example');
  });

  it('names no namespace for a reference that is not a domain or an identifier, and refuses empty or oversized ones', () => {
    expect(registryReferenceKeys('northwind-billing')).toEqual({ exact: 'northwind-billing', namespace: null });
    expect(registryReferenceKeys('   ')).toBeNull();
    expect(registryReferenceKeys(`https://acme.example/${'a'.repeat(600)}`)).toBeNull();
  });
});
