import { negotiateWireVersion, versionsUpTo } from './wire-version';

describe('version negotiation (§2)', () => {
  it('picks the newest version both sides support', () => {
    expect(negotiateWireVersion(['1.1', '1.2'])).toBe('1.2');
    expect(negotiateWireVersion(['1.0', '1.1'], ['1.1', '1.0'])).toBe('1.1');
    expect(negotiateWireVersion(['1.2', '1.1'], ['1.1'])).toBe('1.1');
  });

  it('ignores entries it does not know and fails closed without overlap', () => {
    expect(negotiateWireVersion(['9.9', '1.0'])).toBe('1.0');
    expect(negotiateWireVersion(['9.9'])).toBeNull();
    expect(negotiateWireVersion(['1.0'], ['1.2', '1.1'])).toBeNull();
    expect(negotiateWireVersion([])).toBeNull();
  });

  it('lists the versions a peer can fall back to', () => {
    expect(versionsUpTo('1.1')).toEqual(['1.0', '1.1']);
  });
});
