/**
 * Admits one artifact a catalog entry names (CARDS.md §1.2, §2.3 Entry, §3.7): the exact bytes are hashed (sha-256,
 * never a re-serialisation), the entry's `digest` is checked against them when present, the document is validated
 * as the kind its entry's type names, and an AI Card's `id` must equal the entry's identifier, compared as plain
 * strings. A refusal is a problem with a stable code and the entry's pointer; the identifier is never rewritten.
 */
import { createHash } from 'node:crypto';

import { AI_CATALOG_MEDIA_TYPE, validateDocument, type DocumentKind } from '@trustmesh/cards-documents';
import type { CrawlProblemCode, CrawlRecord, CrawlRecordKind, CrawlProvenance } from './crawl.types';
import { isDeprecatedBy } from './record-status.rule';

export interface ArtifactInput {
  readonly identifier: string;
  /** Pointer of the entry in its catalog. */
  readonly pointer: string;
  readonly identifierMember: 'id' | 'identifier';
  /** Entry media type; absent for seed entries (AI Cards). */
  readonly type?: string;
  readonly version?: string;
  readonly digest?: string;
  readonly entryDeprecated: boolean;
  readonly bytes: Uint8Array;
  readonly maxBytes: number;
  readonly provenance: Omit<CrawlProvenance, 'digest'>;
}

export type Admission = { readonly ok: true; readonly record: CrawlRecord } | { readonly ok: false; readonly code: CrawlProblemCode; readonly pointer: string; readonly message: string };

/** Node's names for the digest algorithms @trustmesh/cards-documents accepts. */
const NODE_DIGESTS: Readonly<Record<string, string>> = {
  'sha-256': 'sha256', sha256: 'sha256', 'sha-384': 'sha384', sha384: 'sha384', 'sha-512': 'sha512', sha512: 'sha512',
  'sha3-256': 'sha3-256', 'sha3-384': 'sha3-384', 'sha3-512': 'sha3-512',
};

export function sha256Of(bytes: Uint8Array): string {
  return `sha-256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** Whether `bytes` match an `alg:lowerhex` digest; `undefined` when the algorithm is not one we can compute. */
export function digestMatches(expected: string, bytes: Uint8Array): boolean | undefined {
  const colon = expected.indexOf(':');
  const algorithm = NODE_DIGESTS[expected.slice(0, colon)];
  if (colon <= 0 || algorithm === undefined) return undefined;
  return createHash(algorithm).update(bytes).digest('hex') === expected.slice(colon + 1);
}

export function admitArtifact(input: ArtifactInput): Admission {
  const digest = sha256Of(input.bytes);
  if (input.digest !== undefined && digestMatches(input.digest, input.bytes) !== true) {
    return {
      ok: false,
      code: 'DIGEST_MISMATCH',
      pointer: `${input.pointer}/digest`,
      message: `The entry's digest ${input.digest} does not match the bytes served (${digest}); the artifact was not accepted.`,
    };
  }
  const kind = validationKind(input.type);
  let recordKind: CrawlRecordKind = 'artifact';
  let document: unknown;
  if (kind !== undefined) {
    const result = validateDocument(input.bytes, { kind, maxBytes: input.maxBytes });
    // An entry typed only as JSON may hold anything: a document of no known kind is kept as an opaque artifact.
    const opaque = kind === 'auto' && result.kind === undefined && result.errors.some((issue) => issue.code === 'KIND_UNKNOWN');
    if (!opaque) {
      if (!result.valid) {
        const first = result.errors[0];
        return {
          ok: false,
          code: 'CARD_INVALID',
          pointer: input.pointer,
          message: `The document at ${input.provenance.documentUrl ?? `${input.pointer}/data`} is not a valid ${result.kind ?? 'card'} (${result.errors.length} error(s); first at "${first?.path ?? ''}": ${first?.code ?? ''} ${first?.message ?? ''}).`,
        };
      }
      recordKind = result.kind ?? 'artifact';
      document = result.value;
    }
  }
  if (recordKind === 'ai-card' && isRecord(document) && document['id'] !== input.identifier) {
    return {
      ok: false,
      code: 'CARD_ID_MISMATCH',
      pointer: `${input.pointer}/${input.identifierMember}`,
      message: `The catalog lists "${input.identifier}" but the card served says its id is "${String(document['id'])}"; they must be equal (CARDS.md §1.2), so the record was refused.`,
    };
  }
  const version = input.version ?? (isRecord(document) && typeof document['version'] === 'string' ? document['version'] : undefined);
  const updatedAt = isRecord(document) && typeof document['updatedAt'] === 'string' ? document['updatedAt'] : undefined;
  const revisionKey = version !== undefined ? `version:${version}` : updatedAt !== undefined ? `updatedAt:${updatedAt}` : `digest:${digest}`;
  return {
    ok: true,
    record: {
      identifier: input.identifier,
      kind: recordKind,
      ...(input.type !== undefined ? { type: input.type } : {}),
      ...(version !== undefined ? { version } : {}),
      revisionKey,
      bytes: input.bytes,
      digest,
      provenance: { ...input.provenance, digest },
      status: input.entryDeprecated || isDeprecatedBy(document) ? 'deprecated' : 'active',
    },
  };
}

/** The kind an entry's media type names; `'auto'` for plain JSON; `undefined` for non-JSON artifacts (skills zips...). */
function validationKind(type: string | undefined): DocumentKind | 'auto' | undefined {
  if (type === undefined) return 'ai-card';
  const media = type.split(';')[0]?.trim().toLowerCase() ?? '';
  if (media === AI_CATALOG_MEDIA_TYPE) return 'ai-catalog';
  if (media === 'application/a2a-agent-card+json') return 'a2a';
  // Reserved and MCP types have no one schema here: detect by shape (server.json), else keep the bytes opaque.
  if (media === 'application/json' || media === 'application/agent-card+json' || media.startsWith('application/mcp-')) return 'auto';
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
