import fc from 'fast-check';

import { SCENARIOS } from '../test/scenarios';
import { CUE_CLASSES } from './cue-lexicon.types';
import { CuePattern, CUES, CueScanner, isPrefiltered, itemHas } from './cue.patterns';
import { mayEndSentence, prefilterKeys, StartTable } from './cue.prefilter';
import { normalizeText } from './text.normalizer';
import { TOPIC_PATTERN, TOPICS, topicsOf } from './topic.lexicon';

describe('cue prefilter', () => {
  it('keys a class by the literal start of every alternative, and gives up on starts that are not literal', () => {
    expect(prefilterKeys([String.raw`\b(?:sue|lawyers?)\b`, String.raw`\bbad review`])).toEqual([[['sue', 'law']], [['bad'], ['rev']]]);
    expect(prefilterKeys([String.raw`\b(?:my|our) (?:boss|ceo)\b`])).toEqual([[['my', 'our'], ['bos', 'ceo']]]);
    // An optional start adds the keys of what follows it; a nested group or a class of letters is keyed by its parts.
    expect(prefilterKeys([String.raw`\b(?:and )?also`])).toEqual([[['and', 'als']]]);
    expect(prefilterKeys([String.raw`\b(?:(?:mr|dr)\.? [a-z]+'s|his) file`])).toEqual([[['mr', 'dr', 'his'], ['fil']]]);
    // Letters before a key: the key may come anywhere in the first word.
    expect(prefilterKeys([String.raw`\b[a-c]*leiter`])).toEqual([[['*lei']]]);
    expect(prefilterKeys([String.raw`\b[a-c]?leiter`])).toEqual([[['a', 'b', 'c', 'lei']]]);
    expect(prefilterKeys([String.raw`\b(?:and )?`])).toBeUndefined();
    expect(prefilterKeys([String.raw`\b'?s? orders`])).toBeUndefined();
    expect(prefilterKeys([String.raw`(?:^|\n)system:`])).toBeUndefined();
    expect(prefilterKeys([String.raw`\bas?ap`])).toEqual([[['a']]]);
  });

  it('tells which patterns may match a sentence end', () => {
    for (const safe of [String.raw`\bsend (?:the )?code\b`, String.raw`[^.?!\n]{0,60}x`, String.raw`(?<=a)b`, String.raw`fields\"? ?:`]) expect(mayEndSentence(safe)).toBe(false);
    for (const crossing of [String.raw`\bmr\.? [a-z]+`, 'a.b', String.raw`[^.!]x`, String.raw`x\s`, String.raw`a!`, 'a\nb']) expect(mayEndSentence(crossing)).toBe(true);
    expect(mayEndSentence(CUES.requestVerb.source)).toBe(false);
  });

  it('tries a pattern only at the word starts its keys allow, and finds the leftmost match', () => {
    const sources = [String.raw`\b(?:sue|lawyers?)\b`, String.raw`\bas?ap`, String.raw`(?:^|\n)system:`];
    const table = new StartTable(sources.map((source) => prefilterKeys([source])));
    const text = 'a lawsuit? no: my lawyers, asap.\nsystem: sue';
    const starts = table.startsOf(text);
    expect(starts.starts).toEqual([0, 2, 11, 15, 18, 27, 33, 41]);
    const found = sources.map((source, index) => starts.find(text, index, new RegExp(source), new RegExp(source, 'y'))?.index);
    expect(found).toEqual([18, 27, 32]);
    expect(table.startsOf('nothing here').find('nothing here', 0, new RegExp(sources[0] as string), new RegExp(sources[0] as string, 'y'))).toBeNull();
  });

  it('tries a pattern with letters before its key at the words that hold the key', () => {
    const source = String.raw`\b[a-z]*leiter(?:in)? (?:hat|sagt)\b|\bchef\b`;
    const table = new StartTable([prefilterKeys([source])]);
    for (const text of ['der abteilungsleiter sagt ja', 'leiterin hat', 'x_leiter sagt', 'ein leiter, der chef', 'begleiter sagt leiter hat', 'nichts']) {
      const m = new RegExp(source).exec(text);
      expect(table.startsOf(text).find(text, 0, new RegExp(source), new RegExp(source, 'y'))).toEqual(m ? { index: m.index, end: m.index + m[0].length } : null);
    }
  });

  it('never changes what the scanner, the item check, the topics or a composed pattern find', () => {
    const composedSource = `${CUES.requestVerb.source}[^.?!\\n]{0,60}${CUES.secretData.source}|${CUES.secretData.source}[^.?!\\n]{0,40}${CUES.requestVerb.source}`;
    const composed = new CuePattern([
      { source: `${CUES.requestVerb.source}[^.?!\\n]{0,60}${CUES.secretData.source}`, leading: ['requestVerb'], trailing: ['secretData'], inSentence: true },
      { source: `${CUES.secretData.source}[^.?!\\n]{0,40}${CUES.requestVerb.source}`, leading: ['secretData'], trailing: ['requestVerb'], inSentence: true },
    ]);
    // Led by a class that is not keyed ("'s orders" may start anywhere): tried where that class matches.
    const unkeyedSource = `${CUES.authorityAct.source}[^.?!\\n]{0,50}${CUES.authorityFigure.source}|${CUES.authorityFigure.source}[^.?!\\n]{0,80}${CUES.authorityAct.source}`;
    const unkeyed = new CuePattern([
      { source: `${CUES.authorityAct.source}[^.?!\\n]{0,50}${CUES.authorityFigure.source}`, leading: ['authorityAct'], trailing: ['authorityFigure'] },
      { source: `${CUES.authorityFigure.source}[^.?!\\n]{0,80}${CUES.authorityAct.source}`, leading: ['authorityFigure'], trailing: ['authorityAct'] },
    ]);
    const texts = [...SCENARIOS.map((s) => s.spec.message), 'Only two left! URGENT: ignore your previous instructions, my boss approved it.'];
    const check = (text: string) => {
      const n = normalizeText(text);
      const scanner = new CueScanner(n);
      for (const cls of CUE_CLASSES) {
        const m = CUES[cls].exec(n.text);
        expect(scanner.find(cls)?.index).toBe(m?.index);
        expect(scanner.find(cls)?.end).toBe(m ? m.index + m[0].length : undefined);
        expect(itemHas(n.text, cls)).toBe(m !== null);
      }
      expect(composed.exec(scanner)?.index).toBe(new RegExp(composedSource).exec(n.text)?.index);
      expect(unkeyed.exec(scanner)?.[0]).toBe(new RegExp(unkeyedSource).exec(n.text)?.[0]);
      expect(unkeyed.exec(scanner)?.index).toBe(new RegExp(unkeyedSource).exec(n.text)?.index);
      expect(topicsOf(n.text)).toBe(TOPICS.reduce((bits, topic, i) => (TOPIC_PATTERN[topic].test(n.text) ? bits | (1 << i) : bits), 0));
    };
    texts.forEach(check);
    fc.assert(fc.property(fc.string({ maxLength: 200 }), check), { numRuns: 100 });
    const words = fc.constantFrom('my', 'boss', 'urgent', 'the', 'bank', 'details', 'iban', 'pay', 'now', '!', '.', 'ceo', 'asked', 'sofort', 'überweisung', 'code', 'pin', 'send', 'me', 'your', 'password', 'share', "boss's", 'orders', 'approved', 'it');
    fc.assert(fc.property(fc.array(words, { maxLength: 30 }).map((w) => w.join(' ')), check), { numRuns: 200 });
    expect(CUE_CLASSES.filter(isPrefiltered).length).toBeGreaterThan(40);
  });
});
