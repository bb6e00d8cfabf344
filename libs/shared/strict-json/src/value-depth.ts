/**
 * The nesting depth of a value already in memory (parsed by something other than this library's reader,
 * such as a YAML parser), measured without recursion, so any depth, and any cycle, is safe to ask about.
 */

/** True if arrays and objects in `value` nest deeper than `maxDepth` (a top-level container is depth 1). */
export function exceedsJsonDepth(value: unknown, maxDepth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  // Each entry is a container and its depth; the walk stops at the first container past the bound, so a
  // cyclic value ends there too.
  const containers: object[] = [value];
  const depths: number[] = [1];
  while (containers.length > 0) {
    const container = containers.pop() as object;
    const depth = depths.pop() as number;
    if (depth > maxDepth) return true;
    const children: unknown[] = Array.isArray(container) ? container : Object.values(container);
    for (const child of children) {
      if (child !== null && typeof child === 'object') {
        containers.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
