/**
 * A2A AgentCard (CARDS.md §4.1), written from the v0.3.0 JSON schema's AgentCard rule and the v1.0
 * replacements; the version is detected by shape: `supportedInterfaces` means v1.0, otherwise v0.3.
 * Unknown members are allowed (neither version closes the card). Signatures are checked for shape only;
 * verifying them belongs to the signatures library.
 */
import { childPointer } from './document.issue';
import { checkV03SecurityScheme } from './a2a-security.rule';
import { FieldReader, type JsonObject } from './document-fields.reader';

export type A2aCardVersion = '0.3' | '1.0';

const V03_TRANSPORTS = ['JSONRPC', 'GRPC', 'HTTP+JSON'];
const V10_SCHEME_WRAPPERS = [
  'apiKeySecurityScheme', 'httpAuthSecurityScheme', 'oauth2SecurityScheme', 'openIdConnectSecurityScheme', 'mtlsSecurityScheme',
];
/** v0.3 members that v1.0 replaced; carried in a v1.0 card they are unsigned by v1.0 canonicalisers (§3.6). */
const V03_ONLY_MEMBERS = ['url', 'preferredTransport', 'additionalInterfaces', 'protocolVersion', 'security', 'supportsAuthenticatedExtendedCard'];

export function a2aCardVersion(card: JsonObject): A2aCardVersion {
  return card['supportedInterfaces'] !== undefined ? '1.0' : '0.3';
}

export function validateA2aCard(card: JsonObject, fields: FieldReader): A2aCardVersion {
  const version = a2aCardVersion(card);
  fields.string(card, 'name', '', true, true);
  fields.string(card, 'description', '', true);
  fields.string(card, 'version', '', true, true);
  fields.stringArray(card, 'defaultInputModes', '', true);
  fields.stringArray(card, 'defaultOutputModes', '', true);
  fields.uri(card, 'iconUrl', '', false);
  fields.uri(card, 'documentationUrl', '', false);
  const provider = fields.member(card, 'provider', '', false);
  if (provider) {
    fields.string(provider, 'organization', '/provider', true);
    fields.uri(provider, 'url', '/provider', true);
  }
  checkCapabilities(card, fields, version);
  checkSkills(card, fields);
  checkSignatures(card, fields);
  if (version === '0.3') checkV03(card, fields);
  else checkV10(card, fields);
  return version;
}

function checkV03(card: JsonObject, fields: FieldReader): void {
  fields.uri(card, 'url', '', true);
  fields.string(card, 'protocolVersion', '', true, true);
  fields.oneOf(card, 'preferredTransport', '', false, V03_TRANSPORTS);
  fields.boolean(card, 'supportsAuthenticatedExtendedCard', '', false);
  fields.array(card, 'additionalInterfaces', '', false)?.forEach((item, index) => {
    const at = `/additionalInterfaces/${index}`;
    const entry = fields.object(item, at, 'An interface');
    if (!entry) return;
    fields.uri(entry, 'url', at, true);
    fields.string(entry, 'transport', at, true, true);
  });
  const schemes = fields.member(card, 'securitySchemes', '', false);
  for (const [name, scheme] of Object.entries(schemes ?? {})) {
    const at = childPointer('/securitySchemes', name);
    const object = fields.object(scheme, at, `Security scheme "${name}"`);
    if (object) checkV03SecurityScheme(object, at, fields);
  }
  checkRequirementList(card, 'security', fields);
}

