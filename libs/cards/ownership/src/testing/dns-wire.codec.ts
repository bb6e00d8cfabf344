/**
 * The minimal DNS wire format (RFC 1035 §4) the test DNS server needs: decode one question from a query, encode an
 * authoritative answer with TXT or A records. Not a general DNS library: no compression on input, one question only.
 */
export const DNS_TYPE = { A: 1, TXT: 16 } as const;
export const DNS_RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3 } as const;

export interface DnsQuestion {
  readonly id: number;
  readonly flags: number;
  /** Lowercased, dot-joined, no trailing dot. */
  readonly name: string;
  readonly type: number;
  readonly qclass: number;
  /** The question section exactly as received (echoed back, so case randomisation survives). */
  readonly raw: Uint8Array;
}

export interface DnsAnswer {
  readonly type: number;
  readonly ttl?: number;
  readonly rdata: Uint8Array;
}

/** Decodes the header and the first question; null for anything malformed or not a standard query. */
export function decodeDnsQuery(message: Uint8Array): DnsQuestion | null {
  if (message.length < 12) return null;
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  const flags = view.getUint16(2);
  if (flags & 0x8000 || view.getUint16(4) < 1) return null;
  const labels: string[] = [];
  let offset = 12;
  for (;;) {
    const length = message[offset];
    if (length === undefined || length > 63) return null;
    offset++;
    if (length === 0) break;
    if (offset + length > message.length) return null;
    labels.push(new TextDecoder().decode(message.subarray(offset, offset + length)).toLowerCase());
    offset += length;
  }
  if (offset + 4 > message.length) return null;
  return {
    id: view.getUint16(0),
    flags,
    name: labels.join('.'),
    type: view.getUint16(offset),
    qclass: view.getUint16(offset + 2),
    raw: message.subarray(12, offset + 4),
  };
}

/** Encodes a response to `question`: authoritative, recursion available, the question echoed, answers by pointer. */
export function encodeDnsResponse(question: DnsQuestion, rcode: number, answers: readonly DnsAnswer[]): Uint8Array {
  const body = answers.map((answer) => {
    const rr = new Uint8Array(12 + answer.rdata.length);
    const view = new DataView(rr.buffer);
    view.setUint16(0, 0xc00c); // name: pointer to the question's name at offset 12
    view.setUint16(2, answer.type);
    view.setUint16(4, 1); // class IN
    view.setUint32(6, answer.ttl ?? 60);
    view.setUint16(10, answer.rdata.length);
    rr.set(answer.rdata, 12);
    return rr;
  });
  const header = new Uint8Array(12);
  const view = new DataView(header.buffer);
  view.setUint16(0, question.id);
  view.setUint16(2, 0x8000 | (question.flags & 0x7900) | 0x0400 | 0x0080 | (rcode & 0xf));
  view.setUint16(4, 1);
  view.setUint16(6, answers.length);
  const total = header.length + question.raw.length + body.reduce((sum, rr) => sum + rr.length, 0);
  const out = new Uint8Array(total);
  out.set(header, 0);
  out.set(question.raw, 12);
  let offset = 12 + question.raw.length;
  for (const rr of body) {
    out.set(rr, offset);
    offset += rr.length;
  }
  return out;
}

/** TXT RDATA from character-strings; a string over 255 bytes is split into 255-byte strings, as zone tools do. */
export function encodeTxtRdata(strings: readonly string[]): Uint8Array {
  const pieces: Uint8Array[] = [];
  for (const text of strings) {
    const bytes = new TextEncoder().encode(text);
    for (let start = 0; start < bytes.length || start === 0; start += 255) {
      const piece = bytes.subarray(start, start + 255);
      pieces.push(Uint8Array.of(piece.length), piece);
      if (bytes.length === 0) break;
    }
  }
  const out = new Uint8Array(pieces.reduce((sum, p) => sum + p.length, 0));
  let offset = 0;
  for (const piece of pieces) {
    out.set(piece, offset);
    offset += piece.length;
  }
  return out;
}

export function encodeARdata(address: string): Uint8Array {
  return Uint8Array.from(address.split('.').map(Number));
}

/** Builds a standard query (RD set) for one name; used by tests of the codec itself. */
export function encodeDnsQuery(id: number, name: string, type: number): Uint8Array {
  const labels = name.split('.').filter(Boolean).map((label) => new TextEncoder().encode(label));
  const out = new Uint8Array(12 + labels.reduce((sum, l) => sum + 1 + l.length, 0) + 1 + 4);
  const view = new DataView(out.buffer);
  view.setUint16(0, id);
  view.setUint16(2, 0x0100);
  view.setUint16(4, 1);
  let offset = 12;
  for (const label of labels) {
    out[offset++] = label.length;
    out.set(label, offset);
    offset += label.length;
  }
  out[offset++] = 0;
  view.setUint16(offset, type);
  view.setUint16(offset + 2, 1);
  return out;
}
