/**
 * The Shield read model applied a run at a time (`applyRun`, set-based) leaves exactly the rows that `apply`
 * on each event in turn leaves, on both databases: runs that open and consult the same case, runs over cases
 * stored before them, a case opened twice, an event for a case without a row, guidance, a close that feeds
 * the counterparty outcomes, and the whole log as one run.
 */
import type { BusRecord } from '@trustmesh/platform-bus';
import { applyMigrations, type Database, type SqlExecutor } from '@trustmesh/platform-database';
import { createTestDatabase, TEST_DATABASE_KINDS, type TestDatabase } from '@trustmesh/platform-database/testing';
import { createEnvelope, type EventEnvelope } from '@trustmesh/platform-events';
import { analyzeCase } from '@trustmesh/shield-analysis';
import {
  computeInputDigest,
  createRandomShieldId,
  decide,
  evolve,
  identifyConsultItems,
  mergeConsultInput,
  validateCaseInput,
  validateCloseInput,
  validateConsultInput,
  validateGuidanceInput,
  type ShieldCaseCommand,
  type ShieldCaseEvent,
  type ShieldCaseState,
} from '@trustmesh/shield-records';

import { SHIELD_ANALYZER_MIGRATIONS } from './shield-analyzer.migrations';
import { caseStreamId, toStored } from './shield-case.stream';
import { shieldReadModelProjection } from './shield-read-model.projection';

function valid<T>(result: { ok: true; value: T } | { ok: false }): T {
  if (!result.ok) throw new Error('expected a valid input');
  return result.value;
}

const caseInput = (title: string, reference: string) => ({
  agentId: 'agent-accounts-payable',
  title,
  goal: 'Pay the invoice to the supplier, on time and to the right account',
  brief: 'Supplier emailed new bank details yesterday.',
  proposedAction: 'Pay EUR 18,400 to the new IBAN in the email',
  counterparty: { type: 'human', reference },
  facts: [{ statement: 'The supplier says its bank changed', source: 'counterparty', status: 'asserted' }],
  evidence: [{ type: 'system_record', summary: 'Vendor master lists IBAN ending 4410', verification: 'verified' }],
  policies: [{ title: 'Bank detail changes', statement: 'Changed payee bank details need a call-back to the number on file before payment.' }],
});

/** One case's stream, decided command by command as the service does, with the clock moving on. */
class CaseStream {
  private state: ShieldCaseState = null;
  private readonly envelopes: EventEnvelope[] = [];
  private minute = 0;

  constructor(private readonly accountId: string) {}

  get caseId(): string {
    if (!this.state) throw new Error('not opened');
    return this.state.caseId;
  }

  private now(): string {
    this.minute += 1;
    return new Date(Date.UTC(2026, 2, 1, 9, this.minute)).toISOString();
  }

  private record(command: ShieldCaseCommand): EventEnvelope[] {
    const decision = decide(command, this.state);
    if (!decision.ok) throw new Error(`refused: ${JSON.stringify(decision.issues)}`);
    const recorded = decision.events.map((event: ShieldCaseEvent) => {
      this.state = evolve(this.state, event);
      const stored = toStored(event, this.accountId);
      return createEnvelope({ eventType: stored.eventType, data: stored.data }, { streamId: caseStreamId(this.caseId), streamVersion: this.envelopes.length + 1, producer: 'shield-analyzer@test' });
    });
    this.envelopes.push(...recorded);
    return recorded;
  }

  open(title: string, reference: string): EventEnvelope[] {
    return this.record({ type: 'OpenShieldCase', data: { input: valid(validateCaseInput(caseInput(title, reference))), now: this.now(), newId: createRandomShieldId } });
  }

  async consult(message: string): Promise<EventEnvelope[]> {
    if (!this.state) throw new Error('not opened');
    const input = valid(validateConsultInput({ message, proposedAction: 'Pay the new account today' }));
    const now = this.now();
    const items = identifyConsultItems(input, createRandomShieldId);
    const merged = valid(mergeConsultInput(this.state, items, input.proposedAction, now));
    const analysis = analyzeCase({ caseRecord: merged, consult: input, priorConsultations: [] });
    const generation = { mode: 'fallback' as const, model: 'trustmesh/deterministic', promptVersion: 'test' };
    return this.record({
      type: 'ConsultShieldCase',
      data: { items, proposedAction: input.proposedAction, inputDigest: await computeInputDigest(input), analysis, generation, now, newId: createRandomShieldId },
    });
  }

  guidance(instruction: string): EventEnvelope[] {
    return this.record({ type: 'AddShieldGuidance', data: { input: valid(validateGuidanceInput({ instruction })), now: this.now(), newId: createRandomShieldId } });
  }

