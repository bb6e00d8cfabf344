/**
 * AI Card v1 (seed CDDL `definitions/ai-card-v1.cddl`, rule AICard) plus the rules CARDS.md §1.1 says the
 * CDDL cannot state and the choices of §1.2:
 * - maps are closed (except `metadata` and `protocolSpecific`): strict for "1.0", warnings for "1.x", x > 0;
 * - each `services` key equals its value's `type`, exactly; an empty `services` is refused;
 * - `identityType` matches the scheme of `id`; URIs are absolute; `updatedAt` ≥ `createdAt`;
 * - `logoUrl` is `data:image/*` or `https:`; attestations with no credential warn;
 * - `protocolSpecific` is checked against A2A / MCP shapes, as warnings only.
 */
import { childPointer, type IssueList } from './document.issue';
import { clip, FieldReader, isAbsoluteUri, type JsonObject } from './document-fields.reader';
import { checkProtocolSpecific } from './protocol-specific.rule';
import { readSpecVersion } from './spec-version.rule';

const CARD_MEMBERS = [
  '$schema', 'specVersion', 'id', 'identityType', 'name', 'description', 'logoUrl', 'tags', 'maturity',
  'publisher', 'trust', 'signature', 'services', 'createdAt', 'updatedAt', 'metadata',
] as const;
const PUBLISHER_MEMBERS = ['id', 'identityType', 'name', 'attestation'] as const;
const TRUST_MEMBERS = ['attestations', 'privacyPolicyUrl', 'termsOfServiceUrl'] as const;
const ATTESTATION_MEMBERS = ['type', 'credentialUrl', 'credentialValue'] as const;
const SERVICE_MEMBERS = ['type', 'name', 'protocolSpecific'] as const;

export const MATURITY_LEVELS = ['preview', 'stable', 'deprecated'] as const;
const IDENTITY_TYPES = ['did', 'spiffe', 'url'] as const;
const PUBLISHER_IDENTITY_TYPES = ['did', 'dns'] as const;

const DOMAIN_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/i;

export function validateAiCard(card: JsonObject, issues: IssueList): void {
  const fields = new FieldReader(issues);
  const version = readSpecVersion(card, '', issues, 'AI Card');
  // Unknown members are errors for 1.0 and kept with a warning for a later 1.x (CARDS.md §1.1, our choice).
  const lenient = version !== undefined && version.minor > 0;
  fields.closed(card, '', CARD_MEMBERS, lenient, 'an AI Card v1');

  fields.uri(card, '$schema', '', true);
  const id = fields.uri(card, 'id', '', true);
  const identityType = fields.oneOf(card, 'identityType', '', false, IDENTITY_TYPES);
  if (id !== undefined && identityType !== undefined && !identityMatches(identityType, id)) {
    issues.error('/identityType', 'IDENTITY_TYPE_MISMATCH', `"identityType" is "${identityType}" but "id" (${clip(id)}) does not use that scheme.`);
  }
  fields.string(card, 'name', '', true);
  fields.string(card, 'description', '', true);
  checkLogoUrl(card, fields);
  fields.stringArray(card, 'tags', '', false);
  fields.oneOf(card, 'maturity', '', false, MATURITY_LEVELS);
  fields.string(card, 'signature', '', false);
  fields.member(card, 'metadata', '', false);

  const publisher = fields.member(card, 'publisher', '', true);
  if (publisher) checkPublisher(publisher, fields, lenient);
  const trust = fields.member(card, 'trust', '', false);
  if (trust) checkTrust(trust, fields, lenient);
  checkServices(card, fields, lenient);

  const createdAt = fields.timestamp(card, 'createdAt', '', true);
  const updatedAt = fields.timestamp(card, 'updatedAt', '', true);
  if (createdAt !== undefined && updatedAt !== undefined && updatedAt < createdAt) {
    issues.error('/updatedAt', 'TIMESTAMP_ORDER', '"updatedAt" is earlier than "createdAt".');
  }
}

function identityMatches(identityType: string, id: string): boolean {
  const scheme = id.slice(0, id.indexOf(':')).toLowerCase();
  if (identityType === 'did') return scheme === 'did';
  if (identityType === 'spiffe') return scheme === 'spiffe';
  return scheme === 'https' || scheme === 'http';
}

