import { caseInputJson, KNOWN_FACT_ID } from '../../test/shield-record.examples';
import { validateCaseInput, validateCloseInput, validateConsultInput, validateGuidanceInput } from './shield-inputs.validator';
import { SHIELD_ISSUE_CODES, type ShieldIssue, type ShieldResult } from './shield-issue';

function issuesOf<T>(result: ShieldResult<T>): Array<Pick<ShieldIssue, 'code' | 'path'>> {
  if (result.ok) throw new Error('expected a refusal');
  return result.issues.map(({ code, path }) => ({ code, path }));
}

function valueOf<T>(result: ShieldResult<T>): T {
  if (!result.ok) throw new Error(`expected success: ${JSON.stringify(result.issues)}`);
  return result.value;
}

const fact = { statement: 'Order 42 was paid', source: 'system', status: 'verified' };

describe('case input (§3)', () => {
  it('trims strings, fills defaults, keeps given ids and leaves absent optionals out', () => {
    const value = valueOf(validateCaseInput(caseInputJson));
    expect(value.title).toBe('Northwind invoice 2231');
    expect(value.facts[0]).toEqual({ factId: KNOWN_FACT_ID, statement: 'Invoice 2231 is for EUR 18,400', source: 'system', status: 'verified', evidenceReferences: [] });
    expect(value.facts[1]).not.toHaveProperty('factId');
    expect(value.policies[0]).not.toHaveProperty('sourceReference');
    const minimal = valueOf(validateCaseInput({ agentId: 'a', title: 't', goal: 'g', counterparty: { type: 'unknown' } }));
    expect(minimal).toEqual({ agentId: 'a', title: 't', goal: 'g', brief: '', counterparty: { type: 'unknown' }, facts: [], evidence: [], policies: [] });
  });

  it('keeps agentId untrimmed (at least one character) while other strings are trimmed first', () => {
    expect(valueOf(validateCaseInput({ ...caseInputJson, agentId: ' a ' })).agentId).toBe(' a ');
    expect(issuesOf(validateCaseInput({ ...caseInputJson, agentId: '' }))).toEqual([{ code: 'SHIELD_FIELD_TOO_SHORT', path: '/agentId' }]);
    expect(issuesOf(validateCaseInput({ ...caseInputJson, title: '   ' }))).toEqual([{ code: 'SHIELD_FIELD_TOO_SHORT', path: '/title' }]);
  });

  it('checks bounds after trimming, counting code points', () => {
    expect(valueOf(validateCaseInput({ ...caseInputJson, title: `  ${'x'.repeat(160)}  ` })).title).toHaveLength(160);
    expect(issuesOf(validateCaseInput({ ...caseInputJson, title: 'x'.repeat(161) }))).toEqual([{ code: 'SHIELD_FIELD_TOO_LONG', path: '/title' }]);
    // 160 emoji are 320 UTF-16 code units but 160 code points, as JSON Schema counts.
    expect(valueOf(validateCaseInput({ ...caseInputJson, title: '😀'.repeat(160) })).title).toHaveLength(320);
    expect(issuesOf(validateCaseInput({ ...caseInputJson, title: '😀'.repeat(161) }))).toEqual([{ code: 'SHIELD_FIELD_TOO_LONG', path: '/title' }]);
  });

  it('keeps an empty proposedAction as given (creation drops it) and refuses null for an optional field', () => {
    expect(valueOf(validateCaseInput({ ...caseInputJson, proposedAction: '  ' })).proposedAction).toBe('');
    expect(issuesOf(validateCaseInput({ ...caseInputJson, proposedAction: null }))).toEqual([{ code: 'SHIELD_FIELD_TYPE', path: '/proposedAction' }]);
  });

  it('reports every issue at once, each with its code and JSON pointer', () => {
    const input = {
      title: '',
      goal: 7,
      counterparty: { type: 'robot', reference: ' ', extra: 1 },
      facts: [{ ...fact, factId: 'not-a-uuid', source: 'rumour', evidenceReferences: ['', 'ok'] }],
      evidence: [{ type: 'system_record', summary: 'x', verification: 'verified', sourceReference: 'x'.repeat(501) }],
      policies: [[]],
      'a/b~c': true,
    };
    expect(issuesOf(validateCaseInput(input))).toEqual([
      { code: 'SHIELD_FIELD_UNKNOWN', path: '/a~1b~0c' },
      { code: 'SHIELD_FIELD_REQUIRED', path: '/agentId' },
      { code: 'SHIELD_FIELD_TOO_SHORT', path: '/title' },
      { code: 'SHIELD_FIELD_TYPE', path: '/goal' },
      { code: 'SHIELD_FIELD_UNKNOWN', path: '/counterparty/extra' },
      { code: 'SHIELD_FIELD_ENUM', path: '/counterparty/type' },
      { code: 'SHIELD_FIELD_TOO_SHORT', path: '/counterparty/reference' },
      { code: 'SHIELD_ID_INVALID', path: '/facts/0/factId' },
      { code: 'SHIELD_FIELD_ENUM', path: '/facts/0/source' },
      { code: 'SHIELD_FIELD_TOO_SHORT', path: '/facts/0/evidenceReferences/0' },
      { code: 'SHIELD_FIELD_TOO_LONG', path: '/evidence/0/sourceReference' },
      { code: 'SHIELD_FIELD_TYPE', path: '/policies/0' },
    ]);
  });

  it('enforces the list maxima (100 facts, 100 evidence, 50 policies, 20 references per fact)', () => {
    const facts = Array.from({ length: 101 }, () => fact);
    expect(issuesOf(validateCaseInput({ ...caseInputJson, facts }))).toEqual([{ code: 'SHIELD_LIST_TOO_LONG', path: '/facts' }]);
    expect(valueOf(validateCaseInput({ ...caseInputJson, facts: facts.slice(1) })).facts).toHaveLength(100);
    const policies = Array.from({ length: 51 }, () => ({ title: 't', statement: 's' }));
    expect(issuesOf(validateCaseInput({ ...caseInputJson, policies }))).toEqual([{ code: 'SHIELD_LIST_TOO_LONG', path: '/policies' }]);
    const many = { ...fact, evidenceReferences: Array.from({ length: 21 }, () => 'r') };
    expect(issuesOf(validateCaseInput({ ...caseInputJson, facts: [many] }))).toEqual([{ code: 'SHIELD_LIST_TOO_LONG', path: '/facts/0/evidenceReferences' }]);
  });

  it('accepts ids of every form §2 allows and refuses the others', () => {
    for (const id of ['6F9619FF-8B86-4011-B42D-00C04FC964FF', '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff']) {
      expect(validateCaseInput({ ...caseInputJson, facts: [{ ...fact, factId: id }] }).ok).toBe(true);
    }
    for (const id of ['6f9619ff-8b86-9011-b42d-00c04fc964ff', '6f9619ff-8b86-4011-c42d-00c04fc964ff', ' 6f9619ff-8b86-4011-b42d-00c04fc964ff']) {
      expect(issuesOf(validateCaseInput({ ...caseInputJson, facts: [{ ...fact, factId: id }] }))).toEqual([{ code: 'SHIELD_ID_INVALID', path: '/facts/0/factId' }]);
    }
  });
});

