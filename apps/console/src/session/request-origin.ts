/**
 * The Origin rule of API.md: a state-changing request (`POST`, `PUT`, `PATCH`, `DELETE`, sign-in included)
 * whose `Origin` header names another origin than the console's is refused. A request with no `Origin` at
 * all (the CLI, curl) passes this rule; browsers send one on every cross-origin and every same-origin
 * non-GET fetch, and the SameSite=Strict cookie and the CSRF token cover the rest.
 */
export const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function originAllowed(method: string, originHeader: string | undefined, consoleOrigin: string): boolean {
  if (!STATE_CHANGING.has(method)) return true;
  if (originHeader === undefined) return true;
  return originHeader === consoleOrigin;
}
