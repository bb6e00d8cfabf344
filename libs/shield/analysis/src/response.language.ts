/**
 * The language of the counterparty's message, so the suggested response is sent in it (issue 9: "a suggested
 * response that a person would actually send"). German, Spanish and French are recognised by their most frequent
 * function words; anything else is answered in English.
 */
export type ResponseLanguage = 'en' | 'de' | 'es' | 'fr';

const MARKERS: readonly (readonly [ResponseLanguage, RegExp])[] = [
  ['en', /\b(?:the|and|you|is|to|for|my|please|with|your|this|that|have|we|our)\b/g],
  ['de', /\b(?:der|die|das|und|ich|nicht|bitte|ist|sie|wir|mit|fur|ihre|mein|auf|ein|eine|den|dem|zu|uns)\b/g],
  ['es', /\b(?:el|los|las|y|que|por|para|una|es|con|mi|su|usted|favor|del|se|lo|nos|como)\b/g],
  ['fr', /\b(?:le|les|et|je|vous|pour|une|est|avec|mon|votre|pas|des|du|nous|merci|sur|ce)\b/g],
];

export function detectLanguage(normalizedMessage: string): ResponseLanguage {
  let best: ResponseLanguage = 'en';
  let bestCount = 0;
  for (const [language, pattern] of MARKERS) {
    pattern.lastIndex = 0;
    let count = 0;
    while (pattern.exec(normalizedMessage) !== null) count++;
    if (count > bestCount) {
      best = language;
      bestCount = count;
    }
  }
  return best;
}
