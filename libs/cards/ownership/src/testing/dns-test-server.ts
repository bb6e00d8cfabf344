/**
 * A real UDP DNS server on 127.0.0.1:0 answering from a map, for tests of the DNS TXT proof through the production
 * lookup (`createTxtLookup({ servers: [server.address] })`, i.e. node:dns `Resolver`). Names not in the map answer
 * NXDOMAIN; a name marked `silent` (or the whole server with `neverAnswer`) never answers, to exercise timeouts.
 */
import { createSocket, type Socket } from 'node:dgram';

import { decodeDnsQuery, DNS_RCODE, DNS_TYPE, encodeARdata, encodeDnsResponse, encodeTxtRdata, type DnsAnswer } from './dns-wire.codec';

export interface DnsTestRecords {
  /** Each TXT record as one string (split at 255 bytes on the wire) or as its explicit character-strings. */
  readonly txt?: readonly (string | readonly string[])[];
  readonly a?: readonly string[];
  /** Drop queries for this name. */
  readonly silent?: boolean;
}

export interface DnsTestServer {
  /** `127.0.0.1:<port>`, for `Resolver.setServers` or `createTxtLookup({ servers })`. */
  readonly address: string;
  readonly port: number;
  /** Names queried so far (lowercase), in order. */
  readonly queries: readonly string[];
  close(): Promise<void>;
}

export async function startDnsServer(records: Readonly<Record<string, DnsTestRecords>>, options: { readonly neverAnswer?: boolean } = {}): Promise<DnsTestServer> {
  const socket: Socket = createSocket('udp4');
  const queries: string[] = [];
  const table = new Map(Object.entries(records).map(([name, value]) => [name.toLowerCase().replace(/\.$/, ''), value]));
  socket.on('message', (message, remote) => {
    const question = decodeDnsQuery(message);
    if (!question) return;
    queries.push(question.name);
    const entry = table.get(question.name);
    if (options.neverAnswer || entry?.silent) return;
    let rcode: number = DNS_RCODE.NOERROR;
    const answers: DnsAnswer[] = [];
    if (!entry) rcode = DNS_RCODE.NXDOMAIN;
    else if (question.type === DNS_TYPE.TXT) {
      for (const record of entry.txt ?? []) answers.push({ type: DNS_TYPE.TXT, rdata: encodeTxtRdata(typeof record === 'string' ? [record] : record) });
    } else if (question.type === DNS_TYPE.A) {
      for (const address of entry.a ?? []) answers.push({ type: DNS_TYPE.A, rdata: encodeARdata(address) });
    }
    socket.send(encodeDnsResponse(question, rcode, answers), remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const port = socket.address().port;
  return {
    address: `127.0.0.1:${port}`,
    port,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
