/**
 * "Any JSON value", the type of `params`, `result`, tool input and other free payloads, checked by a
 * plain recursive function instead of the documents' six-member union. It accepts exactly what that
 * union accepts when evaluated by the compiled validators: strings, finite numbers, booleans, null,
 * arrays whose every index holds a JSON value, and objects whose every enumerable key (as `for…in`
 * visits them) holds one. It allocates nothing, which matters because every node of every payload
 * passes through it.
 */
export function isJsonValue(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index += 1) if (!isJsonValue(value[index])) return false;
        return true;
      }
      const record = value as Record<string, unknown>;
      for (const key in record) if (!isJsonValue(record[key])) return false;
      return true;
    }
    default:
      return false;
  }
}
