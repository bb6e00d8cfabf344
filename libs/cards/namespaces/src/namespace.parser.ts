/**
 * A namespace is a DNS domain a publisher proves it owns (CARDS.md §5 "Ownership verification": "Namespace = domain").
 * `parseNamespace` turns what a person typed into the one canonical form the registry stores and compares: lowercase
 * A-labels (`xn--…` for internationalised labels), no trailing dot, at least two labels, no IP addresses.
 *
 * IDN scope: U-labels are lowercased, NFC-normalised and Punycode-encoded; full UTS #46 mapping is not applied, so
 * labels holding anything but letters, marks, digits and hyphens are refused rather than guessed at. Every A-label
 * must round-trip (decode, re-encode to the same text) so one domain has exactly one spelling.
 */
import { punycodeDecode, punycodeEncode } from './punycode.codec';

export const NAMESPACE_ISSUE_CODES = [
  'NAMESPACE_EMPTY',
  'NAMESPACE_TOO_LONG',
  'NAMESPACE_WHITESPACE',
  'NAMESPACE_TRAILING_DOT',
  'NAMESPACE_SINGLE_LABEL',
  'NAMESPACE_EMPTY_LABEL',
  'NAMESPACE_LABEL_TOO_LONG',
  'NAMESPACE_LABEL_CHARACTERS',
  'NAMESPACE_LABEL_HYPHEN',
  'NAMESPACE_RESERVED_HYPHENS',
  'NAMESPACE_PUNYCODE_INVALID',
  'NAMESPACE_NUMERIC_TLD',
  'NAMESPACE_IDENTIFIER_UNSUPPORTED',
  'NAMESPACE_IDENTIFIER_MALFORMED',
] as const;
export type NamespaceIssueCode = (typeof NAMESPACE_ISSUE_CODES)[number];

export interface NamespaceIssue {
  readonly code: NamespaceIssueCode;
  readonly pointer: string;
  readonly message: string;
}

export type NamespaceResult = { readonly ok: true; readonly namespace: string; readonly unicode: string } | { readonly ok: false; readonly issue: NamespaceIssue };

const MAX_DOMAIN_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;
const LDH = /^[a-z0-9-]+$/;
const UNICODE_LABEL = /^[\p{L}\p{M}\p{N}-]+$/u;

/** Parses a domain name into the registry's canonical namespace form. `pointer` locates the value in its document. */
export function parseNamespace(text: string, pointer = ''): NamespaceResult {
  const issue = (code: NamespaceIssueCode, message: string): NamespaceResult => ({ ok: false, issue: { code, pointer, message } });
  if (text.length === 0) return issue('NAMESPACE_EMPTY', 'a namespace is a domain name such as acme.com; got an empty string');
  if (/\s/u.test(text)) return issue('NAMESPACE_WHITESPACE', 'remove the spaces: a domain name contains none');
  if (text.endsWith('.')) return issue('NAMESPACE_TRAILING_DOT', `write the domain without its trailing dot ("${text.slice(0, -1)}")`);
  const labels = text.normalize('NFC').toLowerCase().split('.');
  if (labels.length < 2) return issue('NAMESPACE_SINGLE_LABEL', `"${text}" is a single label; a namespace is a registered domain such as acme.com`);
  const ascii: string[] = [];
  const unicode: string[] = [];
  for (const label of labels) {
    if (label.length === 0) return issue('NAMESPACE_EMPTY_LABEL', `"${text}" has an empty label (two dots in a row or a leading dot)`);
    let a: string;
    let u: string;
    if (LDH.test(label)) {
      a = label;
      if (label.startsWith('xn--')) {
        const decoded = punycodeDecode(label.slice(4));
        if (decoded === null || !/[^ -~]/.test(decoded) || punycodeEncode(decoded) !== label.slice(4) || !UNICODE_LABEL.test(decoded) || decoded !== decoded.normalize('NFC').toLowerCase()) {
          return issue('NAMESPACE_PUNYCODE_INVALID', `"${label}" is not a valid internationalised label (its xn-- form does not decode to a canonical name)`);
        }
        u = decoded;
      } else {
        if (label.slice(2, 4) === '--') return issue('NAMESPACE_RESERVED_HYPHENS', `"${label}" has hyphens in positions 3 and 4, which are reserved for xn-- labels`);
        u = label;
      }
    } else {
      if (!UNICODE_LABEL.test(label)) return issue('NAMESPACE_LABEL_CHARACTERS', `"${label}" may only contain letters, digits and hyphens`);
      const encoded = punycodeEncode(label);
      if (encoded === null) return issue('NAMESPACE_PUNYCODE_INVALID', `"${label}" cannot be encoded as an internationalised label`);
      a = `xn--${encoded}`;
      u = label;
    }
    if (a.length > MAX_LABEL_LENGTH) return issue('NAMESPACE_LABEL_TOO_LONG', `"${label}" is longer than 63 characters in its DNS form`);
    if (a.startsWith('-') || a.endsWith('-')) return issue('NAMESPACE_LABEL_HYPHEN', `"${label}" may not start or end with a hyphen`);
    ascii.push(a);
    unicode.push(u);
  }
  const namespace = ascii.join('.');
  if (namespace.length > MAX_DOMAIN_LENGTH) return issue('NAMESPACE_TOO_LONG', `the domain is ${namespace.length} characters in DNS form; the limit is 253`);
  if (/^[0-9]+$/.test(ascii[ascii.length - 1] ?? '')) return issue('NAMESPACE_NUMERIC_TLD', `"${text}" looks like an IP address; a namespace must be a domain name`);
  return { ok: true, namespace, unicode: unicode.join('.') };
}

/** Display form of a canonical namespace (A-labels decoded); returns the input unchanged when a label does not decode. */
export function namespaceToUnicode(namespace: string): string {
  return namespace
    .split('.')
    .map((label) => (label.startsWith('xn--') ? (punycodeDecode(label.slice(4)) ?? label) : label))
    .join('.');
}