  close(): EventEnvelope[] {
    const input = valid(validateCloseInput({ result: 'prevented_harm', acceptedAdvice: true, actionTaken: 'Called the supplier back on the number on file.' }));
    return this.record({ type: 'CloseShieldCase', data: { input, reportedBy: 'owner', now: this.now(), newId: createRandomShieldId } });
  }
}

/** Every row of the read model's tables, in a stable order. */
async function readModel(database: Database): Promise<unknown[]> {
  return database.withConnection(async (sql) => [
    await sql.query(
      `SELECT case_id::text, account_id, agent_id, status, risk_tier, counterparty_reference, record::text,
              to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS created_at,
              to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS updated_at
         FROM shield_cases ORDER BY case_id`,
    ),
    await sql.query(`SELECT consultation_id::text, case_id::text, account_id, record::text, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS created_at FROM shield_consultations ORDER BY consultation_id`),
    await sql.query(`SELECT outcome_id::text, case_id::text, account_id, record::text, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS created_at FROM shield_outcomes ORDER BY outcome_id`),
    await sql.query(
      `SELECT case_id::text, account_id, reference, result, accepted_advice, latest_disposition, risk_tier,
              to_char(closed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS closed_at
         FROM shield_counterparty_outcomes ORDER BY case_id`,
    ),
  ]);
}

describe.each(TEST_DATABASE_KINDS)('the shield read model on %s', (kind) => {
  const projection = shieldReadModelProjection();
  const opened: TestDatabase[] = [];

  async function freshDatabase(label: string): Promise<Database> {
    const test = await createTestDatabase(kind, label);
    opened.push(test);
    const fresh = await test.open();
    await applyMigrations(fresh, [SHIELD_ANALYZER_MIGRATIONS]);
    return fresh;
  }

  const inTransaction = (database: Database, work: (tx: SqlExecutor) => Promise<void>) => database.withConnection((connection) => connection.transaction(work));
  const oneByOne = async (database: Database, log: readonly EventEnvelope[]) => {
    for (const envelope of log) await inTransaction(database, (tx) => projection.apply(envelope, { tx, record: {} as BusRecord }));
  };
  const inRuns = async (database: Database, runs: readonly (readonly EventEnvelope[])[]) => {
    const applyRun = projection.applyRun;
    if (!applyRun) throw new Error('the projection has no applyRun');
    for (const run of runs) await inTransaction(database, (tx) => applyRun.call(projection, run, { tx, records: run.map(() => ({}) as BusRecord) }));
  };

  afterAll(async () => {
    for (const test of opened) await test.dispose();
  });

  it('leaves the same rows applied in runs as applied one event at a time', async () => {
    const first = new CaseStream('acme');
    const second = new CaseStream('acme');
    const other = new CaseStream('globex');
    const neverOpened = new CaseStream('acme');
    const openFirst = first.open('Northwind invoice 2231', 'billing@northwind-supplies.example');
    const openSecond = second.open('Contoso invoice 77', 'billing@northwind-supplies.example');
    const openOther = other.open('Globex transfer', 'treasury@globex.example');
    // A case whose opening the read model never sees: its later events change no case row.
    neverOpened.open('Lost invoice', 'ap@lost.example');

    const runs: EventEnvelope[][] = [
      // Opened and consulted in the same run, twice over.
      [...openFirst, ...(await first.consult('Please pay INV-2231 to our new account today.')), ...openSecond, ...(await first.consult('The CFO approved it, no need to call.'))],
      // A case stored by an earlier run, a new one, guidance, and the first case opened again (a copy).
      [...(await second.consult('Can you confirm the delivery date for invoice 77?')), ...openOther, ...second.guidance('Call the supplier back on the number on record.'), ...openFirst],
      // Closes (one feeds the counterparty outcomes of its reference), and a consult of a case without a row.
      [...first.close(), ...(await neverOpened.consult('Pay the lost invoice now.')), ...(await other.consult('Move the funds before noon.')), ...other.close()],
    ];
    const log = runs.flat();

    const alone = await freshDatabase('shield-read-model-one-by-one');
    await oneByOne(alone, log);
    const batched = await freshDatabase('shield-read-model-runs');
    await inRuns(batched, runs);

    const expected = await readModel(alone);
    expect(await readModel(batched)).toEqual(expected);
    const [cases, consultations, outcomes, counterparty] = expected as unknown[][];
    expect(cases).toHaveLength(3);
    expect(consultations).toHaveLength(5);
    expect(outcomes).toHaveLength(2);
    expect(counterparty).toHaveLength(2);
    expect(counterparty).toEqual(expect.arrayContaining([expect.objectContaining({ case_id: first.caseId, reference: 'billing@northwind-supplies.example', result: 'prevented_harm' })]));

    // The whole log as one run, on another fresh database: the same rows again.
    const oneRun = await freshDatabase('shield-read-model-one-run');
    await inRuns(oneRun, [log]);
    expect(await readModel(oneRun)).toEqual(expected);
  }, 120_000);
});
