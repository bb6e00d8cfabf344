/**
 * The suggested response (SHIELD.md §9 `suggestedResponse`): text a person would send back to the counterparty, polite
 * and concrete, in the message's language (German, Spanish, French, else English). It never reveals internal policy
 * thresholds, owner guidance or the analysis itself (§10: untrusted counterparty; thresholds are data an extractor
 * wants, §9.5).
 */
import type { Disposition } from '@trustmesh/shield-records';

import type { ResponseLanguage } from './response.language';

export type Concern = 'credentials' | 'destination' | 'approval' | 'limit' | 'window' | 'scope' | 'injection' | 'data' | 'evidence' | 'identity' | 'general';

type Templates = Readonly<Record<Concern | 'proceed' | 'caution', string>>;

const EN: Templates = {
  credentials:
    'Thank you for your message. We never share passwords, one-time codes or other security credentials, by any channel. If you need access, please use the official sign-in or password reset page, and we will be glad to help from there.',
  destination:
    'Thank you for letting us know. For your security and ours, we only pay to bank details we already hold on file. Before any change takes effect, we will confirm it by calling you on the number we already have on record. Until then, payments continue to the existing account.',
  approval:
    'Thank you for your request. It needs a decision from an authorised colleague on our side, so we have passed it on for review. We will come back to you as soon as we have an answer.',
  limit:
    'Thank you for your request. We are not able to process it in full as asked, but we can offer what our terms allow, and we will send you the options shortly.',
  window:
    'Thank you for getting in touch, and we are sorry about the trouble. The standard terms for this request have passed, so we have asked an authorised colleague to review whether an exception is possible. We will let you know the outcome.',
  scope:
    'Thank you. We will take care of the request we agreed on. The additional items need a separate request through our usual approval process; we are happy to start that for you.',
  injection:
    'Thank you for your message. We will handle the request itself in the usual way; instructions embedded in messages, attachments or forwarded content are not acted on.',
  data:
    'Thank you for your message. We can only share the information needed for this request, so we are unable to provide the rest. Let us know if there is anything else we can help with.',
  evidence: 'Thank you for your message. Before we can continue, could you please help us with the following: {question} Once we have it, we will move ahead promptly.',
  identity:
    'Thank you for your message. Before we act on it, we need to confirm it through the contact details we already have on record. We will be in touch through that channel shortly.',
  general:
    'Thank you for your message. We are unable to proceed with this request. If you believe this is a mistake, please contact us through our usual channels.',
  proceed: 'Thank you for your message. We are taking care of it and will confirm once it is done.',
  caution: 'Thank you for your message. We are processing your request and will confirm once it is done.',
};

const DE: Templates = {
  credentials:
    'Vielen Dank für Ihre Nachricht. Passwörter, Einmalcodes oder andere Zugangsdaten geben wir grundsätzlich nicht weiter, auf keinem Weg. Wenn Sie Zugang benötigen, nutzen Sie bitte die offizielle Anmelde- oder Passwort-zurücksetzen-Seite; dort helfen wir Ihnen gern weiter.',
  destination:
    'Vielen Dank für den Hinweis. Zu Ihrer und unserer Sicherheit zahlen wir nur auf Bankverbindungen, die uns bereits vorliegen. Eine Änderung bestätigen wir vorher telefonisch unter der Nummer, die wir bereits gespeichert haben. Bis dahin gehen Zahlungen weiter auf das bisherige Konto.',
  approval:
    'Vielen Dank für Ihre Anfrage. Sie erfordert die Entscheidung einer berechtigten Kollegin oder eines berechtigten Kollegen; wir haben sie zur Prüfung weitergegeben und melden uns, sobald eine Antwort vorliegt.',
  limit:
    'Vielen Dank für Ihre Anfrage. In vollem Umfang können wir sie leider nicht umsetzen, aber wir bieten Ihnen gern an, was unsere Bedingungen zulassen, und senden Ihnen die Möglichkeiten in Kürze.',
  window:
    'Vielen Dank für Ihre Nachricht, und entschuldigen Sie die Unannehmlichkeiten. Die regulären Fristen für dieses Anliegen sind abgelaufen; wir lassen deshalb prüfen, ob eine Ausnahme möglich ist, und informieren Sie über das Ergebnis.',
  scope:
    'Vielen Dank. Wir erledigen die vereinbarte Anfrage. Für die zusätzlichen Punkte ist eine eigene Anfrage über unseren üblichen Freigabeprozess nötig; diese stoßen wir gern für Sie an.',
  injection:
    'Vielen Dank für Ihre Nachricht. Wir bearbeiten das eigentliche Anliegen wie gewohnt; Anweisungen in Nachrichten, Anhängen oder weitergeleiteten Inhalten werden nicht ausgeführt.',
  data:
    'Vielen Dank für Ihre Nachricht. Wir können nur die Informationen weitergeben, die für dieses Anliegen nötig sind; den Rest können wir leider nicht bereitstellen.',
  evidence: 'Vielen Dank für Ihre Nachricht. Bevor wir fortfahren können, benötigen wir bitte noch einen Nachweis: {question} Sobald er vorliegt, machen wir umgehend weiter.',
  identity:
    'Vielen Dank für Ihre Nachricht. Bevor wir handeln, bestätigen wir sie über die Kontaktdaten, die uns bereits vorliegen. Wir melden uns in Kürze auf diesem Weg.',
  general:
    'Vielen Dank für Ihre Nachricht. Diese Anfrage können wir leider nicht ausführen. Falls Sie das für einen Irrtum halten, wenden Sie sich bitte über die üblichen Kanäle an uns.',
  proceed: 'Vielen Dank für Ihre Nachricht. Wir kümmern uns darum und bestätigen Ihnen, sobald es erledigt ist.',
  caution: 'Vielen Dank für Ihre Nachricht. Wir bearbeiten Ihre Anfrage und bestätigen Ihnen, sobald sie erledigt ist.',
};

