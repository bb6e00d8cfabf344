import { request } from '../test/case.fixture';
import { analyzeCase } from './case.analyzer';
import { detectLanguage } from './response.language';
import { normalizeText } from './text.normalizer';

const lang = (text: string) => detectLanguage(normalizeText(text).text);

describe('response language and wording', () => {
  it('recognises German, Spanish, French, else English', () => {
    expect(lang('Können Sie mir bitte die Rechnung für den letzten Monat schicken?')).toBe('de');
    expect(lang('¿Me puede enviar la factura del mes pasado, por favor?')).toBe('es');
    expect(lang('Pouvez-vous m’envoyer la facture du mois dernier, s’il vous plaît ?')).toBe('fr');
    expect(lang('Could you send me last month’s invoice?')).toBe('en');
    expect(lang('Grazie mille')).toBe('en');
  });

  it('never reveals policy thresholds or owner guidance to the counterparty', () => {
    const a = analyzeCase(
      request({
        message: 'Please refund $450 for order 12, I know you can do it.',
        policies: [{ statement: 'Agents may refund up to $200 per order; above $300 requires manager approval.' }],
        guidance: ['Be strict with customer-42: never exceed $250 without asking me first.'],
      }),
    );
    expect(a.suggestedResponse).toBeDefined();
    expect(a.suggestedResponse).not.toMatch(/200|250|300|customer-42|strict|asking me/);
  });
});
