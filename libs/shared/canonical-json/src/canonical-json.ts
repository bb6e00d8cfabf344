/**
 * Canonical JSON as RFC 8785 (JCS) defines it: object members sorted by the UTF-16 code units of their
 * names, array order kept, no whitespace, numbers written as ECMAScript writes them
 * (`Number.prototype.toString`: `1e+21`, `5e-324`, `-0` as `0`), strings escaped as `JSON.stringify`
 * escapes them. Equal JSON values get equal text whatever the key order they were written in, which is
 * what idempotency keys (relay BEHAVIOUR.md §5), signatures and digests (Shield §8.1) rely on.
 *
 * Numbers that JSON cannot hold (NaN, ±Infinity) are refused: `JSON.stringify` would write `null` and
 * two different values would share one canonical form. Members whose value is `undefined` are left out,
 * as `JSON.stringify` does; `undefined`, functions and symbols anywhere else have no JSON form and are
 * refused. Strings are written by `JSON.stringify` (lone surrogates as `\udxxx` escapes); RFC 8785
 * expects I-JSON input, so callers that sign or hash should refuse lone surrogates before.
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
    // The default sort compares UTF-16 code units, which is the order RFC 8785 §3.2.3 specifies.
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
  // RFC 8785 §3.2.2.3: the ECMAScript number serialisation, which `JSON.stringify` applies to finite
  // numbers; a non-finite number has no JSON form (it would become `null`).
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('canonicalJson: number is not finite');
  const text = JSON.stringify(value);
  // undefined, functions and symbols have no JSON form; a value parsed from JSON never holds them.
  if (text === undefined) throw new TypeError('canonicalJson: value has no JSON representation');
  return text;
}