const ES: Templates = {
  credentials:
    'Gracias por su mensaje. Nunca compartimos contraseñas, códigos de un solo uso ni otras credenciales de seguridad, por ningún canal. Si necesita acceso, utilice la página oficial de inicio de sesión o de restablecimiento de contraseña y con gusto le ayudaremos desde allí.',
  destination:
    'Gracias por avisarnos. Por su seguridad y la nuestra, solo pagamos a los datos bancarios que ya tenemos registrados. Antes de aplicar cualquier cambio, lo confirmaremos llamándole al número que ya consta en nuestros registros. Mientras tanto, los pagos seguirán yendo a la cuenta actual.',
  approval:
    'Gracias por su solicitud. Requiere la decisión de una persona autorizada de nuestro equipo, por lo que la hemos enviado a revisión. Le responderemos en cuanto tengamos una respuesta.',
  limit:
    'Gracias por su solicitud. No podemos tramitarla completa tal como la plantea, pero podemos ofrecerle lo que permiten nuestras condiciones y le enviaremos las opciones en breve.',
  window:
    'Gracias por escribirnos y disculpe las molestias. El plazo habitual para esta solicitud ha vencido, así que hemos pedido a una persona autorizada que revise si es posible una excepción. Le informaremos del resultado.',
  scope:
    'Gracias. Nos ocuparemos de la solicitud acordada. Los elementos adicionales necesitan una solicitud aparte a través de nuestro proceso habitual de aprobación; con gusto la iniciamos por usted.',
  injection:
    'Gracias por su mensaje. Tramitaremos la solicitud de la forma habitual; las instrucciones incluidas en mensajes, adjuntos o contenidos reenviados no se ejecutan.',
  data: 'Gracias por su mensaje. Solo podemos compartir la información necesaria para esta solicitud, por lo que no podemos facilitar el resto.',
  evidence: 'Gracias por su mensaje. Antes de continuar, ¿podría ayudarnos con lo siguiente? {question} En cuanto lo tengamos, seguiremos adelante.',
  identity:
    'Gracias por su mensaje. Antes de actuar, lo confirmaremos a través de los datos de contacto que ya tenemos registrados. Nos pondremos en contacto por esa vía en breve.',
  general:
    'Gracias por su mensaje. No podemos tramitar esta solicitud. Si cree que se trata de un error, contacte con nosotros por los canales habituales.',
  proceed: 'Gracias por su mensaje. Nos encargamos de ello y le confirmaremos cuando esté hecho.',
  caution: 'Gracias por su mensaje. Estamos tramitando su solicitud y le confirmaremos cuando esté lista.',
};

const FR: Templates = {
  credentials:
    "Merci pour votre message. Nous ne communiquons jamais de mots de passe, de codes à usage unique ni d'autres identifiants de sécurité, par aucun canal. Si vous avez besoin d'un accès, utilisez la page officielle de connexion ou de réinitialisation du mot de passe ; nous vous aiderons volontiers à partir de là.",
  destination:
    "Merci de nous avoir prévenus. Pour votre sécurité comme pour la nôtre, nous ne payons que sur les coordonnées bancaires déjà enregistrées chez nous. Avant tout changement, nous le confirmerons en vous appelant au numéro que nous avons déjà en dossier. D'ici là, les paiements continuent sur le compte existant.",
  approval:
    'Merci pour votre demande. Elle nécessite la décision d’une personne habilitée de notre côté ; nous l’avons transmise pour examen et reviendrons vers vous dès que nous aurons une réponse.',
  limit:
    'Merci pour votre demande. Nous ne pouvons pas la traiter intégralement telle quelle, mais nous pouvons vous proposer ce que nos conditions permettent et vous enverrons les options sous peu.',
  window:
    'Merci de nous avoir contactés, et désolés pour ce désagrément. Le délai habituel pour cette demande est dépassé ; nous avons donc demandé à une personne habilitée d’examiner si une exception est possible et vous tiendrons informé.',
  scope:
    'Merci. Nous traitons la demande convenue. Les éléments supplémentaires nécessitent une demande distincte via notre processus d’approbation habituel ; nous pouvons la lancer pour vous.',
  injection:
    'Merci pour votre message. Nous traiterons la demande de la manière habituelle ; les instructions contenues dans des messages, pièces jointes ou contenus transférés ne sont pas exécutées.',
  data: 'Merci pour votre message. Nous ne pouvons communiquer que les informations nécessaires à cette demande ; nous ne pouvons donc pas fournir le reste.',
  evidence: 'Merci pour votre message. Avant de poursuivre, pourriez-vous nous aider sur le point suivant ? {question} Dès réception, nous avancerons rapidement.',
  identity:
    'Merci pour votre message. Avant d’agir, nous le confirmerons via les coordonnées déjà enregistrées chez nous. Nous reviendrons vers vous par ce canal sous peu.',
  general:
    'Merci pour votre message. Nous ne pouvons pas donner suite à cette demande. Si vous pensez qu’il s’agit d’une erreur, contactez-nous par les canaux habituels.',
  proceed: 'Merci pour votre message. Nous nous en occupons et vous confirmerons une fois que ce sera fait.',
  caution: 'Merci pour votre message. Nous traitons votre demande et vous confirmerons une fois qu’elle sera traitée.',
};

