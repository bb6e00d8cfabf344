/**
 * The gRPC client a registry user has: the generated grpc-js clients of `CardRegistry` and
 * `CardRegistryOperator` over plaintext, a bearer per call, answering with the response or the status
 * and the refusal decoded from the `registry-issues-bin` trailer (with `decodeRegistryRefusal`, as any
 * client would).
 */
import * as grpc from '@grpc/grpc-js';
import { cardRegistryV1GrpcJs as v1, decodeRegistryRefusal, REGISTRY_ISSUES_METADATA, type RegistryRefusal } from '@trustmesh/contracts';

export interface GrpcReply<Res> {
  response?: Res;
  error?: grpc.ServiceError;
  refusal?: RegistryRefusal;
}

type Unary<Req, Res> = (request: Req, metadata: grpc.Metadata, callback: (error: grpc.ServiceError | null, response: Res) => void) => grpc.ClientUnaryCall;
/** One promise-returning method per RPC of a service, typed from its generated server interface. */
type Api<S> = {
  [K in keyof S as S[K] extends grpc.handleUnaryCall<infer _Req, infer _Res> ? K : never]: S[K] extends grpc.handleUnaryCall<infer Req, infer Res>
    ? (request: Req, token?: string | null, metadata?: Record<string, string>) => Promise<GrpcReply<Res>>
    : never;
};

function api<S>(client: grpc.Client, methods: readonly string[]): Api<S> {
  const entries = methods.map((name) => [
    name,
    (request: unknown, token: string | null = null, extra: Record<string, string> = {}) =>
      new Promise((resolve) => {
        const metadata = new grpc.Metadata();
        if (token) metadata.set('authorization', `Bearer ${token}`);
        for (const [key, value] of Object.entries(extra)) metadata.set(key, value);
        const method = (client as unknown as Record<string, Unary<unknown, unknown>>)[name] as Unary<unknown, unknown>;
        method.call(client, request, metadata, (error, response) => {
          if (!error) return resolve({ response });
          const refusal = decodeRegistryRefusal(error.metadata?.get(REGISTRY_ISSUES_METADATA)[0] as Buffer | undefined);
          resolve({ error, ...(refusal ? { refusal } : {}) });
        });
      }),
  ]);
  return Object.fromEntries(entries) as Api<S>;
}

export interface RegistryGrpc {
  cards: Api<v1.CardRegistryServer>;
  operator: Api<v1.CardRegistryOperatorServer>;
  close(): void;
}

export function registryGrpcClient(address: string): RegistryGrpc {
  const cards = new v1.CardRegistryClient(address, grpc.credentials.createInsecure());
  const operator = new v1.CardRegistryOperatorClient(address, grpc.credentials.createInsecure());
  return {
    cards: api<v1.CardRegistryServer>(cards, ['publishCard', 'publishCatalog', 'getCard', 'listRevisions', 'setStatus', 'renameCard', 'searchCards', 'syncChanges', 'startNamespaceClaim', 'checkNamespaceClaim', 'getNamespace', 'listNamespaceClaims']),
    operator: api<v1.CardRegistryOperatorServer>(operator, ['createPublisher', 'issueCredential', 'revokeCredential', 'grantNamespace', 'transferNamespace']),
    close: () => {
      cards.close();
      operator.close();
    },
  };
}
