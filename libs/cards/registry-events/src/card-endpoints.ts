/**
 * The endpoint URLs a published card names, read from its bytes: an A2A AgentCard's `url` and its
 * `additionalInterfaces[].url`, an MCP `server.json`'s `remotes[].url`, an AI Card v1's services'
 * `protocolSpecific` `url`/`endpoint` (and `transport.endpoint`). Only `https:` URLs, each at most
 * `MAX_ENDPOINT_LENGTH`, at most `MAX_CARD_ENDPOINTS` per card: what a consumer keeps is bounded whatever a
 * document holds. Bytes that are not a JSON object give none.
 */
export const MAX_CARD_ENDPOINTS = 8;
export const MAX_ENDPOINT_LENGTH = 512;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const objects = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);

function decodeJson(base64: string): unknown {
  try {
    const binary = atob(base64);
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return null;
  }
}

function candidates(document: Json): unknown[] {
  const found: unknown[] = [document['url'], ...objects(document['additionalInterfaces']).map((entry) => entry['url']), ...objects(document['remotes']).map((entry) => entry['url'])];
  const services = document['services'];
  if (isObject(services)) {
    for (const service of Object.values(services)) {
      const specific = isObject(service) ? service['protocolSpecific'] : undefined;
      if (!isObject(specific)) continue;
      const transport = specific['transport'];
      found.push(specific['url'], specific['endpoint'], isObject(transport) ? transport['endpoint'] : undefined);
    }
  }
  return found;
}

/** The card's endpoint URLs, from its raw bytes in base64 (as `CardRevisionPublished` carries them). */
export function cardEndpoints(contentBase64: string): string[] {
  const document = decodeJson(contentBase64);
  if (!isObject(document)) return [];
  const endpoints = new Set<string>();
  for (const value of candidates(document)) {
    if (typeof value === 'string' && value.startsWith('https://') && value.length <= MAX_ENDPOINT_LENGTH) endpoints.add(value);
    if (endpoints.size === MAX_CARD_ENDPOINTS) break;
  }
  return [...endpoints];
}
