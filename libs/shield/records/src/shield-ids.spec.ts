import { createRandomShieldId, isShieldId } from './shield-ids';

describe('Shield ids (§2)', () => {
  it('makes lowercase version 4 UUIDs that the §2 pattern accepts, all different', () => {
    const ids = Array.from({ length: 200 }, createRandomShieldId);
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(isShieldId(id)).toBe(true);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('accepts the nil and all-f UUIDs and refuses version 0 or 9, other variants and surrounding text', () => {
    expect(isShieldId('00000000-0000-0000-0000-000000000000')).toBe(true);
    expect(isShieldId('ffffffff-ffff-ffff-ffff-ffffffffffff')).toBe(true);
    expect(isShieldId('6f9619ff-8b86-0011-b42d-00c04fc964ff')).toBe(false);
    expect(isShieldId('6f9619ff-8b86-9011-b42d-00c04fc964ff')).toBe(false);
    expect(isShieldId('6f9619ff-8b86-4011-742d-00c04fc964ff')).toBe(false);
    expect(isShieldId('6f9619ff-8b86-4011-b42d-00c04fc964ff\n')).toBe(false);
    expect(isShieldId(42)).toBe(false);
  });
});
