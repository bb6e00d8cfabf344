/**
 * Detects the manipulation tactics of SHIELD.md §9.5 from what the message does, by combining cues (a cue alone is not
 * enough): urgency is time pressure used to cut verification short or to rush a risky action, not a deadline plainly
 * stated; emotional pressure is fear, guilt, sympathy or flattery used to win an exception, not an honest complaint;
 * firm bargaining is not a tactic at all. Injected instructions ("ignore your previous instructions", "system:",
 * "you are now") are policy_bypass.
 *
 * Each signal quotes at most a short cue (§12), carries a confidence that the cue really is that tactic (§9.3) and a
 * §9.2 significance. When nothing is found the caller reports a single `none`.
 */
import type { RiskTier, ShieldConsultation } from '@trustmesh/shield-records';

import { findAmounts, sameAmount } from './amount.parser';
import type { CheckedClaim, Signal } from './analysis.findings';
import { accountsIn, type CaseView, type ItemView } from './case.view';
import { capitalisedWords, folded, mentionsName } from './claim.anchors';
import { CuePattern, CUES, itemHas, type CueHit } from './cue.patterns';
import type { RuleAssessment } from './policy-conflict.detection';
import { foldText, quoteCue } from './text.normalizer';
import { hasTopic, topicBit } from './topic.lexicon';

const RUSHABLE = topicBit('payment') | topicBit('bankDetails') | topicBit('credentials') | topicBit('access') | topicBit('personalData');
const CONSEQUENTIAL = RUSHABLE | topicBit('refund') | topicBit('deletion');
const NEGOTIATED = topicBit('contract') | topicBit('discount');
const GAP = '[^.?!\\n]{0,60}';
// German puts the verb last, after the whole object: the reverse order allows a longer gap.
const LONG_GAP = '[^.?!\\n]{0,100}';