function checkLogoUrl(card: JsonObject, fields: FieldReader): void {
  const logoUrl = fields.string(card, 'logoUrl', '', false);
  if (logoUrl === undefined) return;
  const lower = logoUrl.toLowerCase();
  if (lower.startsWith('data:image/')) {
    // SVG is active content (CARDS.md §1.1): accepted, but a consumer must not render it inline unsandboxed.
    if (lower.startsWith('data:image/svg')) {
      fields.issues.warn('/logoUrl', 'LOGO_URL_SVG', '"logoUrl" is an SVG image, which is active content; prefer PNG or WebP.');
    }
    return;
  }
  if (lower.startsWith('https:') && isAbsoluteUri(logoUrl)) return;
  fields.issues.error('/logoUrl', 'LOGO_URL_SCHEME', '"logoUrl" must be a data:image/* URL (recommended) or an https: URL.');
}

function checkPublisher(publisher: JsonObject, fields: FieldReader, lenient: boolean): void {
  fields.closed(publisher, '/publisher', PUBLISHER_MEMBERS, lenient, 'publisher');
  fields.string(publisher, 'name', '/publisher', true);
  const identityType = fields.oneOf(publisher, 'identityType', '/publisher', false, PUBLISHER_IDENTITY_TYPES);
  if (identityType === 'dns') {
    const id = fields.string(publisher, 'id', '/publisher', true, true);
    if (id !== undefined && !DOMAIN_NAME.test(id)) {
      fields.issues.error('/publisher/id', 'IDENTITY_TYPE_MISMATCH', `"identityType" is "dns" but "id" (${clip(id)}) is not a domain name.`);
    }
  } else {
    const id = fields.uri(publisher, 'id', '/publisher', true);
    if (id !== undefined && identityType === 'did' && !id.startsWith('did:')) {
      fields.issues.error('/publisher/identityType', 'IDENTITY_TYPE_MISMATCH', `"identityType" is "did" but "id" (${clip(id)}) is not a DID.`);
    }
  }
  const attestation = fields.member(publisher, 'attestation', '/publisher', false);
  if (attestation) checkAttestation(attestation, '/publisher/attestation', fields, lenient);
}

function checkTrust(trust: JsonObject, fields: FieldReader, lenient: boolean): void {
  fields.closed(trust, '/trust', TRUST_MEMBERS, lenient, 'trust');
  fields.uri(trust, 'privacyPolicyUrl', '/trust', false);
  fields.uri(trust, 'termsOfServiceUrl', '/trust', false);
  const attestations = fields.array(trust, 'attestations', '/trust', false);
  attestations?.forEach((item, index) => {
    const at = `/trust/attestations/${index}`;
    const attestation = fields.object(item, at, 'An attestation');
    if (attestation) checkAttestation(attestation, at, fields, lenient);
  });
}

function checkAttestation(attestation: JsonObject, at: string, fields: FieldReader, lenient: boolean): void {
  fields.closed(attestation, at, ATTESTATION_MEMBERS, lenient, 'an attestation');
  fields.string(attestation, 'type', at, true, true);
  fields.uri(attestation, 'credentialUrl', at, false);
  fields.string(attestation, 'credentialValue', at, false);
  if (attestation['credentialUrl'] === undefined && attestation['credentialValue'] === undefined) {
    fields.issues.warn(at, 'ATTESTATION_NO_CREDENTIAL', 'This attestation carries neither "credentialUrl" nor "credentialValue", so nothing can be checked.');
  }
}

function checkServices(card: JsonObject, fields: FieldReader, lenient: boolean): void {
  const services = fields.member(card, 'services', '', true);
  if (!services) return;
  const keys = Object.keys(services);
  if (keys.length === 0) {
    fields.issues.error('/services', 'SERVICES_EMPTY', '"services" must list at least one service (an AI Card without a service cannot be published).');
    return;
  }
  for (const key of keys) {
    const at = childPointer('/services', key);
    const service = fields.object(services[key], at, `Service "${key}"`);
    if (!service) continue;
    fields.closed(service, at, SERVICE_MEMBERS, lenient, 'a service');
    const type = fields.string(service, 'type', at, true);
    // Compared exactly and case-sensitively: "A2A" → "a2a" is an error (CARDS.md §1.1).
    if (type !== undefined && type !== key) {
      fields.issues.error(childPointer(at, 'type'), 'SERVICE_KEY_MISMATCH', `The service key "${clip(key)}" must equal its "type" ("${clip(type)}") exactly.`);
    }
    fields.string(service, 'name', at, true);
    const protocolSpecific = fields.member(service, 'protocolSpecific', at, true);
    if (protocolSpecific && type !== undefined) checkProtocolSpecific(type, protocolSpecific, childPointer(at, 'protocolSpecific'), fields.issues);
  }
}
