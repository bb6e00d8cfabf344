/**
 * Where sign-in sends the person back to: the `next` path of this page they came from, never another origin
 * (`//host`, `/\\host` and absolute URLs are refused) and never the sign-in page itself.
 */
export function safeReturnPath(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\') || next.startsWith('/sign-in')) return '/workspaces';
  return next;
}
