import { caseInputJson, exampleAnalysis, KNOWN_EVIDENCE_ID, KNOWN_FACT_ID, sequentialIds, T0, T1, T2, T3 } from '../../test/shield-record.examples';
import { computeInputDigest } from '../digest/input-digest';
import { DISPOSITIONS, type ConsultInput, type Generation, type ShieldAnalysis, type ShieldCase } from '../shield.types';
import { validateShieldCase } from '../records/shield-records.validator';
import { validateCaseInput, validateConsultInput } from '../validation/shield-inputs.validator';
import type { ShieldCaseCommand } from './shield-case.commands';
import { decide, evolve, foldShieldCase, type ShieldCaseState, type ShieldDecision } from './shield-case.decider';
import type { ShieldCaseEvent } from './shield-case.events';
import { identifyConsultItems, mergeConsultInput } from './shield-case.merge';

const SENTINEL_MESSAGE = 'SENTINEL-MESSAGE-4b1d: wire it to DE89 3704 0044 0532 0130 00 now';
const SENTINEL_CONTEXT = 'SENTINEL-CONTEXT-9e2c: the CFO is travelling';
const generation: Generation = { mode: 'fallback', model: 'anthropic/claude-sonnet-4-5', promptVersion: 'trustmesh-shield-test' };

function ok<T>(result: { ok: true; value: T } | { ok: false }): T {
  if (!result.ok) throw new Error('expected a valid input');
  return result.value;
}

/** Given these events, when this command: the decision (events or issues). */
function when(given: readonly ShieldCaseEvent[], command: ShieldCaseCommand): ShieldDecision {
  return decide(command, foldShieldCase(given));
}

function eventsOf(decision: ShieldDecision): ShieldCaseEvent[] {
  if (!decision.ok) throw new Error(`expected events: ${JSON.stringify(decision.issues)}`);
  return decision.events;
}

function openEvents(input: unknown = caseInputJson): ShieldCaseEvent[] {
  return eventsOf(decide({ type: 'OpenShieldCase', data: { input: ok(validateCaseInput(input)), now: T0, newId: sequentialIds(1) } }, null));
}

function consultCommand(raw: unknown, options: { analysis?: ShieldAnalysis; now?: string; state: ShieldCaseState; digest?: string }): ShieldCaseCommand {
  const input: ConsultInput = ok(validateConsultInput(raw));
  const newId = sequentialIds(0x1000);
  return {
    type: 'ConsultShieldCase',
    data: {
      items: identifyConsultItems(input, newId),
      ...(input.proposedAction !== undefined && { proposedAction: input.proposedAction }),
      inputDigest: options.digest ?? 'auFu4XMNWPYqXheUk07asLnZ9az6XRJzJgvF4Dpd-1c',
      analysis: options.analysis ?? exampleAnalysis,
      generation,
      now: options.now ?? T1,
      newId,
    },
  };
}

function stateAfter(events: readonly ShieldCaseEvent[]): ShieldCase {
  const state = foldShieldCase(events);
  if (state === null) throw new Error('no case');
  return state;
}

describe('opening a case (§3)', () => {
  it('creates it open, at medium risk, with new lowercase v4 ids for items lacking one', () => {
    const [event] = openEvents();
    expect(event?.type).toBe('ShieldCaseOpened');
    const created = stateAfter(openEvents());
    expect(created).toMatchObject({ caseId: '00000000-0000-4000-8000-000000000001', status: 'open', riskTier: 'medium', ownerGuidance: [], createdAt: T0, updatedAt: T0 });
    expect(created.title).toBe('Northwind invoice 2231');
    expect(created.facts.map((fact) => fact.factId)).toEqual([KNOWN_FACT_ID, '00000000-0000-4000-8000-000000000002']);
    expect(created.facts[1]?.evidenceReferences).toEqual(['email 2026-03-01']);
    expect(created.evidence[0]?.evidenceId).toBe(KNOWN_EVIDENCE_ID);
    expect(created.policies[0]?.policyId).toBe('00000000-0000-4000-8000-000000000003');
    expect(created.proposedAction).toBe('Pay EUR 18,400 to the new IBAN in the email');
    expect(validateShieldCase(created).ok).toBe(true);
  });

  it('keeps proposedAction only when non-empty and never writes latest ids or closedAt', () => {
    const created = stateAfter(openEvents({ ...caseInputJson, proposedAction: '   ' }));
    expect(created).not.toHaveProperty('proposedAction');
    expect(created).not.toHaveProperty('latestConsultationId');
    expect(created).not.toHaveProperty('closedAt');
  });

  it('refuses to open a case twice', () => {
    const decision = when(openEvents(), { type: 'OpenShieldCase', data: { input: ok(validateCaseInput(caseInputJson)), now: T1, newId: sequentialIds(50) } });
    expect(decision).toMatchObject({ ok: false, issues: [{ code: 'SHIELD_CASE_EXISTS', path: '' }] });
  });

  it('refuses a time that is not a §8.3 timestamp, so no invalid record is ever written', () => {
    const decision = decide({ type: 'OpenShieldCase', data: { input: ok(validateCaseInput(caseInputJson)), now: '2026-03-02T10:00:00+01:00', newId: sequentialIds() } }, null);
    expect(decision).toMatchObject({ ok: false, issues: [{ code: 'SHIELD_TIMESTAMP_INVALID', path: '/createdAt' }, { code: 'SHIELD_TIMESTAMP_INVALID', path: '/updatedAt' }] });
  });
});

