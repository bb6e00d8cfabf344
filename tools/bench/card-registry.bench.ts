/**
 * `npm run bench:card-registry` (CARDS.md §1.2, §3.5): the card registry's hot paths, each figure with its
 * baseline from the same run. One function per section; `main` runs them in order.
 *
 * (a) verify: signed v1 AI Cards (fresh ES256 keys, a handful of did:web signers, DID documents from a map) through
 *     OUR path, `validateDocument` of the received bytes then `verifyAiCardSignature` of the parsed card, versus
 *     bare `jose` `compactVerify` of the same signatures over precomputed payloads with precomputed key objects,
 *     i.e. the cryptography alone. Within each round the paths alternate every few cards so noise hits both alike;
 *     the goal is the median of the per-round ratios (ours / jose), goal >= 0.5.
 * (b) search: `GET /v1/search` of a registry process over 100,000 cards versus the same SQL run directly on the
 *     same Postgres database (apps/card-registry/test/bench/registry-search.bench.ts, run as a child process);
 *     goal search-vs-sql >= 0.5.
 */
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

import { base64url, compactVerify, importJWK, type CryptoKey as JoseKey, type KeyObject } from 'jose';

import { validateDocument } from '@trustmesh/cards-documents';
import { mapResolver, verifyAiCardSignature, type KeyDocumentResolver } from '@trustmesh/cards-signatures';
import { didWebDocument, generateSigningKey, signAiCard, type TestSigningKey } from '@trustmesh/cards-signatures/testing';
import { canonicalJson } from '@trustmesh/shared-canonical-json';

/** The seeding the registry issue asks for; the verification section signs and checks a sample of it per round. */
const SEEDED_CARDS = 100_000;
const VERIFY_SAMPLE_PER_ROUND = 2_000;
const ROUNDS = 7;
/** Cards per turn when the two paths alternate within a round. */
const SLICE = 100;
const SIGNERS = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const rate = (count: number, millis: number) => (count / millis) * 1000;
const format = (value: number) => Math.round(value).toLocaleString('en-US');