function checkV10(card: JsonObject, fields: FieldReader): void {
  const interfaces = fields.array(card, 'supportedInterfaces', '', true);
  if (interfaces?.length === 0) fields.issues.error('/supportedInterfaces', 'FIELD_EMPTY', '"supportedInterfaces" must list at least one interface (the first is preferred).');
  interfaces?.forEach((item, index) => {
    const at = `/supportedInterfaces/${index}`;
    const entry = fields.object(item, at, 'An interface');
    if (!entry) return;
    fields.uri(entry, 'url', at, true);
    fields.string(entry, 'protocolBinding', at, true, true);
    fields.string(entry, 'protocolVersion', at, false);
    fields.string(entry, 'tenant', at, false);
  });
  const schemes = fields.member(card, 'securitySchemes', '', false);
  for (const [name, scheme] of Object.entries(schemes ?? {})) {
    const at = childPointer('/securitySchemes', name);
    const object = fields.object(scheme, at, `Security scheme "${name}"`);
    const keys = object ? Object.keys(object) : [];
    if (object && (keys.length !== 1 || !V10_SCHEME_WRAPPERS.includes(keys[0] ?? ''))) {
      fields.issues.error(at, 'VALUE_NOT_ALLOWED', `A v1.0 security scheme holds exactly one of ${V10_SCHEME_WRAPPERS.join(', ')}.`);
    }
  }
  checkRequirementList(card, 'securityRequirements', fields);
  for (const key of V03_ONLY_MEMBERS) {
    if (card[key] !== undefined) {
      fields.issues.warn(childPointer('', key), 'FIELD_UNKNOWN', `"${key}" belongs to A2A v0.3; a v1.0 card (it has supportedInterfaces) does not use it and v1.0 signers leave it unsigned.`);
    }
  }
}

function checkCapabilities(card: JsonObject, fields: FieldReader, version: A2aCardVersion): void {
  const capabilities = fields.member(card, 'capabilities', '', true);
  if (!capabilities) return;
  for (const flag of ['streaming', 'pushNotifications', 'stateTransitionHistory', 'extendedAgentCard']) fields.boolean(capabilities, flag, '/capabilities', false);
  if (version === '1.0' && capabilities['stateTransitionHistory'] !== undefined) {
    fields.issues.warn('/capabilities/stateTransitionHistory', 'FIELD_UNKNOWN', '"stateTransitionHistory" exists only in A2A v0.3; v1.0 signers leave it unsigned.');
  }
  fields.array(capabilities, 'extensions', '/capabilities', false)?.forEach((item, index) => {
    const at = `/capabilities/extensions/${index}`;
    const extension = fields.object(item, at, 'An extension');
    if (!extension) return;
    fields.uri(extension, 'uri', at, true);
    fields.string(extension, 'description', at, false);
    fields.boolean(extension, 'required', at, false);
    fields.member(extension, 'params', at, false);
  });
}

function checkSkills(card: JsonObject, fields: FieldReader): void {
  fields.array(card, 'skills', '', true)?.forEach((item, index) => {
    const at = `/skills/${index}`;
    const skill = fields.object(item, at, 'A skill');
    if (!skill) return;
    fields.string(skill, 'id', at, true, true);
    fields.string(skill, 'name', at, true, true);
    fields.string(skill, 'description', at, true);
    fields.stringArray(skill, 'tags', at, true);
    fields.stringArray(skill, 'examples', at, false);
    fields.stringArray(skill, 'inputModes', at, false);
    fields.stringArray(skill, 'outputModes', at, false);
    fields.array(skill, 'security', at, false);
    fields.array(skill, 'securityRequirements', at, false);
  });
}

function checkRequirementList(card: JsonObject, key: string, fields: FieldReader): void {
  fields.array(card, key, '', false)?.forEach((item, index) => fields.object(item, `/${key}/${index}`, `Each item of "${key}"`));
}

function checkSignatures(card: JsonObject, fields: FieldReader): void {
  fields.array(card, 'signatures', '', false)?.forEach((item, index) => {
    const at = `/signatures/${index}`;
    const signature = fields.object(item, at, 'A signature');
    if (!signature) return;
    fields.string(signature, 'protected', at, true, true);
    fields.string(signature, 'signature', at, true, true);
    fields.member(signature, 'header', at, false);
  });
}
