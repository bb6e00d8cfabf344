/**
 * The bytes an A2A AgentCard signature covers (CARDS.md §3.6, A2A v0.3 model): the card minus `signatures`,
 * with protobuf presence rules applied, then JCS. REQUIRED fields are always kept; fields with explicit
 * presence (`optional` in the proto) are kept whenever the card sets them, even to a default; every other
 * modelled field is dropped when it holds its default (`""`, `false`, `0`, `[]`, an empty map, `null`).
 * Members outside the model, and free-form values (extension params), are kept exactly as given: a verifier
 * must check the card as fetched, and dropping them would leave them unsigned.
 */
import { canonicalJson } from '@trustmesh/shared-canonical-json';

import { isJsonObject, type JsonObject } from './payload.canonical';

interface MessageModel {
  required: readonly string[];
  /** Fields with explicit presence: kept when set, whatever their value. */
  explicit?: readonly string[];
  /** Fields holding messages (or repeated messages) of a known model. */
  messages?: Readonly<Record<string, MessageModel>>;
  /** Fields whose content is not modelled here (maps of schemes, Struct params): kept verbatim when not default. */
  opaque?: readonly string[];
  /** Scalar and repeated-scalar fields of the model (default-dropped unless required or explicit). */
  scalars?: readonly string[];
}

const AGENT_EXTENSION: MessageModel = { required: ['uri'], scalars: ['description', 'required'], opaque: ['params'] };
const AGENT_CAPABILITIES: MessageModel = {
  required: [],
  explicit: ['streaming', 'pushNotifications', 'stateTransitionHistory'],
  messages: { extensions: AGENT_EXTENSION },
};
const AGENT_SKILL: MessageModel = { required: ['id', 'name', 'description', 'tags'], scalars: ['examples', 'inputModes', 'outputModes'], opaque: ['security'] };
const AGENT_PROVIDER: MessageModel = { required: ['organization', 'url'] };
const AGENT_INTERFACE: MessageModel = { required: ['url', 'transport'] };
const AGENT_CARD: MessageModel = {
  required: ['name', 'description', 'url', 'version', 'protocolVersion', 'capabilities', 'defaultInputModes', 'defaultOutputModes', 'skills'],
  messages: { capabilities: AGENT_CAPABILITIES, skills: AGENT_SKILL, provider: AGENT_PROVIDER, additionalInterfaces: AGENT_INTERFACE },
  scalars: ['preferredTransport', 'iconUrl', 'documentationUrl', 'supportsAuthenticatedExtendedCard'],
  opaque: ['securitySchemes', 'security'],
};

function isDefault(value: unknown): boolean {
  if (value === null || value === '' || value === false || value === 0) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isJsonObject(value) && Object.keys(value).length === 0;
}

function applyPresence(object: JsonObject, model: MessageModel): JsonObject {
  const out: JsonObject = {};
  const modelled = new Set([...model.required, ...(model.explicit ?? []), ...Object.keys(model.messages ?? {}), ...(model.opaque ?? []), ...(model.scalars ?? [])]);
  for (const [name, value] of Object.entries(object)) {
    const child = model.messages?.[name];
    const shaped = child === undefined ? value : Array.isArray(value) ? value.map((item) => (isJsonObject(item) ? applyPresence(item, child) : item)) : isJsonObject(value) ? applyPresence(value, child) : value;
    if (model.required.includes(name) || model.explicit?.includes(name) || !modelled.has(name)) {
      out[name] = shaped;
      continue;
    }
    // A singular message field has presence: an empty object set on purpose stays.
    const isSingularMessage = child !== undefined && isJsonObject(value);
    if (isSingularMessage || !isDefault(value)) out[name] = shaped;
  }
  return out;
}

/** The canonical payload text of an A2A card (v0.3 presence rules), or `undefined` if it has none. */
export function a2aSigningPayload(card: JsonObject): string | undefined {
  const { signatures: _signatures, ...unsigned } = card;
  try {
    return canonicalJson(applyPresence(unsigned, AGENT_CARD));
  } catch {
    return undefined;
  }
}
