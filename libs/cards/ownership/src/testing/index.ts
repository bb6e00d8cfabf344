/**
 * @trustmesh/cards-ownership/testing: a real UDP DNS server on 127.0.0.1 (TXT and A from a map) and its minimal wire
 * codec, so ownership tests run the production TXT lookup (node:dns Resolver) against it.
 */
export { startDnsServer, type DnsTestRecords, type DnsTestServer } from './dns-test-server';
export { decodeDnsQuery, encodeDnsQuery, encodeDnsResponse, encodeTxtRdata, encodeARdata, DNS_TYPE, DNS_RCODE, type DnsQuestion, type DnsAnswer } from './dns-wire.codec';