// A request and the data it asks for, in either order (German puts the verb last: "die Liste ... schicken").
const SECRET_REQUEST = new CuePattern([
  { source: `${CUES.requestVerb.source}${GAP}${CUES.secretData.source}`, leading: ['requestVerb'], trailing: ['secretData'], inSentence: true },
  {
    source: `${CUES.secretData.source}[^.?!\\n]{0,40}\\b(?:to me|please|back to me|bitte|por favor|s'il vous plait|asap|a mi|me pases|mir|a moi)\\b`,
    leading: ['secretData'],
  },
  { source: `${CUES.secretData.source}${LONG_GAP}${CUES.requestVerb.source}`, leading: ['secretData'], trailing: ['requestVerb'], inSentence: true },
]);
const INTERNAL_REQUEST = new CuePattern([
  { source: `${CUES.requestVerb.source}${GAP}${CUES.internalData.source}`, leading: ['requestVerb'], trailing: ['internalData'], inSentence: true },
  { source: `${CUES.internalData.source}${LONG_GAP}${CUES.requestVerb.source}`, leading: ['internalData'], trailing: ['requestVerb'], inSentence: true },
]);
const PERSONAL_REQUEST = new CuePattern([
  { source: `${CUES.requestVerb.source}${GAP}${CUES.personalData.source}`, leading: ['requestVerb'], trailing: ['personalData'], inSentence: true },
  { source: `${CUES.personalData.source}${LONG_GAP}${CUES.requestVerb.source}`, leading: ['personalData'], trailing: ['requestVerb'], inSentence: true },
]);
// An offer is not a request: "I can tell you my date of birth" gives data, it does not extract it.
const OWN_BEFORE = /\b(?:my|mein|meine|mi|mis|mon|ma|mes)\s$/;
// Raw patterns here meet folded text, where repeated letters collapse: "I'll" reads "i'l", "happy" reads "hapy".
const OFFER_BEFORE = /\b(?:i can|i could|i'?l+|i wil+|hap+y to|ich kan+|puedo|je peux)\s?$/;
// Authority invoked as the reason: the figure and what it supposedly did, in one sentence, either order.
// A title's dot ("Mr. Whitfield", "Dr. Lang") does not end the sentence.
const IN_SENTENCE = '(?:[^.?!\\n]|(?<=\\b(?:mr|mrs|ms|dr|hr|fr|sr|sra|m+e|st))\\.)';
const FIGURE_ACT = new CuePattern([
  {
    source: `(?:${CUES.authorityFigure.source})${IN_SENTENCE}{0,80}(?:${CUES.authorityAct.source}|${CUES.approvalClaim.source})`,
    leading: ['authorityFigure'],
    trailing: ['authorityAct', 'approvalClaim'],
  },
  {
    source: `(?:${CUES.authorityAct.source}|${CUES.approvalClaim.source})${IN_SENTENCE}{0,50}(?:${CUES.authorityFigure.source})`,
    leading: ['authorityAct', 'approvalClaim'],
    trailing: ['authorityFigure'],
  },
]);
// "I spoke to your manager. He said it's fine": the act in the next sentence, its subject a pronoun for the figure
// (folded: "ella" reads "ela").
const FIGURE_THEN_PRONOUN_ACT = new CuePattern([
  {
    source: `(?:${CUES.authorityFigure.source})${IN_SENTENCE}{0,80}[.!?;] ?(?:he|she|they|er|sie|el|el+a|el+os|il|el+e|ils)\\b${IN_SENTENCE}{0,40}(?:${CUES.authorityAct.source}|${CUES.approvalClaim.source})`,
    leading: ['authorityFigure'],
    trailing: ['authorityAct', 'approvalClaim'],
  },
]);
// "raj said it's fine", "Laura asked me to", "Vogt meinte": a person's say-so offered as the reason (folded text, so
// accents are gone and doubled letters read single). Whether that person can approve is read from the case's records.
// "Tom and I agreed" names the approver before the sender.
const SAY_SO =
  /\b([a-z][a-z'-]{2,}) (?:(?:and (?:i|we) )?(?:already |just )?(?:agreed|said|says|told (?:me|us)|asked (?:me|us)|wants (?:me|us)|okayed|ok'?d|is fine with)|meinte|sagte|hat (?:gesagt|gemeint|mich gebeten|uns gebeten)|bat (?:mich|uns)|(?:ya )?(?:dijo|me pidio|me ha pedido|nos pidio)|(?:m'a|nous a) (?:dit|demande)|a dit)\b/g;
// The sender as subject of a finished deed ("I reported it", "wir haben", "j'ai", "hemos"), and what turns the
// sentence into a demand on the agent after all. Folded text: doubled letters read single ("need" reads "ned").
const OWN_DEED =
  /\b(?:(?:i|we) (?:(?:already|just) )?(?:[a-z]+ed|sent|did|went|came|got|made|paid|told|left|took|spoke|rang|had|was|were)|(?:ich|wir) (?:habe|haben|hat+e|hat+en|bin|sind|war|waren)|(?:j'ai|nous avons|je suis|nous somes)|(?:he|hemos|hice|hicimos|fui|fuimos))\b/;
const ASKS_AGENT =
  /\b(?:you|u|your|ne+d|want|must|have to|please|pls|sie|du|ihr|bit+e|brauche|brauchen|mus+|vous|tu|besoin|faut|veux|voulons|usted|ustedes|necesito|necesitamos|quiero|por favor|tienes|tiene)\b/;
// A recorded refusal (folded text).
const REFUSAL = /\b(?:declined|rejected|refused|turned down|abgelehnt|lehnte|rechaz\w*|refus\w*)\b/;
// A formal closing (folded text, where line breaks read as spaces) followed only by a short unpunctuated signature:
// "un cordial saludo, javier navaro navaro abogados". "Thanks" is left out: it closes sentences mid-message too.
const SIGN_OFF = /\b(?:regards|sincerely|yours truly|(?:mit )?freundlichen grus+en|(?:viele |beste )?grus+e|(?:un )?(?:cordial )?saludos?|atentamente|cordialement|bien a vous)[,.!]? ([^.!?]{1,60})$/;
// A signature with one of these titles invokes the signer's rank; a department name in a signature does not.
const EXECUTIVE = /ceo|cfo|coo|chief|director|direktor|geschaftsfuhr|geschäftsführ|presiden|vorstand|gerente|pdg|directeur|directora|inhaber|owner|propri/;
// Explicit favour-debt: reciprocity even without an exception being asked for.
const FAVOUR_DEBT =
  /\b(?:favou?r in return|return the favou?r|you owe (?:me|us)|bend over backwards|after al+ (?:we'?ve|i'?ve|we have|i have) done for you|revanchier|sie schulden|nach al+em,? was wir fur sie|me lo deben?|despues de todo lo que (?:hemos|he) hecho por|vous me devez|renvoyer l'as+enseur|apres tout ce que (?:nous avons|j'ai) fait pour vous)/;
// Free-mail providers: a personal inbox standing in for an organisation's address.
const FREEMAIL = /@(?:gmail|googlemail|yahoo|hotmail|outlook|live|icloud|aol|protonmail|proton|gmx|web|mail|yandex)\./;
// "40 hours at $150/h = $7,200": a quantity times a unit price that does not give the stated total.
// The total may follow "=" or a word ("so $1,200", "come to", "macht", "soit"); texts are folded, so "weeks" reads "weks".
const ARITHMETIC =
  /\b(\d{1,5}(?:[.,]\d+)?) ?(?:hours?|hrs?|h|units?|pcs|pieces|items|x|licen[cs]es?|seats|users|nights|days|we?eks|months|payments|instal+ments?|stunden|stuck|raten|monate|horas|unidades|cuotas|meses|heures|unites|mensualites|mois)\b[^=\n]{0,25}?(?:at|@|x|a|of|zu|je|von|por|de)\s?[$€£]?\s?(\d{1,7}(?:[.,]\d+)?)[^=\n]{0,15}?(?:=|\b(?:total(?:l?ing)?(?: of)?|comes? to|makes?|so|that'?s|gives|macht|ergibt|also|son|soit|font|fait)\b)\s?[$€£]?\s?(\d{1,3}(?:[,.]\d{3})*(?:[.,]\d{1,2})?|\d+)/;
// Small counts written as words ("three instalments of €400"), read as digits before the arithmetic check (folded forms).
const COUNT_WORDS: Readonly<Record<string, string>> = {
  two: '2', thre: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9', ten: '10', twelve: '12',
  zwei: '2', drei: '3', vier: '4', funf: '5', sechs: '6', zehn: '10',
  dos: '2', tres: '3', cuatro: '4', cinco: '5', seis: '6', diez: '10',
  deux: '2', trois: '3', quatre: '4', cinq: '5', dix: '10',
};
const COUNT_WORD = new RegExp(`\\b(?:${Object.keys(COUNT_WORDS).join('|')})\\b`, 'g');
// "This is Mark Evans ... Thanks, David": the name a sender introduces and the name it signs with.
// The lead words in either case, the name itself capitalised (a raw message, not folded).
const INTRO_NAME = /\b(?:[Tt]his is|[Ii]['’]m|[Ii] am|[Mm]y name is|[Hh]ier ist|[Ii]ch bin|[Mm]ein [Nn]ame ist|[Ss]oy|[Mm]e llamo|[Jj]e suis|[Jj]e m'appelle)\s+(\p{Lu}\p{Ll}+)(?:\s+(\p{Lu}\p{Ll}+))?/u;
const FULL_NAME = /\b(\p{Lu}\p{Ll}+) (\p{Lu}\p{Ll}+)\b/gu;
const SIGN_OFF_NAME =
  /(?:thanks|thank you|regards|best|cheers|sincerely|gr(?:u|ü)(?:ß|ss)e?n?|saludos|atentamente|gracias|cordialement|merci|bien à vous)[,.!]?\s*[-–—]?\s*(\p{L}+)(?:\s+\p{L}+)?[\s.!]*$/iu;
const NOT_A_NAME = /^(?:urgent|important|sorry|happy|glad|just|not|writing|calling|the|your|our|team|all|everyone|again|in|so|much|finance|accounts|support|hr|it)$/i;
// What turns a complaint into a threat: a condition, an announced step or the sender's own lawyer or review ("or",
// "unless", "I'll", "my lawyer", "sonst", "si no", "como no").
// Written as the folded text reads (repeated letters collapse: "unless" reads "unles").
const THREAT_TERMS =
  /\b(?:or|unles+|otherwise|if|fal+s|si|else|regret|on you|bereuen|arrepent\w*|regret+er|i'?l+|i wil+|we'?l+|we wil+|i'?m (?:going|caling|contacting)|my (?:lawyer|attorney|solicitor)|mein(?:en|em)? anwalt|mi abogad[oa]|mon avocat|i(?:'?ve| have) (?:already )?(?:contacted|caled|spoken to|instructed)|oder|o (?:los|las|le|les|te|lo|la|me|nos|voy|ire|lo)|ou (?:je|j'|nous)|sonst|andernfal+s|ansonsten|wen+|werde|werden|si no|como no|a menos que|salvo que|de lo contrario|voy a|vamos a|sinon|si vous ne|a moins que|es sei den+|je vais|nous al+ons)\b/;
const STRONG_THREAT = /responsib|fault|job|fired|schuld|culpa|faute|verantwortlich|head|conscience/;
const DOMAIN = /@([a-z0-9.-]+)$/;
// Dates and deliveries the counterparty states; an amount above a record is a limit question, a refuted identity is
// identity_deception and a refuted record reference may be an honest error, so none of those counts here (a sum of
// money counts only when no record shows it at all: `figureRefuted`).
const FACTUAL_KINDS = new Set(['date', 'receipt']);
const RESET_LINK = /\b(?:link|enlace|lien)\b/;

function signal(tactic: Signal['tactic'], observation: string, confidence: number, significance: RiskTier, seriousHarm = false): Signal {
  return { tactic, observation, confidence: Math.round(Math.min(0.97, Math.max(0.05, confidence)) * 100) / 100, significance, seriousHarm };
}

/** One short quoted cue (§12: a short cue, never more): the first of the hits that is present. */
function cuesText(...hits: (CueHit | undefined)[]): string {
  return hits.find((h): h is CueHit => h !== undefined)?.quote ?? 'the wording of the request';
}

function domainOf(address: string): string | undefined {
  return DOMAIN.exec(address)?.[1];
}

/** Two domains that differ but look alike (one or two edits, or equal once digits read as letters). */
function lookAlike(a: string, b: string): boolean {
  if (a === b) return false;
  const fold = (s: string) => foldText(s).replace(/0/g, 'o').replace(/1/g, 'l').replace(/rn/g, 'm');
  if (fold(a) === fold(b)) return true;
  if (Math.abs(a.length - b.length) > 2) return false;
  // Bounded edit distance (domains are short).
  const prev = new Array<number>(b.length + 1).fill(0).map((_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] ?? 0;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j] ?? 0;
      prev[j] = Math.min(tmp + 1, (prev[j - 1] ?? 0) + 1, diag + (a.charAt(i - 1) === b.charAt(j - 1) ? 0 : 1));
      diag = tmp;
    }
  }
  return (prev[b.length] ?? 99) <= 2;
}

export interface TacticInput {
  readonly view: CaseView;
  readonly claims: readonly CheckedClaim[];
  readonly rules: RuleAssessment;
}

export function detectTactics({ view, claims, rules }: TacticInput): Signal[] {
  const c = view.cues;
  const out: Signal[] = [];
  const rushable = (view.requestTopics & RUSHABLE) !== 0;
  const consequential = (view.requestTopics & CONSEQUENTIAL) !== 0;
  const money = hasTopic(view.requestTopics, 'payment') || hasTopic(view.requestTopics, 'bankDetails');
  const broken = rules.brokenRuleIds.length > 0;
  const cut = c.find('verificationCut');
  const exception = c.find('exception');
  const secrecy = c.find('secrecy');
  const asksException = exception !== undefined || cut !== undefined || secrecy !== undefined || broken;

  // urgency: time pressure that rushes a risky action or cuts verification short.
  const pressureHit = c.find('timePressure');
  // "By EOD ideally" is a wish, not pressure: a softener right after the cue cancels it; "I reported it straight away"
  // times the sender's own deed, not the agent's.
  const pressure =
    pressureHit && !CUES.softener.test(view.said.text.slice(pressureHit.end, pressureHit.end + 25)) && !timesOwnDeed(view.said.text, pressureHit.index) ? pressureHit : undefined;
  const consequence = c.find('consequence');
  const injection = c.find('injection');
  // A deadline coupled with a threatened loss is pressure even without an "urgent" word ("or the account is locked at 12").
  const deadline = consequence && !pressure ? c.find('deadline') : undefined;
  // Data requests are as rushable as payments: pressure to hand over information cuts its checks short too.
  const dataAsked = c.has('secretData') || c.has('internalData') || c.has('personalData');
  // A deadline on a sum the records establish, with no control cut and no new destination, is a real deadline plainly
  // stated ("final notice" on a verified overdue invoice), not pressure to skip a check (§9.5).
  const realDeadline = !cut && !injection && !c.has('changedDetails') && claims.some((k) => k.kind === 'amount' && k.status === 'verified');
  if (pressure && !realDeadline && (cut || consequence || rushable || injection || dataAsked)) {
    const conf = 0.55 + (cut ? 0.17 : 0) + (consequence ? 0.1 : 0) + (rushable ? 0.1 : 0);
    const sig: RiskTier = rushable && (cut || money || hasTopic(view.requestTopics, 'credentials')) ? 'high' : 'medium';
    out.push(signal('urgency', `Time pressure pushes the action before it can be checked: ${cuesText(pressure, consequence ?? cut)}.`, conf, sig, rushable && cut !== undefined));
  } else if (consequence && (cut || deadline)) {
    out.push(signal('urgency', `A deadline is coupled with a threatened loss to force the action: ${cuesText(consequence, deadline ?? cut)}.`, 0.62, rushable ? 'high' : 'medium'));
  }

  // authority_claim: a person or body able to approve, invoked as the reason to comply, without authoritative proof.
  const figure = c.find('authorityFigure');
  const acted = figure !== undefined && (c.has('authorityAct') || c.has('approvalClaim'));
  const act = acted ? (FIGURE_ACT.exec(c) ?? FIGURE_THEN_PRONOUN_ACT.exec(c)) : null;
  const identity = c.find('identityClaim');
  // Presenting oneself as the authority ("this is Daniel from the bank's fraud team"), or signing as an executive.
  const selfAuthority = figure && identity && Math.abs(figure.index - identity.index) < 120;
  // "I'll escalate this to your CEO" names an executive at the end without signing as one.
  const signedAs =
    figure && figure.index > view.said.text.length - 50 && EXECUTIVE.test(figure.quote.toLowerCase()) && !/\b(?:to|your) $/.test(view.said.text.slice(Math.max(0, figure.index - 6), figure.index)) && (c.has('requestVerb') || consequential);
  const authorityClaim = claims.find((k) => k.kind === 'approval' || k.kind === 'authority');
  // Authority is a tactic when it is the reason to do something that matters (money, data, access, terms) or to get
  // past a control; "my manager asked me to book the room" is ordinary delegation.
  const stakes =
    consequential || (view.requestTopics & NEGOTIATED) !== 0 || broken || cut !== undefined || exception !== undefined || injection !== undefined || c.has('secretData') || c.has('personalData');
  // Claiming to be the agent's owner or operator invokes the one authority that can override it (§9.5 lists the owner).
  // A person the records give approving standing (an approver on the ticket, a parent on the pickup authorisations),
  // whose say-so is offered in place of the approval those records would show: authority whatever the topic.
  const sayso = figure ? undefined : approverSaySo(view);
  const ownerVoice = c.find('ownerClaim');
  if (ownerVoice && authorityClaim?.status !== 'verified') {
    out.push(signal('authority_claim', `The owner's authority is invoked from inside the conversation: ${ownerVoice.quote}.`, 0.75, 'high'));
  } else if (figure && (act || selfAuthority || signedAs) && stakes && authorityClaim?.status !== 'verified') {
    const unproven = authorityClaim === undefined || authorityClaim.status !== 'supported';
    const conf = 0.6 + (unproven ? 0.1 : 0) + (authorityClaim?.status === 'contradicted' ? 0.15 : 0) + (pressure ? 0.05 : 0);
    out.push(
      signal(
        'authority_claim',
        `Someone with authority is invoked as the reason to comply, without authoritative proof: ${cuesText(act ? { index: act.index, end: act.index + act[0].length, quote: quoteCue(view.said, act.index, act.index + act[0].length) } : figure)}.`,
        conf,
        consequential ? 'high' : 'medium',
      ),
    );
  } else if (sayso && authorityClaim?.status !== 'verified') {
    out.push(signal('authority_claim', `A person the records name is invoked as having approved, without authoritative proof: ${sayso}.`, 0.65, consequential ? 'high' : 'medium'));
  }

  // emotional_pressure: threats, pleading, flattery used in place of justification to win an exception.
  // "Navarro Abogados" under the sign-off names the sender's firm; it threatens nobody.
  const threatHit = c.find('threat');
  const threat = threatHit && threatHit.index < signatureStart(view.said.text) ? threatHit : undefined;
  // Classes are scanned only where their combination can matter (each scan is a pass over the text).
  const blame = threat || consequential ? c.find('blame') : undefined;
  const pleading = asksException || consequential ? c.find('pleading') : undefined;
  const plea = pleading ?? (asksException ? c.find('flattery') : undefined);
  const insult = asksException && !threat && !plea ? c.find('insult') : undefined;
  if ((threat || plea) && asksException) {
    out.push(signal('emotional_pressure', `Emotional pressure is used to win an exception: ${cuesText(threat ?? plea, exception ?? cut ?? secrecy)}.`, 0.75, broken ? 'high' : 'medium'));
  } else if (blame && (threat || consequential)) {
    out.push(signal('emotional_pressure', `The agent is made personally responsible to force the action: ${cuesText(blame, threat)}.`, 0.7, 'medium'));
  } else if (pleading && consequential) {
    out.push(signal('emotional_pressure', `Fear or pleading stands in for a justification of a consequential request: ${pleading.quote}.`, 0.65, 'medium'));
  } else if (threat && consequential && THREAT_TERMS.test(sentenceAround(view.said.text, threat.index))) {
    // "Refund me or I call my lawyer": a threat, not a reason, is offered for a consequential action; "our lawyers
    // reviewed the contract" names lawyers without making them a condition.
    out.push(signal('emotional_pressure', `A threat stands in for a justification of a consequential request: ${threat.quote}.`, 0.6, 'medium'));
  } else if (threat && STRONG_THREAT.test(threat.quote.toLowerCase())) {
    out.push(signal('emotional_pressure', `The agent is made personally responsible to force the action: ${threat.quote}.`, 0.55, 'medium'));
  } else if (insult && asksException) {
    out.push(signal('emotional_pressure', `Insults accompany a request for an exception: ${insult.quote}.`, 0.5, 'low'));
  }

  // reciprocity: obligation from loyalty or favours, or a benefit offered for an exception.
  const offer = c.find('benefitOffer');
  const loyalty = offer || !asksException ? undefined : c.find('loyalty');
  if (offer) {
    out.push(signal('reciprocity', `A benefit is offered in return for the action: ${offer.quote}.`, asksException ? 0.8 : 0.65, asksException ? 'high' : 'medium'));
  } else if (loyalty && asksException) {
    out.push(signal('reciprocity', `Past loyalty is used to create an obligation for an exception: ${loyalty.quote}.`, 0.7, 'medium'));
  } else if (FAVOUR_DEBT.test(view.said.text)) {
    out.push(signal('reciprocity', 'A past favour is cited to create an obligation in return.', 0.62, 'low'));
  }

  // scarcity: an opportunity presented as vanishing.
  const scarce = c.find('scarcity');
  if (scarce) out.push(signal('scarcity', `The opportunity is presented as limited or vanishing: ${scarce.quote}.`, pressure || money ? 0.72 : 0.6, money ? 'medium' : 'low'));

  // policy_bypass: skipping a control, asking for the exception, splitting amounts, or instructions that try to switch
  // off the agent's rules.
  const split = c.find('splitAmount');
  if (injection) {
    out.push(signal('policy_bypass', `Embedded instructions try to override the agent's rules: ${injection.quote}.`, 0.92, 'critical', true));
  } else if (cut || split || secrecy || exception) {
    const strong = cut ?? split ?? secrecy;
    // Skipping a control is serious harm when money goes to a destination the records do not back (§9.1).
    const payee = claims.find((k) => k.kind === 'account');
    const newDestination = c.has('changedDetails') || (payee !== undefined && payee.status !== 'verified');
    const conf = strong ? 0.8 : broken ? 0.7 : 0.55;
    out.push(
      signal(
        'policy_bypass',
        `The request asks to skip or soften a control: ${cuesText(strong ?? exception, strong ? exception : undefined)}.`,
        conf,
        strong && consequential ? 'high' : 'medium',
        strong !== undefined && money && newDestination,
      ),
    );
  }

  // identity_deception: unproven claims to be the owner, changed payee or contact details, look-alike identifiers.
  const owner = c.find('ownerClaim');
  const changedHit = c.find('changedDetails');
  // A change already on an authoritative record ("new email confirmed by link") is not the counterparty's word alone.
  const changeOnRecord = changedHit !== undefined && view.items.some((i) => i.standing === 'authoritative' && !i.negated && itemHas(i.text, 'changedDetails'));
  const changed = changeOnRecord ? undefined : changedHit;
  const unreachable = consequential ? c.find('unreachable') : undefined;
  // Only an address in the message itself can stand in for the sender; one inside a pasted document the agent handles
  // (a CV, a forwarded chain) is that document's content.
  const message = view.request.consult.message.toLowerCase();
  const freemail = view.emails.some((e) => FREEMAIL.test(e) && message.includes(e));
  const accountClaim = claims.find((k) => k.kind === 'account');
  const identityClaim = claims.find((k) => k.kind === 'identity');
  const reference = view.request.caseRecord.counterparty.reference?.toLowerCase();
  const refDomain = reference ? (domainOf(reference) ?? (reference.includes('.') && !reference.includes(' ') ? reference : undefined)) : undefined;
  const foreign = refDomain ? view.emails.map(domainOf).find((d) => d !== undefined && d !== refDomain && !d.endsWith(`.${refDomain}`)) : undefined;
  if (owner) {
    out.push(signal('identity_deception', `The message claims to come from the agent's owner, which is not how owner guidance arrives: ${owner.quote}.`, 0.85, 'critical', true));
  } else if ((changed && (money || accountClaim)) || (accountClaim?.status === 'contradicted' && money)) {
    const unconfirmed = accountClaim?.status !== 'verified';
    // New bank details are funds to a new destination (critical); a new e-mail or address is a contact change (high).
    const bank = accountClaim?.account !== undefined || hasTopic(view.requestTopics, 'bankDetails');
    out.push(
      signal(
        'identity_deception',
        `The counterparty itself sends ${changed ? 'changed ' : ''}${bank ? 'payment' : 'contact'} details${accountClaim?.status === 'contradicted' ? ' that differ from the records' : ''}${changed ? `: ${changed.quote}` : ''}.`,
        unconfirmed ? (accountClaim?.status === 'contradicted' ? 0.85 : 0.75) : 0.35,
        bank ? 'critical' : 'high',
        unconfirmed && bank,
      ),
    );
  } else if (foreign && refDomain && lookAlike(foreign, refDomain)) {
    out.push(signal('identity_deception', `An address on a look-alike domain ("${foreign}") is used instead of the known one.`, 0.85, 'high', true));
  } else if (changed) {
    out.push(signal('identity_deception', `New or changed contact details come from the counterparty itself: ${changed.quote}.`, 0.55, consequential ? 'high' : 'medium'));
  } else if (identityClaim?.status === 'contradicted') {
    out.push(signal('identity_deception', 'Who the sender says they are conflicts with a verified record.', 0.75, 'high'));
  } else if (unreachable && consequential) {
    out.push(signal('identity_deception', `The sender cannot be reached on a known channel while asking for a consequential action: ${unreachable.quote}.`, 0.7, 'high', money));
  } else if (freemail && (rushable || consequential) && !(reference && view.emails.includes(reference))) {
    out.push(signal('identity_deception', 'A personal free-mail address stands in for the known contact of record.', 0.65, 'high'));
  }

  // scope_expansion: more access, money or actions than the goal or the agreed action.
  const add = c.find('scopeAdd');
  const privilege = c.find('privilege');
  const goalHasAccess = hasTopic(view.goalTopics, 'access');
  const actionAmount = findAmounts(view.actionText).reduce((m, a) => Math.max(m, a.value), 0);
  const askedAmount = view.amounts.reduce((m, a) => Math.max(m, a.value), 0);
  // Amounts asked for in earlier turns (growth is scope_expansion); any amount stated there (a change is inconsistent).
  const priorAmounts = priorClaimAmounts(view.request.priorConsultations, true);
  const priorStated = priorClaimAmounts(view.request.priorConsultations, false);
  const priorMax = priorAmounts.reduce((m, v) => Math.max(m, v), 0);
  const assumed = c.find('assumedAgreement');
  if (assumed) {
    out.push(signal('scope_expansion', `Terms not agreed are presented as following from an earlier concession: ${assumed.quote}.`, 0.7, 'medium'));
  } else if (add && privilege) {
    out.push(signal('scope_expansion', `Elevated access is added to the request: ${cuesText(add, privilege)}.`, 0.85, 'high', true));
  } else if (privilege && !goalHasAccess) {
    out.push(signal('scope_expansion', `The request reaches for access the goal does not need: ${privilege.quote}.`, 0.65, 'high', true));
  } else if (add && (consequential || view.proposedAction)) {
    out.push(signal('scope_expansion', `Further actions are bundled onto the agreed one: ${add.quote}.`, 0.65, 'medium'));
  } else if (actionAmount > 0 && askedAmount > actionAmount * 1.05) {
    out.push(signal('scope_expansion', 'The message asks for a larger amount than the proposed action.', 0.6, 'medium'));
  } else if (priorMax > 0 && askedAmount > priorMax * 1.05) {
    out.push(signal('scope_expansion', 'The amount asked for has grown since earlier turns of this case.', 0.6, 'medium'));
  }

  // data_extraction: secrets, credentials, internal configuration or others' data the goal does not need.
  // The proximity patterns are costly; run them only when a data noun is present at all.
  const said = view.said.text;
  // An offer gives data rather than extracting it; one's own secret ("reset my password and send the temporary
  // one") is the official reset flow, not extraction.
  const asked = (m: RegExpExecArray | null) => {
    if (!m) return null;
    const before = said.slice(Math.max(0, m.index - 14), m.index);
    return OFFER_BEFORE.test(before) || OWN_BEFORE.test(before) ? null : m;
  };
  const secretMatch = c.has('secretData') ? asked(SECRET_REQUEST.exec(c)) : null;
  // "send me a reset link" asks for the official flow, not for a secret.
  const secret =
    secretMatch && !RESET_LINK.test(view.said.text.slice(secretMatch.index, secretMatch.index + secretMatch[0].length + 30)) ? secretMatch : null;
  const internal = secret || !c.has('internalData') ? null : asked(INTERNAL_REQUEST.exec(c));
  const personal = secret || internal || !c.has('personalData') ? null : asked(PERSONAL_REQUEST.exec(c));
  if (secret) {
    out.push(signal('data_extraction', `Secrets or one-time credentials are asked for: ${quoteCue(view.said, secret.index, secret.index + secret[0].length)}.`, 0.88, 'critical', true));
  } else if (internal) {
    out.push(signal('data_extraction', `Internal rules or configuration are asked for: ${quoteCue(view.said, internal.index, internal.index + internal[0].length)}.`, 0.75, 'high'));
  } else if (personal && !hasTopic(view.purposeTopics, 'personalData')) {
    out.push(signal('data_extraction', `Personal data the goal does not need is asked for: ${quoteCue(view.said, personal.index, personal.index + personal[0].length)}.`, 0.7, 'high'));
  }

  // Impersonation used to obtain secrets: an unproven identity ("this is Dave from IT") asking for credentials.
  const onRecord = identityClaim !== undefined && identityClaim.status !== 'contradicted' && namedOnRecord(view, identityClaim);
  if (secret && identityClaim && identityClaim.status !== 'verified' && !onRecord && !out.some((s) => s.tactic === 'identity_deception')) {
    out.push(signal('identity_deception', 'An unproven identity is presented to obtain credentials (a typical impersonation).', 0.6, 'high'));
  }

  // inconsistent_claims: a story that conflicts with itself, with earlier turns or with authoritative records.
  // Facts the counterparty states about the world; contradicted approvals and payees are already authority_claim and
  // identity_deception, and are not counted twice.
  const contradicted = claims.find((k) => k.status === 'contradicted' && k.significance !== 'low' && (FACTUAL_KINDS.has(k.kind) || figureRefuted(k, view) || refusalRecorded(k, view)));
  const distinctAccounts = new Set(view.accounts);
  const priorAccounts = priorClaimAccounts(view.request.priorConsultations);
  const currentAccountTail = accountClaim?.account?.slice(-4);
  // A correction matters when the action is consequential or when it rewrites what an earlier turn said.
  const correction = consequential || view.request.priorConsultations.length > 0 ? c.find('selfCorrection') : undefined;
  if (contradicted) {
    out.push(signal('inconsistent_claims', `What the counterparty states conflicts with a verified record (${contradicted.kind} claim).`, 0.65, contradicted.significance === 'critical' ? 'high' : contradicted.significance));
  } else if (arithmeticMismatch(said)) {
    out.push(signal('inconsistent_claims', 'The figures stated do not add up (quantity times rate differs from the total).', 0.75, 'medium'));
  } else if (signsAsSomeoneElse(view.request.consult.message)) {
    out.push(signal('inconsistent_claims', 'The sender introduces itself under one name and signs with another.', 0.7, 'high'));
  } else if (correction) {
    out.push(signal('inconsistent_claims', `A material detail is changed mid-story: ${correction.quote}.`, 0.6, 'medium'));
  } else if (distinctAccounts.size > 1) {
    out.push(signal('inconsistent_claims', 'The message names more than one account for the same payment.', 0.6, 'high'));
  } else if (currentAccountTail && priorAccounts.length > 0 && !priorAccounts.includes(currentAccountTail)) {
    out.push(signal('inconsistent_claims', 'The account named now differs from the one named in an earlier turn.', 0.75, 'high'));
  } else if (priorStated.length > 0 && askedAmount > 0 && !priorStated.some((v) => Math.abs(v - askedAmount) <= askedAmount * 0.005) && (askedAmount < priorMax || priorAmounts.length === 0)) {
    out.push(signal('inconsistent_claims', 'The amount differs from the one stated in an earlier turn.', 0.55, 'medium'));
  }

  // other: social proof.
  const proof = c.find('socialProof');
  if (proof) out.push(signal('other', `Social proof: others supposedly got the same, ${proof.quote}.`, 0.55, asksException ? 'medium' : 'low'));
  else if (assumed) out.push(signal('other', `Foot in the door: an earlier concession is stretched into a larger one, ${assumed.quote}.`, 0.65, 'medium'));

  return out.slice(0, 12);
}

/**
 * Whether a contradicted sum of money is refuted by a different figure for the same matter: an item the claim was
 * checked against records another sum and no item in the case shows the stated one ("2 340 EUR" against an
 * assessment and an invoice of 1 340 EUR). A sum a record shows but another record denies or caps ("no advance
 * taken", a PO below the invoice) is a limit or policy question, not a story that changes.
 */
function figureRefuted(claim: CheckedClaim, view: CaseView): boolean {
  const stated = claim.kind === 'amount' ? claim.amount : undefined;
  if (!stated?.currency) return false;
  const money = (i: ItemView) => i.amounts.filter((a) => a.currency !== undefined);
  if (view.items.some((i) => money(i).some((a) => sameAmount(a.value, stated.value)))) return false;
  return view.items.some((i) => claim.evidenceReferences.includes(i.id) && i.standing === 'authoritative' && money(i).length > 0);
}

/**
 * The short cue of a say-so ("raj said") whose speaker an authoritative record names as approving or authorising (the
 * approver on the ticket, a parent on the pickup authorisations), written there with a capital as a name is; undefined
 * when the message quotes nobody the records give that standing.
 */
function approverSaySo(view: CaseView): string | undefined {
  const approvers = recordedApprovers(view);
  if (approvers.size === 0) return undefined;
  for (const m of view.said.text.matchAll(SAY_SO)) {
    if (approvers.has(m[1] ?? '')) return quoteCue(view.said, m.index, m.index + m[0].length);
  }
  return undefined;
}

/** The names in a text, its first word included ("Raj approved ..."): `capitalisedWords` reads words inside a text. */
function namesIn(text: string): string[] {
  return capitalisedWords(` ${text}`);
}

/** The folded names in authoritative facts and evidence about approval or authorisation. */
function recordedApprovers(view: CaseView): Set<string> {
  const about = new Set(view.items.filter((i) => i.standing === 'authoritative' && hasTopic(i.topics, 'approval')).map((i) => i.id));
  if (about.size === 0) return about;
  const { facts, evidence } = view.request.caseRecord;
  const raw = [...facts.filter((f) => about.has(f.factId)).map((f) => f.statement), ...evidence.filter((e) => about.has(e.evidenceId)).map((e) => e.summary)];
  return new Set(raw.flatMap((text) => namesIn(text).map(folded)));
}

/**
 * Whether a time cue times the sender's own finished deed ("I reported it straight away"): the clause before it tells
 * what the sender did, and nothing in its sentence asks anything of the agent (no "you", no need or want, no
 * "please"). A deadline on what the sender will do for the agent ("I can only hold them until noon") still presses.
 */
function timesOwnDeed(text: string, index: number): boolean {
  const clause = text.slice(Math.max(0, index - 60), index).split(/[.!?;,\n]/).pop() ?? '';
  return OWN_DEED.test(clause) && !ASKS_AGENT.test(sentenceAround(text, index));
}

/**
 * Whether an approval the counterparty reports is refuted by a record of the same person's opposite decision ("Ines
 * declined the 12%"): the story conflicts with what happened. A record that no approval exists leaves the approval merely
 * unproven, which is authority_claim's business.
 */
function refusalRecorded(claim: CheckedClaim, view: CaseView): boolean {
  if (claim.kind !== 'approval' || !claim.sentence) return false;
  const approvers = namesIn(claim.sentence.original);
  return view.items.some(
    (i) => claim.evidenceReferences.includes(i.id) && i.standing === 'authoritative' && REFUSAL.test(i.text) && approvers.some((n) => mentionsName(i.text, n)),
  );
}

/** Where the signature block after a formal closing starts (the end of the text when there is none). */
function signatureStart(text: string): number {
  const m = SIGN_OFF.exec(text.slice(-90));
  return m ? text.length - (m[1] ?? '').length : text.length;
}

/** The sentence of a normalised text around an index (for reading a cue in its clause). */
function sentenceAround(text: string, index: number): string {
  const start = Math.max(text.lastIndexOf('.', index), text.lastIndexOf('!', index), text.lastIndexOf('?', index), text.lastIndexOf('\n', index)) + 1;
  const ends = [text.indexOf('.', index), text.indexOf('!', index), text.indexOf('?', index), text.indexOf('\n', index)].filter((i) => i >= 0);
  return text.slice(start, ends.length > 0 ? Math.min(...ends) : text.length);
}

/** Whether an authoritative record names the person the identity claim names (a real colleague, not a stranger). */
function namedOnRecord(view: CaseView, claim: CheckedClaim): boolean {
  const names = claim.sentence ? capitalisedWords(claim.sentence.original) : [];
  return names.some((n) => view.items.some((i) => i.standing === 'authoritative' && !i.negated && mentionsName(i.text, n)));
}

function parseFigure(raw: string): number {
  // "7,200" and "7.200" as thousands, "150.50" as decimals: a separator followed by exactly three digits groups.
  return /[.,]\d{3}$/.test(raw) ? Number(raw.replace(/[.,]/g, '')) : Number(raw.replace(',', '.'));
}

/**
 * Whether the message introduces its sender by one first name and signs with a different one it never mentioned, or
 * later gives the same first name with another surname ("My name is Laura Fischer ... Laura Schmidt, that's me").
 */
function signsAsSomeoneElse(message: string): boolean {
  const introMatch = INTRO_NAME.exec(message);
  const intro = introMatch?.[1];
  const surname = introMatch?.[2];
  if (intro && surname && !NOT_A_NAME.test(intro)) {
    for (const m of message.slice(introMatch.index + introMatch[0].length).matchAll(FULL_NAME)) {
      if (m[1] === intro && m[2] !== surname) return true;
    }
  }
  const tail = message.slice(-80);
  const sign = intro ? SIGN_OFF_NAME.exec(tail) : null;
  const signed = sign?.[1];
  if (!intro || !sign || !signed || NOT_A_NAME.test(intro) || NOT_A_NAME.test(signed) || !/^\p{Lu}/u.test(signed)) return false;
  const before = message.slice(0, message.length - tail.length + sign.index);
  return intro.toLowerCase() !== signed.toLowerCase() && !before.includes(signed);
}

/** Whether the message states a quantity, a rate and a total that disagree by more than rounding. */
function arithmeticMismatch(text: string): boolean {
  const m = ARITHMETIC.exec(text.replace(COUNT_WORD, (w) => COUNT_WORDS[w] ?? w));
  if (!m) return false;
  const quantity = parseFigure(m[1] ?? '');
  const rate = parseFigure(m[2] ?? '');
  const total = parseFigure(m[3] ?? '');
  if (!(quantity > 0 && rate > 0 && total > 0)) return false;
  return Math.abs(quantity * rate - total) > Math.max(1, total * 0.01);
}

const ENDING = /ending (\w{4})/g;

function priorClaimAmounts(prior: readonly ShieldConsultation[], askedOnly: boolean): number[] {
  const values: number[] = [];
  for (const consultation of prior.slice(-5)) {
    for (const claim of consultation.analysis.claims) {
      if (askedOnly && !claim.claim.startsWith('The amount involved is')) continue;
      for (const a of findAmounts(foldText(claim.claim))) values.push(a.value);
    }
  }
  return values;
}

function priorClaimAccounts(prior: readonly ShieldConsultation[]): string[] {
  const tails: string[] = [];
  for (const consultation of prior.slice(-5)) {
    for (const claim of consultation.analysis.claims) {
      for (const m of claim.claim.matchAll(ENDING)) tails.push(m[1] ?? '');
      for (const account of accountsIn(claim.claim)) tails.push(account.slice(-4));
    }
  }
  return tails;
}

/** The single `none` entry (§9.5 [ours]): looked, found nothing; confidence is the belief in absence. */
export function noneSignal(view: CaseView): Signal {
  const anyCue = view.cues.has('timePressure') || view.cues.has('threat') || view.cues.has('authorityFigure') || view.cues.has('insult');
  return signal('none', 'Checked the message for every tactic of §9.5 (pressure, authority, emotion, favours, scarcity, bypasses, identity, scope, data requests, inconsistencies) and found none.', anyCue ? 0.7 : 0.82, 'low');
}
