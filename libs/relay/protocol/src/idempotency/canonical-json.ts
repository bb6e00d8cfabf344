/**
 * Canonical JSON (BEHAVIOUR.md §5): object keys sorted recursively by UTF-16 code unit, array order
 * kept, no whitespace. Two requests with the same identity have the same canonical text whatever the
 * key order they were written in.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    // undefined, functions and symbols have no JSON form; a frame parsed from JSON never holds them.
    if (text === undefined) throw new TypeError('canonicalJson: value has no JSON representation');
    return text;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  // Default sort compares UTF-16 code units, which is what §5 specifies.
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}