describe('consulting (§4, §5, §8)', () => {
  it('records the consultation and moves the case: status, tier, latest ids, updatedAt', async () => {
    const given = openEvents();
    const raw = { message: SENTINEL_MESSAGE, situationContext: SENTINEL_CONTEXT };
    const digest = await computeInputDigest(ok(validateConsultInput(raw)));
    const events = eventsOf(when(given, consultCommand(raw, { state: stateAfter(given), digest })));
    expect(events).toHaveLength(1);
    const [event] = events;
    if (event?.type !== 'ShieldCaseConsulted') throw new Error('expected ShieldCaseConsulted');
    expect(event.data.consultation).toMatchObject({
      protocolVersion: '0.1',
      consultationId: '00000000-0000-4000-8000-000000001000',
      caseId: '00000000-0000-4000-8000-000000000001',
      agentId: 'agent-accounts-payable',
      inputDigest: digest,
      createdAt: T1,
    });
    const after = stateAfter([...given, ...events]);
    expect(after).toMatchObject({ status: 'awaiting_input', riskTier: 'critical', latestConsultationId: '00000000-0000-4000-8000-000000001000', latestDisposition: 'gather_evidence', updatedAt: T1, createdAt: T0 });
    expect(validateShieldCase(after).ok).toBe(true);
  });

  it('never carries the consult message or situationContext in an event (§12)', () => {
    const given = openEvents();
    const events = eventsOf(when(given, consultCommand({ message: SENTINEL_MESSAGE, situationContext: SENTINEL_CONTEXT }, { state: stateAfter(given) })));
    const stored = JSON.stringify([...given, ...events]);
    expect(stored).not.toContain('SENTINEL-MESSAGE');
    expect(stored).not.toContain('SENTINEL-CONTEXT');
  });

  it.each(DISPOSITIONS.map((disposition) => [disposition, disposition === 'gather_evidence' ? 'awaiting_input' : 'ready'] as const))(
    'a %s consultation leaves the case %s',
    (disposition, status) => {
      const given = openEvents();
      const events = eventsOf(when(given, consultCommand({ message: 'm' }, { state: stateAfter(given), analysis: { ...exampleAnalysis, disposition } })));
      expect(stateAfter([...given, ...events]).status).toBe(status);
    },
  );

  it('reflects the latest consultation only: awaiting_input, then ready, never open again', () => {
    const given = openEvents();
    const first = eventsOf(when(given, consultCommand({ message: 'm' }, { state: stateAfter(given) })));
    const second = eventsOf(when([...given, ...first], consultCommand({ message: 'm' }, { state: stateAfter(given), analysis: { ...exampleAnalysis, disposition: 'proceed', riskTier: 'low' }, now: T2 })));
    expect(stateAfter([...given, ...first, ...second])).toMatchObject({ status: 'ready', riskTier: 'low', latestDisposition: 'proceed', updatedAt: T2 });
  });

  it('replaces proposedAction only with a non-empty value and never changes title, goal, brief, counterparty or guidance', () => {
    const given = openEvents();
    const before = stateAfter(given);
    for (const proposedAction of [undefined, '', '   ']) {
      const raw = proposedAction === undefined ? { message: 'm' } : { message: 'm', proposedAction };
      const after = stateAfter([...given, ...eventsOf(when(given, consultCommand(raw, { state: before })))]);
      expect(after.proposedAction).toBe(before.proposedAction);
    }
    const after = stateAfter([...given, ...eventsOf(when(given, consultCommand({ message: 'm', proposedAction: ' Pay the IBAN on record ' }, { state: before })))]);
    expect(after.proposedAction).toBe('Pay the IBAN on record');
    for (const key of ['title', 'goal', 'brief', 'counterparty', 'ownerGuidance', 'caseId', 'agentId', 'createdAt'] as const) expect(after[key]).toEqual(before[key]);
  });

  it('merges items by id: in place for known ids, appended in input order otherwise, nothing deleted', () => {
    const given = openEvents();
    const raw = {
      message: 'm',
      facts: [
        { statement: 'New fact A', source: 'protected_agent', status: 'asserted' },
        { factId: KNOWN_FACT_ID, statement: 'Invoice 2231 is for EUR 18,400 (confirmed twice)', source: 'owner', status: 'verified' },
        { factId: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', statement: 'first version', source: 'counterparty', status: 'asserted' },
        { statement: 'New fact B', source: 'counterparty', status: 'disputed' },
        { factId: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', statement: 'later version wins', source: 'counterparty', status: 'asserted' },
      ],
    };
    const after = stateAfter([...given, ...eventsOf(when(given, consultCommand(raw, { state: stateAfter(given) })))]);
    expect(after.facts.map((fact) => fact.statement)).toEqual([
      'Invoice 2231 is for EUR 18,400 (confirmed twice)',
      'The supplier says its bank changed',
      'New fact A',
      'later version wins',
      'New fact B',
    ]);
    expect(after.facts[0]?.factId).toBe(KNOWN_FACT_ID);
    expect(after.evidence).toEqual(stateAfter(given).evidence);
    expect(after.policies).toEqual(stateAfter(given).policies);
  });

  it('gives the analyzer, before the consultation exists, exactly the case the consultation leaves', () => {
    const given = openEvents();
    const state = stateAfter(given);
    const raw = { message: 'm', proposedAction: 'Hold', facts: [{ statement: 'x', source: 'owner', status: 'asserted' }], evidence: [{ type: 'other', summary: 's', verification: 'unverified' }] };
    const command = consultCommand(raw, { state });
    if (command.type !== 'ConsultShieldCase') throw new Error('unreachable');
    const merged = ok(mergeConsultInput(state, command.data.items, command.data.proposedAction, command.data.now));
    const after = stateAfter([...given, ...eventsOf(decide(command, state))]);
    const { status: _s, riskTier: _r, latestConsultationId: _c, latestDisposition: _d, ...stored } = after;
    const { status: _s2, riskTier: _r2, ...seen } = merged;
    expect(seen).toEqual(stored);
    expect(merged.status).toBe('open');
  });

  it('refuses a merge beyond the case maxima and changes nothing', () => {
    const facts = Array.from({ length: 100 }, (_, i) => ({ statement: `fact ${i}`, source: 'system', status: 'verified' }));
    const given = openEvents({ ...caseInputJson, facts, evidence: [], policies: Array.from({ length: 50 }, () => ({ title: 't', statement: 's' })) });
    const state = stateAfter(given);
    const adding = { message: 'm', facts: [{ statement: 'one more', source: 'owner', status: 'asserted' }], policies: [{ title: 't', statement: 's' }] };
    expect(when(given, consultCommand(adding, { state }))).toMatchObject({
      ok: false,
      issues: [
        { code: 'SHIELD_CASE_LIMIT_EXCEEDED', path: '/facts' },
        { code: 'SHIELD_CASE_LIMIT_EXCEEDED', path: '/policies' },
      ],
    });
    // Replacing an existing item by its id adds nothing, so a full case still takes it.
    const replacing = { message: 'm', facts: [{ factId: state.facts[0]?.factId, statement: 'fact 0, corrected', source: 'system', status: 'verified' }] };
    expect(when(given, consultCommand(replacing, { state })).ok).toBe(true);
  });

  it('refuses an analysis the schema refuses, with pointers into the consultation', () => {
    const given = openEvents();
    const decision = when(given, consultCommand({ message: 'm' }, { state: stateAfter(given), analysis: { ...exampleAnalysis, nextSteps: [], confidence: -0.1 } }));
    expect(decision).toMatchObject({
      ok: false,
      issues: [
        { code: 'SHIELD_NUMBER_OUT_OF_RANGE', path: '/analysis/confidence' },
        { code: 'SHIELD_LIST_TOO_SHORT', path: '/analysis/nextSteps' },
      ],
    });
  });

  it('refuses a case that does not exist', () => {
    expect(decide(consultCommand({ message: 'm' }, { state: null }), null)).toMatchObject({ ok: false, issues: [{ code: 'SHIELD_CASE_NOT_FOUND', message: 'Shield case not found' }] });
  });
});

describe('owner guidance (§6)', () => {
  const guidance = (now: string, index = 0): ShieldCaseCommand => ({
    type: 'AddShieldGuidance',
    data: { input: { instruction: `Call back on the number on file (${index})`, scope: 'case' }, now, newId: sequentialIds(200 + index) },
  });

  it('appends one item with a new id, sets updatedAt to its createdAt and leaves the status', () => {
    const given = openEvents();
    const consulted = [...given, ...eventsOf(when(given, consultCommand({ message: 'm' }, { state: stateAfter(given) })))];
    const events = eventsOf(when(consulted, guidance(T2)));
    const after = stateAfter([...consulted, ...events]);
    expect(after.ownerGuidance).toEqual([{ guidanceId: '00000000-0000-4000-8000-0000000000c8', instruction: 'Call back on the number on file (0)', scope: 'case', createdAt: T2 }]);
    expect(after).toMatchObject({ updatedAt: T2, status: 'awaiting_input', riskTier: 'critical' });
  });

  it('holds at most 50 items', () => {
    let history = openEvents();
    for (let i = 0; i < 50; i += 1) history = [...history, ...eventsOf(when(history, guidance(T2, i)))];
    expect(stateAfter(history).ownerGuidance).toHaveLength(50);
    expect(when(history, guidance(T3, 50))).toMatchObject({ ok: false, issues: [{ code: 'SHIELD_CASE_LIMIT_EXCEEDED', path: '/ownerGuidance' }] });
  });
});

describe('closing with an outcome (§7, §5)', () => {
  const closeCommand = (now: string, reportedBy: 'owner' | 'protected_agent' = 'protected_agent'): ShieldCaseCommand => ({
    type: 'CloseShieldCase',
    data: { input: { result: 'prevented_harm', acceptedAdvice: true, actionTaken: 'Paid the account on record' }, reportedBy, now, newId: sequentialIds(300) },
  });

  it('writes one outcome with the caller as reporter and closes the case: closedAt = updatedAt = now', () => {
    const given = openEvents();
    const events = eventsOf(when(given, closeCommand(T3)));
    const [event] = events;
    if (event?.type !== 'ShieldCaseClosed') throw new Error('expected ShieldCaseClosed');
    expect(event.data.outcome).toEqual({
      protocolVersion: '0.1',
      outcomeId: '00000000-0000-4000-8000-00000000012c',
      caseId: '00000000-0000-4000-8000-000000000001',
      agentId: 'agent-accounts-payable',
      result: 'prevented_harm',
      acceptedAdvice: true,
      actionTaken: 'Paid the account on record',
      reportedBy: 'protected_agent',
      createdAt: T3,
    });
    expect(stateAfter([...given, ...events])).toMatchObject({ status: 'closed', closedAt: T3, updatedAt: T3 });
    expect(validateShieldCase(stateAfter([...given, ...events])).ok).toBe(true);
  });

  it('refuses consult, guidance and a second close on a closed case, with the spec\'s messages', () => {
    const given = openEvents();
    const closed = [...given, ...eventsOf(when(given, closeCommand(T2, 'owner')))];
    expect(when(closed, consultCommand({ message: 'm' }, { state: stateAfter(closed) }))).toEqual({
      ok: false,
      issues: [{ code: 'SHIELD_CASE_CLOSED', path: '', message: 'Shield case is closed' }],
    });
    expect(when(closed, { type: 'AddShieldGuidance', data: { input: { instruction: 'i', scope: 'case' }, now: T3, newId: sequentialIds(400) } })).toEqual({
      ok: false,
      issues: [{ code: 'SHIELD_CASE_CLOSED', path: '', message: 'Shield case is closed' }],
    });
    expect(when(closed, closeCommand(T3))).toEqual({ ok: false, issues: [{ code: 'SHIELD_CASE_ALREADY_CLOSED', path: '', message: 'Shield case is already closed' }] });
  });

  it('refuses to close a case that does not exist', () => {
    expect(decide(closeCommand(T1), null)).toMatchObject({ ok: false, issues: [{ code: 'SHIELD_CASE_NOT_FOUND' }] });
  });
});

describe('evolve', () => {
  it('ignores events for a case that was never opened', () => {
    const [consulted] = eventsOf(when(openEvents(), consultCommand({ message: 'm' }, { state: null })));
    expect(evolve(null, consulted as ShieldCaseEvent)).toBeNull();
  });
});
