import { namespaceToUnicode, parseNamespace } from './namespace.parser';
import { punycodeEncode } from './punycode.codec';

describe('parseNamespace', () => {
  it.each([
    ['acme.com', 'acme.com', 'acme.com'],
    ['ACME.Example.COM', 'acme.example.com', 'acme.example.com'],
    ['münchen.de', 'xn--mnchen-3ya.de', 'münchen.de'],
    ['MÜNCHEN.de', 'xn--mnchen-3ya.de', 'münchen.de'],
    ['xn--mnchen-3ya.de', 'xn--mnchen-3ya.de', 'münchen.de'],
    ['XN--MNCHEN-3YA.DE', 'xn--mnchen-3ya.de', 'münchen.de'],
    ['пример.рф', 'xn--e1afmkfd.xn--p1ai', 'пример.рф'],
    ['user.github.io', 'user.github.io', 'user.github.io'],
    ['a-b.co.uk', 'a-b.co.uk', 'a-b.co.uk'],
    ['123.example', '123.example', '123.example'],
  ])('%s -> %s', (input, namespace, unicode) => {
    expect(parseNamespace(input)).toEqual({ ok: true, namespace, unicode });
  });

  it.each([
    ['', 'NAMESPACE_EMPTY'],
    ['acme .com', 'NAMESPACE_WHITESPACE'],
    ['acme.com.', 'NAMESPACE_TRAILING_DOT'],
    ['localhost', 'NAMESPACE_SINGLE_LABEL'],
    ['acme..com', 'NAMESPACE_EMPTY_LABEL'],
    ['.acme.com', 'NAMESPACE_EMPTY_LABEL'],
    [`${'a'.repeat(64)}.com`, 'NAMESPACE_LABEL_TOO_LONG'],
    [`${'a.'.repeat(127)}com`, 'NAMESPACE_TOO_LONG'],
    ['acme_corp.com', 'NAMESPACE_LABEL_CHARACTERS'],
    ['acme.com/path', 'NAMESPACE_LABEL_CHARACTERS'],
    ['acme.com:443', 'NAMESPACE_LABEL_CHARACTERS'],
    ['-acme.com', 'NAMESPACE_LABEL_HYPHEN'],
    ['acme-.com', 'NAMESPACE_LABEL_HYPHEN'],
    ['ab--cd.com', 'NAMESPACE_RESERVED_HYPHENS'],
    ['xn--abc.com', 'NAMESPACE_PUNYCODE_INVALID'],
    ['xn--acme-.com', 'NAMESPACE_PUNYCODE_INVALID'],
    ['xn--abc-.com', 'NAMESPACE_PUNYCODE_INVALID'],
    [`xn--${punycodeEncode('mu\u0308nchen')}.de`, 'NAMESPACE_PUNYCODE_INVALID'],
    ['127.0.0.1', 'NAMESPACE_NUMERIC_TLD'],
  ])('refuses %j with %s', (input, code) => {
    const result = parseNamespace(input, '/publisher/identifier');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issue.code).toBe(code);
      expect(result.issue.pointer).toBe('/publisher/identifier');
      expect(result.issue.message.length).toBeGreaterThan(10);
    }
  });

  it('shows A-labels to people in their Unicode form', () => {
    expect(namespaceToUnicode('xn--e1afmkfd.xn--p1ai')).toBe('пример.рф');
    expect(namespaceToUnicode('acme.com')).toBe('acme.com');
  });
});
