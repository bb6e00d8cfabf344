/**
 * The outside world the trust suites prove things against, all real and all on 127.0.0.1: a UDP DNS server
 * answering the `_trustmesh-challenge` TXT records, one HTTPS server (certificate from a test CA) serving
 * each domain's well-known ownership file and did.json by Host header, and signing keys published in those
 * DID documents. `registryEnv` is the REGISTRY_TEST_ONLY_* environment pointing a registry at it. Everything
 * is mutable so a test can remove a record or a key and watch the registry notice.
 */
import { createTestCa, startHttpsServer, type TestHttpsServer } from '@trustmesh/cards-fetcher/testing';
import { startDnsServer, type DnsTestServer } from '@trustmesh/cards-ownership/testing';
import { didWebDocument, generateSigningKey, signA2aCard, signAiCard, signDetachedPayload, type HeaderOverrides, type TestSigningKey } from '@trustmesh/cards-signatures/testing';

export interface TrustWorld {
  dns: DnsTestServer;
  https: TestHttpsServer;
  /** TXT values at `_trustmesh-challenge.<domain>` (mutate to publish or remove a record). */
  txt: Record<string, string[]>;
  /** Body of `https://<domain>/.well-known/trustmesh-registry-auth` (absent: 404). */
  files: Map<string, string>;
  /** Keys listed in `https://<domain>/.well-known/did.json` (absent domain: 404). */
  didKeys: Map<string, TestSigningKey[]>;
  /** A fresh ES256 key of `did:web:<domain>`, published in its did.json. */
  publishKey(domain: string, fragment?: string): Promise<TestSigningKey>;
  /** `card` signed by `key` (detached JWS, header overrides allowed). */
  sign(card: Record<string, unknown>, key: TestSigningKey, header?: HeaderOverrides): Promise<Record<string, unknown>>;
  /** The A2A card with one more signature by `key` (flattened detached JWS). */
  signA2a(card: Record<string, unknown>, key: TestSigningKey): Promise<Record<string, unknown>>;
  /** A detached compact JWS by `key` over the UTF-8 bytes of `text` (a did:web ownership proof). */
  signText(text: string, key: TestSigningKey, header?: HeaderOverrides): Promise<string>;
  registryEnv: Record<string, string>;
  close(): Promise<void>;
}

export async function startTrustWorld(domains: readonly string[]): Promise<TrustWorld> {
  const txt: Record<string, string[]> = {};
  for (const domain of domains) txt[domain] = [];
  // Entries exist from the start (empty: NOERROR without answers); the server reads each array per query.
  const dns = await startDnsServer(Object.fromEntries(domains.map((domain) => [`_trustmesh-challenge.${domain}`, { txt: txt[domain] as string[] }])));
  const files = new Map<string, string>();
  const didKeys = new Map<string, TestSigningKey[]>();
  const hostOf = (host: string | undefined) => (host ?? '').replace(/:\d+$/, '').toLowerCase();
  const ca = await createTestCa();
  const https = await startHttpsServer(
    {
      '/.well-known/trustmesh-registry-auth': (request) => {
        const body = files.get(hostOf(request.headers.host));
        return body === undefined ? { status: 404, body: 'not found' } : { status: 200, headers: { 'content-type': 'text/plain' }, body };
      },
      '/.well-known/did.json': (request) => {
        const domain = hostOf(request.headers.host);
        const keys = didKeys.get(domain);
        return keys === undefined ? { status: 404, body: 'not found' } : { status: 200, headers: { 'content-type': 'application/did+json' }, body: JSON.stringify(didWebDocument(`did:web:${domain}`, keys)) };
      },
    },
    { ca, hostnames: [...domains] },
  );
  return {
    dns,
    https,
    txt,
    files,
    didKeys,
    async publishKey(domain, fragment = 'signing-key-1') {
      const key = await generateSigningKey({ signer: `did:web:${domain}`, fragment });
      didKeys.set(domain, [...(didKeys.get(domain) ?? []), key]);
      return key;
    },
    signA2a: (card, key) => signA2aCard(card as never, key) as Promise<Record<string, unknown>>,
    signText: (text, key, header = {}) => signDetachedPayload(new TextEncoder().encode(text), key, header),
    sign: (card, key, header = {}) => signAiCard(card as never, key, header) as Promise<Record<string, unknown>>,
    registryEnv: {
      REGISTRY_TEST_ONLY_FETCH_CA_PEM: ca.cert,
      REGISTRY_TEST_ONLY_FETCH_HOSTS: domains.map((domain) => `${domain}=127.0.0.1`).join(','),
      REGISTRY_TEST_ONLY_ADMIT_LOOPBACK: 'true',
      REGISTRY_TEST_ONLY_HTTPS_PORT: String(https.port),
      REGISTRY_TEST_ONLY_DNS_SERVERS: dns.address,
    },
    async close() {
      await https.close();
      await dns.close();
    },
  };
}