describe('consult input (§4)', () => {
  it('fills the defaults §8.1 hashes, generates no id and keeps an explicit empty proposedAction', () => {
    expect(valueOf(validateConsultInput({ message: ' Hi ', proposedAction: ' ' }))).toEqual({
      message: 'Hi',
      situationContext: '',
      proposedAction: '',
      facts: [],
      evidence: [],
      policies: [],
    });
    expect(valueOf(validateConsultInput({ message: 'Hi', facts: [fact] })).facts[0]).toEqual({ ...fact, evidenceReferences: [] });
  });

  it('refuses keys the consult input does not have (analysisDepth, caseId) and bounds message and context', () => {
    expect(issuesOf(validateConsultInput({ message: 'Hi', analysisDepth: 'deep', caseId: 'x' }))).toEqual([
      { code: 'SHIELD_FIELD_UNKNOWN', path: '/analysisDepth' },
      { code: 'SHIELD_FIELD_UNKNOWN', path: '/caseId' },
    ]);
    expect(issuesOf(validateConsultInput({ message: ' \n ' }))).toEqual([{ code: 'SHIELD_FIELD_TOO_SHORT', path: '/message' }]);
    expect(issuesOf(validateConsultInput({}))).toEqual([{ code: 'SHIELD_FIELD_REQUIRED', path: '/message' }]);
    expect(validateConsultInput({ message: 'x'.repeat(4000), situationContext: 'y'.repeat(8000) }).ok).toBe(true);
    expect(issuesOf(validateConsultInput({ message: 'x'.repeat(4001), situationContext: 'y'.repeat(8001) }))).toEqual([
      { code: 'SHIELD_FIELD_TOO_LONG', path: '/message' },
      { code: 'SHIELD_FIELD_TOO_LONG', path: '/situationContext' },
    ]);
  });

  it('allows 50 facts, 50 evidence and 20 policies in one input', () => {
    const evidence = { type: 'other', summary: 's', verification: 'unverified' };
    const policy = { title: 't', statement: 's' };
    expect(validateConsultInput({ message: 'm', facts: Array(50).fill(fact), evidence: Array(50).fill(evidence), policies: Array(20).fill(policy) }).ok).toBe(true);
    expect(issuesOf(validateConsultInput({ message: 'm', facts: Array(51).fill(fact), evidence: Array(51).fill(evidence), policies: Array(21).fill(policy) }))).toEqual([
      { code: 'SHIELD_LIST_TOO_LONG', path: '/facts' },
      { code: 'SHIELD_LIST_TOO_LONG', path: '/evidence' },
      { code: 'SHIELD_LIST_TOO_LONG', path: '/policies' },
    ]);
  });

  it('never echoes the submitted text in a message', () => {
    const secret = 'SENTINEL-7f3a the wire goes to IBAN DE00';
    const result = validateConsultInput({ message: secret.repeat(200), situationContext: 5, facts: [{ statement: secret, source: secret, status: 'x' }] });
    expect(result.ok).toBe(false);
    if (!result.ok) for (const issue of result.issues) expect(issue.message).not.toContain('SENTINEL');
  });
});

