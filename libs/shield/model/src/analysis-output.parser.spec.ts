import { parseAnswerObject } from './analysis-output.parser';

describe('parseAnswerObject', () => {
  const object = { reply: 'ok', nested: { list: [1, 2] }, code: 'a ``` inside a string' };

  it.each([
    ['a bare object', JSON.stringify(object)],
    ['a bare object with surrounding whitespace', `\n  ${JSON.stringify(object, null, 2)}\n\n`],
    ['one ```json block', '```json\n' + JSON.stringify(object, null, 2) + '\n```'],
    ['one bare ``` block', '```\n' + JSON.stringify(object) + '\n```'],
    ['one ```JSON block with CRLF line ends', '```JSON\r\n' + JSON.stringify(object) + '\r\n```'],
  ])('reads %s', (_label, text) => {
    expect(parseAnswerObject(text)).toEqual(object);
  });

  it.each([
    ['prose', 'Seek approval first.'],
    ['an empty answer', '   '],
    ['prose before the block', 'Analysis:\n```json\n{"a": 1}\n```'],
    ['prose after the object', '{"a": 1}\nHope this helps.'],
    ['two blocks', '```json\n{"a": 1}\n```\n```json\n{"b": 2}\n```'],
    ['another language block', '```yaml\na: 1\n```'],
    ['a JSON array', '[{"a": 1}]'],
    ['a JSON string', '"{}"'],
    ['broken JSON', '{"a": 1,}'],
    ['a block that never closes', '```json\n{"a": 1}'],
  ])('refuses %s with MODEL_OUTPUT_NOT_JSON', (_label, text) => {
    expect(() => parseAnswerObject(text)).toThrow(expect.objectContaining({ code: 'MODEL_OUTPUT_NOT_JSON' }));
  });
});