async function timed(work: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

function aiCard(index: number, signer: string): Record<string, unknown> {
  const domain = signer.slice('did:web:'.length);
  return {
    $schema: 'https://schemas.trustmesh.example/ai-card/v1.json',
    specVersion: '1.0',
    id: `https://${domain}/agents/agent-${index}`,
    identityType: 'url',
    name: `Agent ${index}`,
    description: `Handles invoices, quotes and delivery notes for account group ${index % 97}.`,
    tags: ['finance', 'invoices', `group-${index % 97}`],
    publisher: { id: signer, identityType: 'did', name: `Publisher of ${domain}` },
    services: {
      a2a: {
        type: 'a2a',
        name: 'Invoice agent',
        protocolSpecific: {
          protocolVersion: '0.3.0',
          url: `https://${domain}/a2a/${index}`,
          skills: [{ id: 'invoice', name: 'Read invoices', description: 'Extracts totals and due dates.', tags: ['invoice'] }],
        },
      },
    },
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: `2026-02-01T00:00:${String(index % 60).padStart(2, '0')}Z`,
  };
}

interface SignedSample {
  /** What the registry receives. */
  bytes: Uint8Array[];
  /** For jose: the full compact JWS (payload segment filled in) and the key object of its signer. */
  jose: { compact: string; key: JoseKey | KeyObject | Uint8Array }[];
  resolver: KeyDocumentResolver;
}

async function signedSample(count: number): Promise<SignedSample> {
  const keys: TestSigningKey[] = [];
  for (let i = 0; i < SIGNERS; i += 1) keys.push(await generateSigningKey({ signer: `did:web:publisher-${i}.example`, fragment: 'cards-2026' }));
  const resolver = mapResolver(Object.fromEntries(keys.map((key) => [`https://${key.signer.slice('did:web:'.length)}/.well-known/did.json`, didWebDocument(key.signer, [key])])));
  const joseKeys = await Promise.all(keys.map((key) => importJWK(key.publicJwk, 'ES256')));
  const encoder = new TextEncoder();
  const sample: SignedSample = { bytes: [], jose: [], resolver };
  for (let i = 0; i < count; i += 1) {
    const key = keys[i % SIGNERS] as TestSigningKey;
    const card = await signAiCard(aiCard(i, key.signer), key);
    sample.bytes.push(encoder.encode(JSON.stringify(card)));
    const { signature, ...payload } = card;
    const [protectedB64, , signatureB64] = String(signature).split('.');
    sample.jose.push({ compact: `${protectedB64}.${base64url.encode(canonicalJson(payload))}.${signatureB64}`, key: joseKeys[i % SIGNERS] as JoseKey });
  }
  return sample;
}

async function oursOver(sample: SignedSample, from: number, to: number): Promise<number> {
  let verified = 0;
  for (let i = from; i < to; i += 1) {
    const validation = validateDocument(sample.bytes[i] as Uint8Array, { kind: 'ai-card' });
    if (!validation.valid) continue;
    const result = await verifyAiCardSignature(validation.value, { resolver: sample.resolver });
    if (result.verified) verified += 1;
  }
  return verified;
}

async function joseOver(sample: SignedSample, from: number, to: number): Promise<number> {
  let verified = 0;
  for (let i = from; i < to; i += 1) {
    const { compact, key } = sample.jose[i] as SignedSample['jose'][number];
    await compactVerify(compact, key, { algorithms: ['ES256'] });
    verified += 1;
  }
  return verified;
}

/** (a) Returns the median per-round ratio ours / jose. */
async function benchVerify(): Promise<number> {
  const sample = await signedSample(VERIFY_SAMPLE_PER_ROUND);
  // Warm both paths (JIT, WebCrypto) and check that ours accepts every card: a rejecting path would be a fast lie.
  const warmOurs = await oursOver(sample, 0, VERIFY_SAMPLE_PER_ROUND);
  const warmJose = await joseOver(sample, 0, VERIFY_SAMPLE_PER_ROUND);
  if (warmOurs !== VERIFY_SAMPLE_PER_ROUND || warmJose !== VERIFY_SAMPLE_PER_ROUND) {
    console.log(`(a) verify: only ${warmOurs} (ours) / ${warmJose} (jose) of ${VERIFY_SAMPLE_PER_ROUND} cards verified: not a valid measurement`);
    process.exitCode = 1;
    return 0;
  }
  const ourRates: number[] = [];
  const joseRates: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    // Within a round the two paths alternate every SLICE cards, so a burst of load on this shared machine hits both.
    let oursMillis = 0;
    let joseMillis = 0;
    let count = 0;
    for (let from = 0; from < VERIFY_SAMPLE_PER_ROUND; from += SLICE) {
      const to = Math.min(from + SLICE, VERIFY_SAMPLE_PER_ROUND);
      oursMillis += await timed(async () => void (count += await oursOver(sample, from, to)));
      joseMillis += await timed(async () => void (await joseOver(sample, from, to)));
    }
    if (count !== VERIFY_SAMPLE_PER_ROUND) process.exitCode = 1;
    const ours = rate(VERIFY_SAMPLE_PER_ROUND, oursMillis);
    const jose = rate(VERIFY_SAMPLE_PER_ROUND, joseMillis);
    ourRates.push(ours);
    joseRates.push(jose);
    ratios.push(ours / jose);
  }
  console.log(`(a) verify, ${SEEDED_CARDS.toLocaleString('en-US')} cards seeded by the issue; a sample of ${VERIFY_SAMPLE_PER_ROUND.toLocaleString('en-US')} signed v1 cards (ES256, ${SIGNERS} did:web signers, DID documents from a map) per round, ${ROUNDS} rounds alternating the two paths every ${SLICE} cards, one card at a time:`);
  console.log(`    baseline jose compactVerify (precomputed payloads and keys): ${format(median(joseRates))} cards/s  [${joseRates.map(format).join(' ')}]`);
  console.log(`    validateDocument + verifyAiCardSignature:                     ${format(median(ourRates))} cards/s  [${ourRates.map(format).join(' ')}]`);
  console.log(`    per-round ratio ours / jose: [${ratios.map((ratio) => ratio.toFixed(2)).join(' ')}]`);
  return median(ratios);
}

async function main(): Promise<void> {
  console.log(`card-registry benchmark, node ${process.version}`);
  const verify = await benchVerify();
  console.log(`goal verify-vs-jose: ${verify.toFixed(2)}`);
  // (b) search lives beside the app it starts (apps/card-registry/test/bench): a process of its own, which
  // prints its figures and `goal search-vs-sql: <ratio>`.
  const search = spawnSync(process.execPath, ['--import', 'tsx', 'apps/card-registry/test/bench/registry-search.bench.ts'], {
    stdio: 'inherit',
    env: { ...process.env, TSX_TSCONFIG_PATH: 'tsconfig.base.json' },
  });
  if (search.status !== 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(`bench:card-registry failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