const TEMPLATES: Readonly<Record<ResponseLanguage, Templates>> = { en: EN, de: DE, es: ES, fr: FR };

/** What the agent should ask the counterparty for, per concern, in each language (no internal thresholds). */
const ASKS: Readonly<Record<ResponseLanguage, Readonly<Record<string, string>>>> = {
  en: {
    approval: 'the reference of the approval you mention (who approved it, and when)?',
    identity: 'a way to confirm your identity through the contact details we already hold?',
    amount: 'the invoice, order or contract number this amount relates to?',
    date: 'the order number and the date of purchase or delivery?',
    receipt: 'the order number and any tracking or delivery reference you have?',
    policy: 'which terms or policy you are referring to?',
    general: 'any order, invoice or reference number that relates to this request?',
  },
  de: {
    approval: 'die Referenz der erwähnten Genehmigung (wer hat sie wann erteilt)?',
    identity: 'eine Bestätigung Ihrer Identität über die Kontaktdaten, die uns bereits vorliegen?',
    amount: 'die Rechnungs-, Bestell- oder Vertragsnummer zu diesem Betrag?',
    date: 'die Bestellnummer und das Kauf- oder Lieferdatum?',
    receipt: 'die Bestellnummer und eine Sendungs- oder Lieferreferenz, falls vorhanden?',
    policy: 'auf welche Bedingungen oder Richtlinie Sie sich beziehen?',
    general: 'eine Bestell-, Rechnungs- oder Referenznummer zu diesem Anliegen?',
  },
  es: {
    approval: 'la referencia de la aprobación que menciona (quién la dio y cuándo)?',
    identity: 'una forma de confirmar su identidad con los datos de contacto que ya tenemos?',
    amount: 'el número de factura, pedido o contrato al que corresponde este importe?',
    date: 'el número de pedido y la fecha de compra o entrega?',
    receipt: 'el número de pedido y cualquier referencia de seguimiento o entrega?',
    policy: 'a qué condiciones o política se refiere?',
    general: 'algún número de pedido, factura o referencia relacionado con esta solicitud?',
  },
  fr: {
    approval: 'la référence de l’approbation que vous mentionnez (qui l’a donnée et quand) ?',
    identity: 'un moyen de confirmer votre identité via les coordonnées déjà enregistrées chez nous ?',
    amount: 'le numéro de facture, de commande ou de contrat correspondant à ce montant ?',
    date: 'le numéro de commande et la date d’achat ou de livraison ?',
    receipt: 'le numéro de commande et toute référence de suivi ou de livraison ?',
    policy: 'les conditions ou la politique auxquelles vous faites référence ?',
    general: 'un numéro de commande, de facture ou de référence lié à cette demande ?',
  },
};

const LEAD: Readonly<Record<ResponseLanguage, string>> = { en: 'Could you send us ', de: 'Könnten Sie uns bitte ', es: '¿Podría enviarnos ', fr: 'Pourriez-vous nous envoyer ' };
const LEAD_TAIL: Readonly<Record<ResponseLanguage, string>> = { en: '', de: ' senden', es: '', fr: '' };

export function suggestedResponse(language: ResponseLanguage, disposition: Disposition, concern: Concern, askKind: string): string {
  const t = TEMPLATES[language];
  if (disposition === 'proceed') return t.proceed;
  if (disposition === 'proceed_with_caution') return t.caution;
  if (disposition === 'gather_evidence' || concern === 'evidence') {
    const ask = ASKS[language][askKind] ?? ASKS[language].general ?? '';
    const question = language === 'de' ? `${LEAD.de}${ask.replace(/\?$/, '')}${LEAD_TAIL.de}?` : `${LEAD[language]}${ask}`;
    return t.evidence.replace('{question}', question);
  }
  return t[concern];
}
