/**
 * Interaction frames (BEHAVIOUR.md §8, §9): a Runtime server request becomes an `interaction.request`
 * carrying only the projection, and its end becomes an `interaction.resolved`/`cancelled` carrying
 * only identity and method. Local-only kinds (authentication, file pickers) and non-`normal`
 * sensitivity are never projected. Every frame is validated (schema and form rules) before it is
 * returned; anything else fails closed.
 */
import type * as Wire12 from '../generated/wire-1.2.types';
import type { UserInputForm } from '../rules/interaction-form.rules';
import { issue, reject, type Verdict } from '../validation/frame-issue';
import { validateWireFrame } from '../validation/frame-validator';
import type { WireVersion } from '../wire-version';
import { isRecord, pick } from './allowlist';
import { projectApproval, type RuntimeApproval } from './runtime-event.projection';

export type InteractionMethod = 'approval.request' | 'userInput.request';
export type InteractionRequestFrame = Wire12.InteractionRequestFrame;
export type InteractionTerminalFrame = Wire12.InteractionResolvedFrame | Wire12.InteractionCancelledFrame;

export interface InteractionIdentity {
  workspaceId: string;
  relaySequence: number;
  interactionId: string;
  threadId: string;
  turnId: string;
}

export type RuntimeInteraction =
  | { method: 'approval.request'; approval: RuntimeApproval; sensitivity?: string }
  | { method: 'userInput.request'; form: unknown; sensitivity?: string }
  | { method: string; sensitivity?: string };

/** Builds the `interaction.request` for a Runtime server request, or refuses it. */
export function projectInteractionRequest(
  version: Exclude<WireVersion, '1.0'>,
  identity: InteractionIdentity & { expiresAt: string },
  runtime: RuntimeInteraction,
): Verdict<InteractionRequestFrame> {
  if (runtime.sensitivity !== undefined && runtime.sensitivity !== 'normal') {
    return reject(issue('FIELD_VALUE', '/sensitivity', 'Only `normal` interactions cross the relay.'));
  }
  let projection: Record<string, unknown>;
  if (runtime.method === 'approval.request' && 'approval' in runtime) {
    projection = { ...projectApproval(runtime.approval) };
  } else if (runtime.method === 'userInput.request' && 'form' in runtime) {
    const form = projectUserInputForm(runtime.form);
    if (!form) return reject(issue('FIELD_TYPE', '/projection', 'The user-input form is malformed.'));
    projection = form;
  } else {
    return reject(issue('FIELD_VALUE', '/method', `\`${runtime.method}\` is a local-only interaction and is never sent to a browser.`));
  }
  const frame = {
    type: 'interaction.request',
    ...pick(identity, ['workspaceId', 'relaySequence', 'interactionId', 'threadId', 'turnId', 'expiresAt']),
    sensitivity: 'normal',
    method: runtime.method,
    projection,
  };
  const verdict = validateWireFrame(version, frame, { interactionForms: true });
  return verdict as Verdict<InteractionRequestFrame>;
}

/** The terminal frame of an interaction: identity and method, nothing more (§8, §9). */
export function interactionTerminal(
  kind: 'resolved' | 'cancelled',
  identity: InteractionIdentity,
  method: InteractionMethod,
): InteractionTerminalFrame {
  return {
    type: kind === 'resolved' ? 'interaction.resolved' : 'interaction.cancelled',
    ...pick(identity, ['workspaceId', 'relaySequence', 'interactionId', 'threadId', 'turnId']),
    method,
  } as InteractionTerminalFrame;
}

const CONTROL_FIELDS: Record<string, readonly string[]> = {
  text: ['minLength', 'maxLength'],
  multiline: ['minLength', 'maxLength'],
  number: ['min', 'max', 'integer'],
  boolean: [],
  choice: ['multiple', 'options', 'minSelections', 'maxSelections'],
};

/**
 * The user-input projection: title, description and controls, each control reduced to the fields
 * its type defines. `undefined` when the form is not even shaped like one; the caller's schema and
 * rule checks decide the rest.
 */
export function projectUserInputForm(form: unknown): UserInputForm | undefined {
  if (!isRecord(form) || !Array.isArray(form['controls'])) return undefined;
  const controls: unknown[] = [];
  for (const control of form['controls']) {
    if (!isRecord(control) || typeof control['type'] !== 'string') return undefined;
    const extra = CONTROL_FIELDS[control['type']];
    if (!extra) return undefined;
    const projected = pick(control, ['type', 'id', 'label', 'description', 'required', ...extra]);
    if (Array.isArray(projected['options'])) {
      projected['options'] = projected['options'].map((option) => (isRecord(option) ? pick(option, ['id', 'label', 'description']) : option));
    }
    controls.push(projected);
  }
  return { ...pick(form, ['title', 'description']), controls } as UserInputForm;
}
