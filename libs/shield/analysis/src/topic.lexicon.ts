/**
 * What a text is about: refunds, payments, bank details, credentials, access, personal data, ... in four languages.
 * Topics decide which policies and records bear on a request (§9.4 "nothing in the case bears on it"; §9.1 "fits every
 * known policy"), and which data the goal needs (§9.5 data_extraction: "information the goal does not need").
 */
import { prefilterKeys, StartTable } from './cue.prefilter';
import { foldPattern } from './text.normalizer';

export const TOPICS = [
  'refund',
  'payment',
  'bankDetails',
  'credentials',
  'access',
  'personalData',
  'discount',
  'deletion',
  'delivery',
  'contract',
  'identity',
  'approval',
] as const;
export type Topic = (typeof TOPICS)[number];

const TOPIC_SOURCES: Record<Topic, string> = {
  refund: String.raw`\b(?:refund|reimburs|money back|chargeback|erstatt|rückerstatt|rückzahl|geld zurück|zurückbekomm|zurückzahl|reembols|devoluci|devolver el dinero|(?:devolv|devuelv)\w* (?:el|mi|nuestro|su) dinero|rembours)\w*`,
  payment: String.raw`\b(?:gift ?card|gutschein|tarjetas? regalo|cartes? cadeaux?|payroll|nomina|nómina|lohn|gehaltskonto|paie|pay|paid|unpaid|payment|transfer|wire|invoice|remit|settle|payout|funds\b|deposit|down payment|advance payment|rent\b|tuition|premium\b|escrow|bitcoin|crypto|usdt|kaution|miete\b|fianza|alquiler|loyer|acompte|charge|billing|bill\b|überweis|zahl|rechnung|bezahl|pago|pagar|transferencia|factura|abono|paiement|payer|virement|facture|règlement)\w*`,
  bankDetails: String.raw`\b(?:iban|bic|swift|sort code|routing number|bank ?(?:details|account|information|info)|account (?:number|details)|payee|beneficiar|bankverbindung|kontonummer|kontodaten|bankdaten|empfänger|cuenta bancaria|datos bancarios|número de cuenta|beneficiario|rib|coordonnées bancaires|numéro de compte|bénéficiaire)\w*`,
  credentials: String.raw`\b(?:password|passwd|passcode|otp|one[- ]time|2fa|mfa|pin\b|credential|login|log in|sign[- ]in|verification code|security code|reset code|api key|access token|private key|seed phrase|recovery phrase|backup code|recovery code|zugangscode|clave de acceso|datos de acceso|code d'accès|passwort|kennwort|zugangsdaten|anmeld|tan\b|contraseña|credenciales|código de verificación|mot de passe|identifiant|code de vérification)\w*`,
  access: String.raw`\b(?:access|permission|admin|administrator|role\b|privilege|root\b|superuser|vpn\b|badge|door code|zugriff|zugang|berechtigung|rechte|acceso|permiso|privilegio|accès|droits|habilitation)\w*`,
  personalData: String.raw`\b(?:personal data|customer data|customer list|client list|employee list|staff list|kundenliste|mitarbeiterliste|lista de clientes|liste des clients|date of birth|home address|address|phone number|email address|salary|medical|passport|personaldaten|personenbezogen|adresse|geburtsdatum|gehalt|datos personales|dirección|domicilio|fecha de nacimiento|salario|données personnelles|date de naissance|salaire)\w*`,
  discount: String.raw`\b(?:discount|price|pricing|rebate|coupon|rabatt|preis|nachlass|descuento|precio|rebaja|remise|réduction|prix|ristourne)\w*`,
  deletion: String.raw`\b(?:delete|deletion|erase|remove|purge|wipe|lösch|entfern|borrar|eliminar|suprimir|supprim|effacer)\w*`,
  delivery: String.raw`\b(?:deliver|shipping|shipment|ship|parcel|package|tracking|liefer|versand|paket|sendung|entrega|envío|paquete|livraison|livré|colis|expédition)\w*`,
  contract: String.raw`\b(?:contract|agreement|terms|renewal|subscription|vertrag|vereinbarung|abonnement|contrato|acuerdo|suscripción|contrat|accord|abonnement)\w*`,
  identity: String.raw`\b(?:identity|identit|sender|caller|domain|absender|anrufer|remitente|expéditeur|appelant)\w*`,
  approval: String.raw`\b(?:agree|declin|reject|refus|turned down|abgelehnt|lehnte|rechaz|amendment|zugestimm|einverstand|änderungsauftrag|acept|pactad|enmienda|avenant|approv|authori[sz]|sign[- ]off|genehmig|freigabe|freigegeben|zustimm|aprob|autoriz|visto bueno|approb|approuv|autoris|validé|validation)\w*`,
};

const TOPIC_PATTERNS: readonly (readonly [Topic, RegExp])[] = TOPICS.map((t) => [t, new RegExp(foldPattern(TOPIC_SOURCES[t]))]);

export const TOPIC_PATTERN: Readonly<Record<Topic, RegExp>> = Object.fromEntries(TOPIC_PATTERNS) as Record<Topic, RegExp>;

const TOPIC_STICKY: readonly RegExp[] = TOPIC_PATTERNS.map(([, pattern]) => new RegExp(pattern.source, 'y'));
const TOPIC_STARTS = new StartTable(TOPICS.map((t) => prefilterKeys([foldPattern(TOPIC_SOURCES[t])])));

/**
 * The topics a normalised text touches, as a bit set (fast intersection for 100+ items). Each topic is tried only at
 * the word starts where one of its words may begin (`WordStarts`).
 */
export function topicsOf(text: string): number {
  const starts = TOPIC_STARTS.startsOf(text);
  let bits = 0;
  for (let i = 0; i < TOPIC_PATTERNS.length; i++) {
    const [, pattern] = TOPIC_PATTERNS[i] as (typeof TOPIC_PATTERNS)[number];
    if (starts.find(text, i, pattern, TOPIC_STICKY[i] as RegExp)) bits |= 1 << i;
  }
  return bits;
}

export function topicBit(topic: Topic): number {
  return 1 << TOPICS.indexOf(topic);
}

export function hasTopic(bits: number, topic: Topic): boolean {
  return (bits & topicBit(topic)) !== 0;
}

/** Topics that decide a request's consequence; approval/identity alone make no request relevant to a policy. */
export const SUBJECT_TOPICS_MASK = TOPICS.reduce((mask, t, i) => (t === 'approval' || t === 'identity' ? mask : mask | (1 << i)), 0);
