import { request, type CaseSpec } from '../test/case.fixture';
import { analyzeCase } from './case.analyzer';
import { sentenceAt } from './claim.anchors';

/** Fresh probes: claims that name a record, a person or an event, recognisable by their key terms and checked (§9.4). */
function claimAbout(spec: CaseSpec, term: string) {
  return analyzeCase(request(spec)).claims.filter((c) => c.claim.toLowerCase().includes(term.toLowerCase()));
}

describe('claims anchored in the message (§9.4)', () => {
  it('verifies a record the message names when an authoritative item names it too', () => {
    const found = claimAbout(
      { message: 'Hi, could you finish the setup from ticket HR-7781 today? Thanks.', evidence: [{ evidenceId: 'ev-t', summary: 'Ticket HR-7781: approved laptop setup for Ines.' }] },
      'hr-7781',
    );
    expect(found.map((c) => c.status)).toContain('verified');
    expect(found.find((c) => c.status === 'verified')?.evidenceReferences).toEqual(['ev-t']);
  });

  it('contradicts it when the record denies what the message asserts, in either direction', () => {
    const outstanding = claimAbout(
      { message: 'Our invoice QX-310 is still unpaid, please settle it.', evidence: [{ evidenceId: 'ap', summary: 'Accounts payable: no invoice QX-310 is registered.' }] },
      'qx-310',
    );
    expect(outstanding.map((c) => c.status)).toContain('contradicted');
    const unused = claimAbout(
      { message: 'Mi tarjeta regalo TR-4420 no funciona, nunca la he usado.', evidence: [{ evidenceId: 'gc', summary: 'Tarjeta regalo TR-4420: canjeada por completo el 2 de noviembre.' }] },
      'tr-4420',
    );
    expect(unused.map((c) => c.status)).toContain('contradicted');
    // Folding collapses doubled letters ("fonctionne" reads "fonctione"); the denial must still be read.
    const badge = claimAbout(
      { message: 'Mon badge BD-3310 ne fonctionne pas, il faut le remplacer.', evidence: [{ evidenceId: 'acc', summary: 'Badge BD-3310 : actif, dernier passage enregistré hier à 18 h.' }] },
      'bd-3310',
    );
    expect(badge.map((c) => c.status)).toContain('contradicted');
  });

  it('contradicts a claimed identity when a record says nobody of that name exists, and names the person in the claim', () => {
    const found = claimAbout(
      {
        message: 'Bonjour, ici Paul Girard du support informatique, merci de me transmettre le code reçu par SMS.',
        evidence: [{ evidenceId: 'dir', summary: 'Annuaire : aucun Paul Girard au support informatique.' }],
      },
      'girard',
    );
    expect(found.map((c) => c.status)).toContain('contradicted');
  });

  it('leaves a directory entry for the claimed name short of proving who the sender is', () => {
    const found = claimAbout(
      { message: "Hi, it's Naomi from finance, please send me the payroll file.", evidence: [{ summary: 'Directory: Naomi Park, finance analyst.' }] },
      'naomi',
    );
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((c) => c.status !== 'verified' || !c.claim.startsWith('The sender states'))).toBe(true);
  });

  it('supports a reported event with corroborating items only, and verifies it with an authoritative record', () => {
    const damaged = { message: 'The kettle has a long crack in the base, photo attached.', evidence: [{ summary: 'Customer photo of a kettle with a crack in the base.', type: 'external_claim' as const, verification: 'unverified' as const }] };
    expect(claimAbout(damaged, 'crack').map((c) => c.status)).toContain('supported');
    const locked = { message: 'Ich bin ausgesperrt, mein Konto wurde gesperrt nach zu vielen Passwortversuchen.', evidence: [{ summary: 'Identity provider: Konto gesperrt nach 5 falschen Passwortversuchen.' }] };
    expect(claimAbout(locked, 'gesperrt').map((c) => c.status)).toContain('verified');
  });

  it('marks a forecast or a private reason not checkable', () => {
    const found = analyzeCase(request({ message: 'Due to rising freight costs, prices will go up by 12% next month.' })).claims;
    expect(found.some((c) => c.status === 'not_checkable' && c.claim.includes('12'))).toBe(true);
  });

  it('checks each of several assertions on its own, not only the first of its kind', () => {
    const message = 'Hi team. The chairs from order LT-310 came in complete yesterday. The desks were delivered complete as well, so please release the full payment.';
    const desks = claimAbout({ message, evidence: [{ evidenceId: 'wh-1', summary: 'Warehouse log: the desks were not delivered; carrier reports them lost.' }] }, 'desks');
    expect(desks.map((c) => c.status)).toEqual(['contradicted']);
    expect(desks[0]?.evidenceReferences).toEqual(['wh-1']);
    // §12: such a statement is named by the words a record could settle it by, never quoted.
    expect(desks[0]?.claim).not.toContain('delivered complete as well');
  });

  it('does not take a capital that only opens a sentence for a name, but keeps a name that opens one', () => {
    const grammar = claimAbout(
      { message: 'Thanks for the help. The courier left the parcel at the door.', evidence: [{ summary: 'The warehouse shipped the order on Monday.' }] },
      'mentions The',
    );
    expect(grammar).toEqual([]);
    const name = claimAbout(
      { message: 'Quick note. Ottilie packed the replacement order yesterday.', evidence: [{ summary: 'Staff directory: no employee named Ottilie.' }] },
      'ottilie',
    );
    expect(name.map((c) => c.status)).toContain('contradicted');
  });

  it('does not verify what a sentence says of a person from an item that merely lists that person', () => {
    const message = 'Quick update. Henrike collected the spare keys on Friday.';
    const listed = claimAbout({ message, evidence: [{ summary: 'Staff directory: Henrike, facilities team, desk 4.' }] }, 'henrike');
    expect(listed.map((c) => c.status)).toEqual(['unverified']);
    const logged = claimAbout({ message, evidence: [{ summary: 'Key log: spare keys collected by Henrike on Friday.' }] }, 'henrike');
    expect(logged.map((c) => c.status)).toEqual(['verified']);
  });

  it('keeps an address or a domain inside its sentence, while a dot before a space still ends one', () => {
    const text = 'Old inbox is gone. Write to billing.team@example.org from now on. Thanks.';
    expect(sentenceAt(text, text.indexOf('example')).original).toBe(' Write to billing.team@example.org from now on');
    expect(sentenceAt(text, text.indexOf('Old')).original).toBe('Old inbox is gone');
  });

  it('reads numbered files with a series ("57-204311", "318/2025") as records, not a month and year', () => {
    const found = claimAbout(
      { message: 'About my claim 57-204311: the adjuster closed it last week.', evidence: [{ evidenceId: 'cl', summary: 'Claim 57-204311 is still open, awaiting the adjuster.' }] },
      '57-204311',
    );
    expect(found.length).toBeGreaterThan(0);
    expect(claimAbout({ message: 'Please quote docket 318/2025 in your reply to the court.' }, '318/2025').length).toBeGreaterThan(0);
    expect(claimAbout({ message: 'The card expires 11/2026 and works fine, please charge it.' }, 'refers to record 11/2026')).toEqual([]);
  });
});
