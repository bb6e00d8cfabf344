/**
 * User-input forms (BEHAVIOUR.md §8): the rules the JSON Schema cannot state (uniqueness, non-blank
 * text, cross-field bounds), which the Companion enforces and browsers should, and the normalisation of
 * a submitted candidate against the form it answers.
 */
import type { InteractionCandidateParams, InteractionRequestFrame } from '../generated/wire-1.2.types';
import { issue, pointerJoin, type FrameIssue, type Verdict } from '../validation/frame-issue';

type UserInputRequest = Extract<InteractionRequestFrame, { method: 'userInput.request' }>;
export type UserInputForm = UserInputRequest['projection'];
export type FormControl = UserInputForm['controls'][number];
type UserInputCandidate = Extract<InteractionCandidateParams, { method: 'userInput.request' }>['candidate'];
export type UserInputSubmission = Extract<UserInputCandidate, { status: 'submitted' }>;
export type UserInputValue = UserInputSubmission['values'][number]['value'];

const TEXT_MAX = 10_000;
const isBlank = (text: string): boolean => text.trim().length === 0;

/** Checks a schema-valid form against the rules of §8 that its schema leaves out. */
export function checkUserInputForm(form: UserInputForm, basePath = '/projection'): FrameIssue[] {
  const issues: FrameIssue[] = [];
  const fail = (path: string, message: string) => issues.push(issue('FORM_RULE_VIOLATION', path, message));
  if (form.title !== undefined && isBlank(form.title)) fail(pointerJoin(basePath, 'title'), 'The form title must not be blank.');
  const ids = new Set<string>();
  form.controls.forEach((control, index) => {
    const at = pointerJoin(pointerJoin(basePath, 'controls'), index);
    if (isBlank(control.id)) fail(pointerJoin(at, 'id'), 'A control id must not be blank.');
    if (ids.has(control.id)) fail(pointerJoin(at, 'id'), `Control id \`${control.id}\` is used twice.`);
    ids.add(control.id);
    if (isBlank(control.label)) fail(pointerJoin(at, 'label'), 'A control label must not be blank.');
    switch (control.type) {
      case 'text':
      case 'multiline': {
        const min = Math.max(control.minLength ?? 0, control.required ? 1 : 0);
        const max = control.maxLength ?? TEXT_MAX;
        if (min > max) fail(at, `The effective minimum length ${min} exceeds the maximum ${max}.`);
        break;
      }
      case 'number': {
        const { min, max } = control;
        if (min !== undefined && max !== undefined && min > max) fail(at, `\`min\` ${min} exceeds \`max\` ${max}.`);
        if (control.integer && min !== undefined && max !== undefined && Math.ceil(min) > Math.floor(max)) {
          fail(at, `No integer lies between ${min} and ${max}.`);
        }
        break;
      }
      case 'choice': {
        const optionIds = new Set<string>();
        control.options.forEach((option, optionIndex) => {
          if (optionIds.has(option.id)) {
            fail(pointerJoin(pointerJoin(pointerJoin(at, 'options'), optionIndex), 'id'), `Option id \`${option.id}\` is used twice.`);
          }
          optionIds.add(option.id);
        });
        const effectiveMax = control.maxSelections ?? (control.multiple ? control.options.length : 1);
        if (effectiveMax > control.options.length) fail(at, `At most ${effectiveMax} selections, but only ${control.options.length} options.`);
        if (effectiveMax < (control.minSelections ?? 0)) fail(at, `\`minSelections\` ${control.minSelections ?? 0} exceeds the maximum ${effectiveMax}.`);
        break;
      }
      case 'boolean':
        break;
    }
  });
  return issues;
}

/**
 * Normalises a submitted candidate against the form (§8): ids known and unique, required controls
 * present, every value matching its control, output in form-control order. A cancelled candidate
 * passes through unchanged.
 */
export function normalizeUserInput(form: UserInputForm, candidate: UserInputCandidate): Verdict<UserInputCandidate> {
  if (candidate.status === 'cancelled') return { ok: true, value: candidate };
  const issues: FrameIssue[] = [];
  const byId = new Map<string, { value: UserInputValue; index: number }>();
  candidate.values.forEach((entry, index) => {
    const at = pointerJoin('/candidate/values', index);
    if (!form.controls.some((control) => control.id === entry.id)) {
      issues.push(issue('FIELD_VALUE', pointerJoin(at, 'id'), `The form has no control \`${entry.id}\`.`));
    } else if (byId.has(entry.id)) {
      issues.push(issue('FIELD_VALUE', pointerJoin(at, 'id'), `Control \`${entry.id}\` is answered twice.`));
    } else {
      byId.set(entry.id, { value: entry.value, index });
    }
  });
  const values: UserInputSubmission['values'] = [];
  for (const control of form.controls) {
    const answer = byId.get(control.id);
    if (!answer) {
      const mustAnswer = control.required || (control.type === 'choice' && (control.minSelections ?? 0) > 0);
      if (mustAnswer) issues.push(issue('FIELD_REQUIRED', '/candidate/values', `Control \`${control.id}\` must be answered.`));
      continue;
    }
    const problem = valueProblem(control, answer.value);
    if (problem) {
      issues.push(issue('FIELD_VALUE', pointerJoin(pointerJoin('/candidate/values', answer.index), 'value'), problem));
    } else {
      values.push({ id: control.id, value: answer.value });
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: { status: 'submitted', values } };
}

function valueProblem(control: FormControl, value: UserInputValue): string | undefined {
  switch (control.type) {
    case 'text':
    case 'multiline': {
      if (typeof value !== 'string') return 'Must be text.';
      const min = Math.max(control.minLength ?? 0, control.required ? 1 : 0);
      const max = control.maxLength ?? TEXT_MAX;
      if (value.length < min) return `Must be at least ${min} characters long.`;
      if (value.length > max) return `Must be at most ${max} characters long.`;
      return undefined;
    }
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'Must be a finite number.';
      if (control.integer && !Number.isInteger(value)) return 'Must be an integer.';
      if (control.min !== undefined && value < control.min) return `Must be at least ${control.min}.`;
      if (control.max !== undefined && value > control.max) return `Must be at most ${control.max}.`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'Must be true or false.';
    case 'choice': {
      const known = new Set(control.options.map((option) => option.id));
      if (!control.multiple) {
        return typeof value === 'string' && known.has(value) ? undefined : `Must be one of the option ids: ${[...known].join(', ')}.`;
      }
      if (!Array.isArray(value)) return 'Must be a list of option ids.';
      if (new Set(value).size !== value.length) return 'Option ids must be distinct.';
      const unknown = value.find((id) => !known.has(id));
      if (unknown !== undefined) return `\`${unknown}\` is not an option of this control.`;
      const min = Math.max(control.minSelections ?? 0, control.required ? 1 : 0);
      const max = control.maxSelections ?? control.options.length;
      if (value.length < min || value.length > max) return `Must select between ${min} and ${max} options.`;
      return undefined;
    }
  }
}
