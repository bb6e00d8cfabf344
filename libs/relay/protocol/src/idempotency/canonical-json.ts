/**
 * Canonical JSON (BEHAVIOUR.md §5): object keys sorted recursively by UTF-16 code unit, array order
 * kept, no whitespace. Two requests with the same identity have the same canonical text whatever the
 * key order they were written in.
 *
 * Written with an explicit stack rather than recursion: the values come from peers, and a call per
 * nesting level would let a deep enough value overflow the stack. Containers still open are tracked,
 * so a cyclic value is a `TypeError` (as with `JSON.stringify`) instead of a loop that never ends.
 */
interface OpenContainer {
  readonly items: unknown[] | undefined;
  readonly record: Record<string, unknown> | undefined;
  readonly keys: string[] | undefined;
  next: number;
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return scalarJson(value);
  const open = new Set<object>();
  const stack: OpenContainer[] = [];
  let out = '';
  const enter = (container: object) => {
    if (open.has(container)) throw new TypeError('canonicalJson: value is cyclic');
    open.add(container);
    if (Array.isArray(container)) {
      out += '[';
      stack.push({ items: container as unknown[], record: undefined, keys: undefined, next: 0 });
      return;
    }
    const record = container as Record<string, unknown>;
    // Default sort compares UTF-16 code units, which is what §5 specifies.
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    out += '{';
    stack.push({ items: undefined, record, keys, next: 0 });
  };
  const write = (child: unknown) => {
    if (child === null || typeof child !== 'object') out += scalarJson(child);
    else enter(child);
  };
  enter(value);
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as OpenContainer;
    const index = top.next;
    top.next += 1;
    if (top.items) {
      if (index < top.items.length) {
        if (index > 0) out += ',';
        write(top.items[index]);
        continue;
      }
      out += ']';
      open.delete(top.items);
    } else if (top.keys && top.record) {
      if (index < top.keys.length) {
        if (index > 0) out += ',';
        const key = top.keys[index] as string;
        out += `${JSON.stringify(key)}:`;
        write(top.record[key]);
        continue;
      }
      out += '}';
      open.delete(top.record);
    }
    stack.pop();
  }
  return out;
}

function scalarJson(value: unknown): string {
  const text = JSON.stringify(value);
  // undefined, functions and symbols have no JSON form; a frame parsed from JSON never holds them.
  if (text === undefined) throw new TypeError('canonicalJson: value has no JSON representation');
  return text;
}
