/**
 * "Any JSON value", the type of `params`, `result`, tool input and other free payloads, checked by a
 * plain recursive function instead of the documents' six-member union. It accepts exactly what that
 * union accepts when evaluated by the compiled validators: strings, finite numbers, booleans, null,
 * arrays whose every index holds a JSON value, and objects whose every enumerable key (as `for…in`
 * visits them) holds one, nested at most `MAX_FRAME_DEPTH` deep. It allocates nothing, which matters
 * because every node of every payload passes through it.
 */

/**
 * How deep arrays and objects may nest in a frame, the frame object itself being level 1. Frames read
 * from text are held to it before anything walks them (`FRAME_TOO_DEEP`); values built in memory are
 * held to it here, so the recursion below stays a few hundred frames deep whatever a peer sends. The
 * protocol's own shapes nest about 8 deep; the rest is room for free payloads (tool input, results).
 */
export const MAX_FRAME_DEPTH = 128;

export function isJsonValue(value: unknown, depthLeft: number = MAX_FRAME_DEPTH): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (depthLeft <= 0) return false;
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index += 1) if (!isJsonValue(value[index], depthLeft - 1)) return false;
        return true;
      }
      const record = value as Record<string, unknown>;
      for (const key in record) if (!isJsonValue(record[key], depthLeft - 1)) return false;
      return true;
    }
    default:
      return false;
  }
}