describe('guidance input (§6) and close input (§7)', () => {
  it('defaults scope to case and refuses other scopes', () => {
    expect(valueOf(validateGuidanceInput({ instruction: ' Never pay new accounts without a call-back ' }))).toEqual({ instruction: 'Never pay new accounts without a call-back', scope: 'case' });
    expect(valueOf(validateGuidanceInput({ instruction: 'x', scope: 'agent' })).scope).toBe('agent');
    expect(issuesOf(validateGuidanceInput({ instruction: 'x'.repeat(2001), scope: 'global' }))).toEqual([
      { code: 'SHIELD_FIELD_TOO_LONG', path: '/instruction' },
      { code: 'SHIELD_FIELD_ENUM', path: '/scope' },
    ]);
  });

  it('reads the close input with its optional observedImpact', () => {
    expect(valueOf(validateCloseInput({ result: 'false_alarm', acceptedAdvice: false, actionTaken: ' Paid ' }))).toEqual({ result: 'false_alarm', acceptedAdvice: false, actionTaken: 'Paid' });
    expect(issuesOf(validateCloseInput({ result: 'won', acceptedAdvice: 'yes', actionTaken: 'Paid', observedImpact: '' }))).toEqual([
      { code: 'SHIELD_FIELD_ENUM', path: '/result' },
      { code: 'SHIELD_FIELD_TYPE', path: '/acceptedAdvice' },
      { code: 'SHIELD_FIELD_TOO_SHORT', path: '/observedImpact' },
    ]);
    expect(issuesOf(validateCloseInput({ reportedBy: 'owner' }))).toEqual([
      { code: 'SHIELD_FIELD_UNKNOWN', path: '/reportedBy' },
      { code: 'SHIELD_FIELD_REQUIRED', path: '/result' },
      { code: 'SHIELD_FIELD_REQUIRED', path: '/acceptedAdvice' },
      { code: 'SHIELD_FIELD_REQUIRED', path: '/actionTaken' },
    ]);
  });
});

describe('hostile inputs', () => {
  it.each([
    ['null', null],
    ['an array', [{ message: 'x' }]],
    ['a string', '{"message":"x"}'],
    ['a Map', new Map([['message', 'x']])],
    ['a class instance', new (class Consult { message = 'x'; })()],
  ])('refuses %s where an object is expected, at the root pointer', (_name, input) => {
    expect(issuesOf(validateConsultInput(input))).toEqual([{ code: 'SHIELD_FIELD_TYPE', path: '' }]);
  });

  it('accepts an object without a prototype (as some JSON readers build)', () => {
    const input = Object.assign(Object.create(null) as object, { message: 'x' });
    expect(validateConsultInput(input).ok).toBe(true);
  });

  it('refuses a value nested a million deep where a string is expected, without recursion', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 1_000_000; i += 1) deep = [deep];
    expect(issuesOf(validateConsultInput({ message: deep }))).toEqual([{ code: 'SHIELD_FIELD_TYPE', path: '/message' }]);
  });

  it('stops at 100 issues, however many unknown keys or bad items there are', () => {
    const input: Record<string, unknown> = { message: 'x', facts: Array(50).fill({ bad: 1 }) };
    for (let i = 0; i < 100_000; i += 1) input[`k${i}`] = i;
    const result = validateConsultInput(input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toHaveLength(101);
    expect(result.issues[100]).toMatchObject({ code: 'SHIELD_TOO_MANY_ISSUES', path: '' });
  });

  it('reads only the first items of a list far beyond its maximum', () => {
    const huge = Array(1_000_000).fill(fact);
    expect(issuesOf(validateConsultInput({ message: 'x', facts: huge }))).toEqual([{ code: 'SHIELD_LIST_TOO_LONG', path: '/facts' }]);
  });

  it('refuses strings with unpaired surrogates, which have no UTF-8 form', () => {
    expect(issuesOf(validateConsultInput({ message: 'ok \ud800 then' }))).toEqual([{ code: 'SHIELD_STRING_MALFORMED', path: '/message' }]);
    expect(validateConsultInput({ message: 'ok 😀' }).ok).toBe(true);
  });

  it('uses only documented codes', () => {
    const result = validateCaseInput({ facts: 3, evidence: [{}], policies: [{ policyId: 1 }], counterparty: [], extra: null });
    expect(result.ok).toBe(false);
    if (!result.ok) for (const issue of result.issues) expect(Object.keys(SHIELD_ISSUE_CODES)).toContain(issue.code);
  });
});
