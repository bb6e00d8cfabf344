import { userInputForm } from '../../test/support/sample-frames';
import { checkUserInputForm, normalizeUserInput, type UserInputForm } from './interaction-form.rules';

const form = () => userInputForm() as UserInputForm;

describe('user-input form rules (§8)', () => {
  it('accepts a well-formed form', () => {
    expect(checkUserInputForm(form())).toEqual([]);
  });

  it.each<[string, (f: any) => void, string]>([
    ['duplicate control ids', (f) => (f.controls[1].id = 'region'), '/projection/controls/1/id'],
    ['a blank label', (f) => (f.controls[0].label = '   '), '/projection/controls/0/label'],
    ['a blank title', (f) => (f.title = ' '), '/projection/title'],
    ['a required text whose max is 0', (f) => Object.assign(f.controls[1], { required: true, maxLength: 0 }), '/projection/controls/1'],
    ['min above max', (f) => Object.assign(f.controls[2], { min: 6, max: 5, integer: false }), '/projection/controls/2'],
    ['integer bounds with no integer inside', (f) => Object.assign(f.controls[2], { min: 1.2, max: 1.8 }), '/projection/controls/2'],
    ['more selections than options', (f) => (f.controls[4].maxSelections = 4), '/projection/controls/4'],
    ['minSelections above the maximum', (f) => (f.controls[4].minSelections = 3), '/projection/controls/4'],
    ['duplicate option ids', (f) => (f.controls[0].options[1].id = 'eu'), '/projection/controls/0/options/1/id'],
  ])('refuses %s', (_name, breakIt, path) => {
    const broken = form();
    breakIt(broken);
    expect(checkUserInputForm(broken)).toEqual([expect.objectContaining({ code: 'FORM_RULE_VIOLATION', path })]);
  });
});

describe('normalising a submitted candidate against its form (§8)', () => {
  it('returns the values in form-control order', () => {
    const verdict = normalizeUserInput(form(), {
      status: 'submitted',
      values: [
        { id: 'replicas', value: 3 },
        { id: 'zones', value: ['c', 'a'] },
        { id: 'region', value: 'eu' },
      ],
    });
    expect(verdict).toEqual({
      ok: true,
      value: { status: 'submitted', values: [{ id: 'region', value: 'eu' }, { id: 'replicas', value: 3 }, { id: 'zones', value: ['c', 'a'] }] },
    });
  });

  it.each<[string, Array<{ id: string; value: any }>, string]>([
    ['an unknown option', [{ id: 'region', value: 'north' }, { id: 'replicas', value: 1 }], '/candidate/values/0/value'],
    ['an unknown control', [{ id: 'region', value: 'eu' }, { id: 'replicas', value: 1 }, { id: 'color', value: 'red' }], '/candidate/values/2/id'],
    ['a control answered twice', [{ id: 'region', value: 'eu' }, { id: 'region', value: 'us' }, { id: 'replicas', value: 1 }], '/candidate/values/1/id'],
    ['a missing required control', [{ id: 'region', value: 'eu' }], '/candidate/values'],
    ['a fractional integer', [{ id: 'region', value: 'eu' }, { id: 'replicas', value: 1.5 }], '/candidate/values/1/value'],
    ['a number out of range', [{ id: 'region', value: 'eu' }, { id: 'replicas', value: 9 }], '/candidate/values/1/value'],
    ['text over its maximum', [{ id: 'region', value: 'eu' }, { id: 'replicas', value: 1 }, { id: 'note', value: 'x'.repeat(21) }], '/candidate/values/2/value'],
    ['too many selections', [{ id: 'region', value: 'eu' }, { id: 'replicas', value: 1 }, { id: 'zones', value: ['a', 'b', 'c'] }], '/candidate/values/2/value'],
    ['repeated selections', [{ id: 'region', value: 'eu' }, { id: 'replicas', value: 1 }, { id: 'zones', value: ['a', 'a'] }], '/candidate/values/2/value'],
    ['a boolean given as text', [{ id: 'region', value: 'eu' }, { id: 'replicas', value: 1 }, { id: 'dryRun', value: 'yes' }], '/candidate/values/2/value'],
  ])('refuses %s', (_name, values, path) => {
    const verdict = normalizeUserInput(form(), { status: 'submitted', values });
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.issues.map((issue) => issue.path)).toContain(path);
  });

  it('passes a cancelled candidate through unchanged', () => {
    const cancelled = { status: 'cancelled' as const, reason: 'not now' };
    expect(normalizeUserInput(form(), cancelled)).toEqual({ ok: true, value: cancelled });
  });
});
