/**
 * Configuration rules both adapters share: what counts as a configured key, and what a base URL may be.
 * A bad base URL is a startup error (the service fails fast); a missing key is not, since SHIELD.md §10 runs
 * without one and records the fallback's `errorCode`.
 */

/** The key, or undefined when absent or blank (a blank env variable means "not configured"). */
export function presentKey(apiKey: string | undefined): string | undefined {
  return apiKey !== undefined && apiKey.trim().length > 0 ? apiKey.trim() : undefined;
}

/** An http(s) URL without query, fragment or trailing slash; throws with a message that names the rule. */
export function normalizeBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new Error('The model base URL is not a URL: give e.g. https://api.anthropic.com.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('The model base URL must use http or https.');
  if (url.search !== '' || url.hash !== '') throw new Error('The model base URL must not have a query or fragment.');
  if (url.username !== '' || url.password !== '') throw new Error('The model base URL must not carry credentials: use the API key setting.');
  return url.href.replace(/\/+$/, '');
}
