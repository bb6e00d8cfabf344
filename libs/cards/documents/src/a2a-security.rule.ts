/**
 * A2A v0.3.0 security schemes (the schema's SecurityScheme union, CARDS.md §4.1): the members each scheme
 * type requires, and OAuth 2 flows with their URLs. v1.0 wraps the same schemes as oneofs; there only the
 * wrapper is checked, since the registry indexes the scheme kind and nothing inside it.
 */
import { childPointer } from './document.issue';
import { FieldReader, type JsonObject } from './document-fields.reader';

export const V03_SCHEME_TYPES = ['apiKey', 'http', 'oauth2', 'openIdConnect', 'mutualTLS'];

/** Flow name → its required URL members (every flow also requires `scopes`). */
const OAUTH_FLOWS: Readonly<Record<string, readonly string[]>> = {
  authorizationCode: ['authorizationUrl', 'tokenUrl'],
  clientCredentials: ['tokenUrl'],
  implicit: ['authorizationUrl'],
  password: ['tokenUrl'],
};

export function checkV03SecurityScheme(scheme: JsonObject, at: string, fields: FieldReader): void {
  const type = fields.oneOf(scheme, 'type', at, true, V03_SCHEME_TYPES);
  fields.string(scheme, 'description', at, false);
  if (type === 'apiKey') {
    fields.oneOf(scheme, 'in', at, true, ['query', 'header', 'cookie']);
    fields.string(scheme, 'name', at, true, true);
  } else if (type === 'http') {
    fields.string(scheme, 'scheme', at, true, true);
  } else if (type === 'openIdConnect') {
    fields.uri(scheme, 'openIdConnectUrl', at, true);
  } else if (type === 'oauth2') {
    fields.uri(scheme, 'oauth2MetadataUrl', at, false);
    const flows = fields.member(scheme, 'flows', at, true);
    if (flows) checkFlows(flows, childPointer(at, 'flows'), fields);
  }
}

function checkFlows(flows: JsonObject, at: string, fields: FieldReader): void {
  for (const [name, urls] of Object.entries(OAUTH_FLOWS)) {
    const flow = fields.member(flows, name, at, false);
    if (!flow) continue;
    const flowAt = childPointer(at, name);
    for (const url of urls) fields.uri(flow, url, flowAt, true);
    fields.uri(flow, 'refreshUrl', flowAt, false);
    fields.member(flow, 'scopes', flowAt, true);
  }
}
