// The card registry's contract (proto/trustmesh/registry/v1/card_registry.proto) as its two kinds of users
// meet it: NestJS (proto-loader) and grpc-js (ts-proto codecs) see the same services and the same messages,
// document bytes cross the wire unchanged, and a refusal's `registry-issues-bin` trailer reaches a real
// client with its stable code and issues.
import { Metadata, Server, ServerCredentials, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { loadSync, type MethodDefinition, type ServiceDefinition } from '@grpc/proto-loader';

import { cardRegistryV1, cardRegistryV1GrpcJs, decodeRegistryRefusal, encodeRegistryRefusal, PROTO_LOADER_OPTIONS, protoFilePath, REGISTRY_ISSUES_METADATA } from './index';

const { CardKind, CardStatus, IssueSeverity, PublishOutcome, SignatureOutcome } = cardRegistryV1;

function loadService(serviceName: string): ServiceDefinition {
  const definition = loadSync(protoFilePath(cardRegistryV1.protobufFileName), PROTO_LOADER_OPTIONS);
  return definition[`${cardRegistryV1.TRUSTMESH_REGISTRY_V1_PACKAGE_NAME}.${serviceName}`] as ServiceDefinition;
}

function pathsOf(methods: Record<string, { path: string; requestStream: boolean; responseStream: boolean }>) {
  return Object.values(methods)
    .map(({ path, requestStream, responseStream }) => ({ path, requestStream, responseStream }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

// A document with a non-ASCII character and no trailing newline: bytes a re-serialisation would change.
const DOCUMENT = Buffer.from('{"id":"did:web:acme.example","name":"Acmé finance"}', 'utf8');

const CARD: cardRegistryV1.GetCardResponse = {
  card: {
    identifier: 'did:web:acme.example',
    revision: '2026-03-01T10:00:00Z',
    kind: CardKind.AI_CARD,
    status: CardStatus.DEPRECATED,
    statusMessage: 'Use did:web:acme.example:v2',
    statusChangedAt: { seconds: 1_772_359_200, nanos: 0 },
    digest: `sha256:${'ab'.repeat(32)}`,
    document: DOCUMENT,
    contentType: 'application/json',
    publisher: { publisherId: 'pub-1', displayName: 'Acme' },
    verified: true,
    signatures: [
      {
        path: '/signature',
        outcome: SignatureOutcome.VERIFIED,
        signer: 'did:web:acme.example',
        kid: 'did:web:acme.example#key-1',
        alg: 'ES256',
        profile: 'did-web-v1',
        code: '',
        message: '',
        verifiedAt: { seconds: 1_772_359_300, nanos: 5 },
      },
    ],
    publishedAt: { seconds: 1_772_359_100, nanos: 0 },
    namespace: 'acme.example',
  },
  renamedFrom: '',
};

describe('CardRegistry and CardRegistryOperator as NestJS loads them', () => {
  it('are the services the generated grpc-js definitions serve, method for method', () => {
    expect(`${cardRegistryV1.TRUSTMESH_REGISTRY_V1_PACKAGE_NAME}.${cardRegistryV1.CARD_REGISTRY_SERVICE_NAME}`).toBe('trustmesh.registry.v1.CardRegistry');
    expect(pathsOf(loadService(cardRegistryV1.CARD_REGISTRY_SERVICE_NAME))).toEqual(pathsOf(cardRegistryV1GrpcJs.CardRegistryService));
    expect(pathsOf(loadService(cardRegistryV1.CARD_REGISTRY_OPERATOR_SERVICE_NAME))).toEqual(pathsOf(cardRegistryV1GrpcJs.CardRegistryOperatorService));
    expect(Object.keys(cardRegistryV1GrpcJs.CardRegistryService).sort()).toEqual(
      ['checkNamespaceClaim', 'getCard', 'getNamespace', 'listNamespaceClaims', 'listRevisions', 'publishCard', 'publishCatalog', 'renameCard', 'searchCards', 'setStatus', 'startNamespaceClaim', 'syncChanges'],
    );
    expect(Object.keys(cardRegistryV1GrpcJs.CardRegistryOperatorService).sort()).toEqual(
      ['createPublisher', 'grantNamespace', 'issueCredential', 'revokeCredential', 'transferNamespace'],
    );
  });

  it('decodes a card into the same object as the generated codec, document bytes untouched', () => {
    const bytes = Buffer.from(cardRegistryV1GrpcJs.GetCardResponse.encode(CARD).finish());
    const getCard = loadService(cardRegistryV1.CARD_REGISTRY_SERVICE_NAME)['GetCard'] as MethodDefinition<unknown, unknown>;
    const viaProtoLoader = getCard.responseDeserialize(bytes) as cardRegistryV1.GetCardResponse;
    expect(viaProtoLoader).toEqual(cardRegistryV1GrpcJs.GetCardResponse.decode(bytes));
    expect(viaProtoLoader).toEqual(CARD);
    expect(Buffer.compare(Buffer.from(viaProtoLoader.card?.document ?? []), DOCUMENT)).toBe(0);
  });

  it('reads search filters a NestJS client writes, enums as numbers, empty lists as []', () => {
    const search = loadService(cardRegistryV1.CARD_REGISTRY_SERVICE_NAME)['SearchCards'] as MethodDefinition<cardRegistryV1.SearchCardsRequest, unknown>;
    const request: cardRegistryV1.SearchCardsRequest = {
      query: 'invoice',
      filters: {
        kinds: [CardKind.A2A, CardKind.MCP_SERVER],
        protocols: ['mcp'],
        tags: [],
        publisherDomains: ['acme.example'],
        statuses: [CardStatus.ACTIVE],
        verified: cardRegistryV1.VerifiedFilter.VERIFIED_ONLY,
      },
      limit: 20,
      cursor: '',
    };
    expect(cardRegistryV1GrpcJs.SearchCardsRequest.decode(search.requestSerialize(request))).toEqual(request);
  });
});

describe('a refusal over a real grpc-js call', () => {
  let server: Server;
  let client: cardRegistryV1GrpcJs.CardRegistryClient;

  const refusing: Partial<cardRegistryV1GrpcJs.CardRegistryServer> = {
    publishCard(call, callback) {
      if (call.request.dryRun) {
        callback(null, {
          identifier: 'did:web:acme.example',
          revision: '2026-03-01T10:00:00Z',
          digest: `sha256:${'cd'.repeat(32)}`,
          kind: CardKind.AI_CARD,
          status: CardStatus.ACTIVE,
          outcome: PublishOutcome.VALIDATED,
          warnings: [{ path: '/trust/attestations/0', code: 'ATTESTATION_NO_CREDENTIAL', severity: IssueSeverity.WARNING, message: 'Add credentialUrl or credentialValue.' }],
        });
        return;
      }
      const metadata = new Metadata();
      metadata.set(
        REGISTRY_ISSUES_METADATA,
        encodeRegistryRefusal({
          error: 'The document has 1 error',
          code: 'DOCUMENT_INVALID',
          issues: [{ path: '/services', code: 'SERVICES_EMPTY', severity: 'error', message: 'List at least one service.' }],
        }),
      );
      callback({ code: status.INVALID_ARGUMENT, details: 'The document has 1 error', metadata });
    },
  };

  beforeAll(async () => {
    server = new Server();
    server.addService(cardRegistryV1GrpcJs.CardRegistryService, refusing as cardRegistryV1GrpcJs.CardRegistryServer);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    client = new cardRegistryV1GrpcJs.CardRegistryClient(`127.0.0.1:${port}`, credentials.createInsecure());
  });

  afterAll(async () => {
    client?.close();
    await new Promise<void>((resolve) => (server ? server.tryShutdown(() => resolve()) : resolve()));
  });

  const publish = (request: cardRegistryV1GrpcJs.PublishCardRequest) =>
    new Promise<cardRegistryV1GrpcJs.PublishCardResponse>((resolve, reject) =>
      client.publishCard(request, (error, response) => (error ? reject(error) : resolve(response))),
    );

  it('gives the client the status, the stable code and every issue with its pointer', async () => {
    const error = (await publish({ document: DOCUMENT, kind: CardKind.UNSPECIFIED, identifier: '', dryRun: false }).catch((caught: unknown) => caught)) as ServiceError;
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(error.details).toBe('The document has 1 error');
    expect(decodeRegistryRefusal(error.metadata.get(REGISTRY_ISSUES_METADATA)[0])).toEqual({
      error: 'The document has 1 error',
      code: 'DOCUMENT_INVALID',
      issues: [{ path: '/services', code: 'SERVICES_EMPTY', severity: 'error', message: 'List at least one service.' }],
    });
  });

  it('answers a dry run with its warnings and the VALIDATED outcome', async () => {
    const response = await publish({ document: DOCUMENT, kind: CardKind.AI_CARD, identifier: '', dryRun: true });
    expect(response.outcome).toBe(PublishOutcome.VALIDATED);
    expect(response.warnings).toEqual([{ path: '/trust/attestations/0', code: 'ATTESTATION_NO_CREDENTIAL', severity: IssueSeverity.WARNING, message: 'Add credentialUrl or credentialValue.' }]);
  });
});

describe('decodeRegistryRefusal', () => {
  it('reads a rate-limit refusal with its wait', () => {
    const trailer = encodeRegistryRefusal({ error: 'Too many publishes. Retry in 30 seconds.', code: 'RATE_LIMITED', issues: [], retryAfterSeconds: 30 });
    expect(decodeRegistryRefusal(trailer)).toEqual({ error: 'Too many publishes. Retry in 30 seconds.', code: 'RATE_LIMITED', issues: [], retryAfterSeconds: 30 });
  });

  it('returns undefined, never throws, for a trailer that is missing or not a refusal', () => {
    for (const value of [
      undefined,
      'not json',
      Buffer.from('[]'),
      '{"error":"x","issues":[]}',
      '{"error":"x","code":"C","issues":[{"path":"/a","code":"C","severity":"fatal","message":"m"}]}',
      '{"error":"x","code":"C","issues":[],"retryAfterSeconds":-1}',
    ]) {
      expect(decodeRegistryRefusal(value)).toBeUndefined();
    }
  });
});
