/**
 * gRPC `trustmesh.shield.v1.ShieldAnalyzer` (proto/trustmesh/shield/v1/shield_analyzer.proto), cases and
 * agent tokens, on plain @grpc/grpc-js with the generated codecs of `@trustmesh/contracts`: the same
 * application service as REST, the same refusals. Bearer credentials travel in the `authorization` metadata; a refusal's
 * `{ error, issues }` travels in the trailing metadata `shield-issues-bin` (JSON, UTF-8). Logs carry the
 * method and status code only (§12). Decoding, the bearer, statuses and the answer with its log line are
 * `unary-edge.ts` of @trustmesh/contracts, shared with the registry's edge.
 */
import * as grpc from '@grpc/grpc-js';
import {
  bearerCredentialOf,
  bindPlaintext,
  GRPC_STATUS_OF_REFUSAL,
  isUndecodable,
  serveHealthAndReflection,
  serveUnary,
  shieldAnalyzerV1GrpcJs,
  shutdownGracefully,
  tolerantDecoding,
  type GrpcHealth,
  type UnaryEdge,
  type UnaryRefusal,
} from '@trustmesh/contracts';
import { MAX_ON_BEHALF_OF, ON_BEHALF_OF_HEADER } from '@trustmesh/platform-credentials';
import type { Logger } from '@trustmesh/platform-logging';
import { traceGrpcServerCall } from '@trustmesh/platform-tracing';
import { parseStrictJson } from '@trustmesh/shared-strict-json';

import type { ShieldCaller } from '../service/shield-callers';
import type { ShieldCaseService } from '../service/shield-case.service';
import { fail, isUnavailable, notJsonIssue, succeed, UNAVAILABLE, type ServiceResult, type ShieldFailure } from '../service/shield-service.result';

export const SHIELD_ISSUES_METADATA = 'shield-issues-bin';

function refusal(failure: ShieldFailure): UnaryRefusal {
  // A conflict is a case changed by another call meanwhile: the same call again is the fix.
  return withIssues(failure.kind === 'conflict' ? grpc.status.ABORTED : GRPC_STATUS_OF_REFUSAL[failure.kind], failure.error, failure.issues);
}

function withIssues(code: grpc.status, error: string, issues: ShieldFailure['issues']): UnaryRefusal {
  const metadata = new grpc.Metadata();
  metadata.set(SHIELD_ISSUES_METADATA, Buffer.from(JSON.stringify({ error, issues }), 'utf8'));
  return { code, details: error, metadata };
}

/** `trustmesh-on-behalf-of` metadata (a string of at most a little over the bound: longer is refused as malformed). */
function onBehalfOf(metadata: grpc.Metadata): string | undefined {
  const value = metadata.get(ON_BEHALF_OF_HEADER)[0];
  return typeof value === 'string' ? value.slice(0, MAX_ON_BEHALF_OF + 1) : undefined;
}

/** An input's JSON text; an empty field is an absent input, which the service's validation refuses. */
function parseJson(text: string): ServiceResult<unknown> {
  if (text === '') return succeed(undefined);
  // Strict, as on REST: no duplicate keys, no lone surrogates, nesting within the bound.
  const parsed = parseStrictJson(text, { loneSurrogates: 'refuse' });
  if (parsed.ok) return succeed(parsed.value);
  const issue = notJsonIssue('The input', parsed.issue);
  return fail('invalid', issue.code, issue.message, issue.path);
}

export class ShieldAnalyzerGrpcServer {
  private readonly server: grpc.Server;
  private readonly health: GrpcHealth;

  /** `ready` is the analyzer's readiness (/readyz): gRPC health reports SERVING while it passes. */
  constructor(
    private readonly service: ShieldCaseService,
    private readonly logger: Logger,
    maxMessageBytes: number,
    ready?: () => Promise<boolean>,
  ) {
    this.server = new grpc.Server({ 'grpc.max_receive_message_length': maxMessageBytes });
    const edge: UnaryEdge = {
      name: 'shield',
      log: (level, message, fields) => this.logger.log(level, message, fields),
      isUnavailable,
      unavailable: () => withIssues(grpc.status.UNAVAILABLE, UNAVAILABLE.message, [UNAVAILABLE]),
      trace: traceGrpcServerCall,
    };
    const unary = <Req, Res>(method: string, run: (caller: ShieldCaller, request: Req) => Promise<ServiceResult<Res>>): grpc.handleUnaryCall<Req, Res> =>
      serveUnary(edge, method, async (call: grpc.ServerUnaryCall<Req, Res>) => {
        const authenticated = await this.service.authenticate(bearerCredentialOf(call.metadata), onBehalfOf(call.metadata));
        if (!authenticated.ok) return { ok: false, refusal: refusal(authenticated.failure) };
        const caller = authenticated.value;
        if (isUndecodable(call.request)) {
          return { ok: false, refusal: refusal({ kind: 'invalid', error: `The request is not a ${method}Request message`, issues: [{ code: 'SHIELD_MESSAGE_INVALID', path: '', message: `The request is not a ${method}Request message` }] }) };
        }
        const result = await run(caller, call.request);
        return result.ok ? result : { ok: false, refusal: refusal(result.failure) };
      });
    const json = (value: unknown) => JSON.stringify(value);
    const implementation: shieldAnalyzerV1GrpcJs.ShieldAnalyzerServer = {
      openCase: unary('OpenCase', async (caller, request: shieldAnalyzerV1GrpcJs.OpenCaseRequest) => {
        const input = parseJson(request.caseInputJson);
        const result = input.ok ? await this.service.open(caller, input.value) : input;
        return result.ok ? { ok: true, value: { caseRecordJson: json(result.value) } } : result;
      }),
      consult: unary('Consult', async (caller, request: shieldAnalyzerV1GrpcJs.ConsultRequest) => {
        const input = parseJson(request.consultInputJson);
        const result = input.ok ? await this.service.consult(caller, request.caseId, input.value) : input;
        return result.ok ? { ok: true, value: { caseRecordJson: json(result.value.caseRecord), consultationJson: json(result.value.consultation) } } : result;
      }),
      addGuidance: unary('AddGuidance', async (caller, request: shieldAnalyzerV1GrpcJs.AddGuidanceRequest) => {
        const input = parseJson(request.guidanceInputJson);
        const result = input.ok ? await this.service.addGuidance(caller, request.caseId, input.value) : input;
        return result.ok ? { ok: true, value: { caseRecordJson: json(result.value) } } : result;
      }),
      closeCase: unary('CloseCase', async (caller, request: shieldAnalyzerV1GrpcJs.CloseCaseRequest) => {
        const input = parseJson(request.closeInputJson);
        const result = input.ok ? await this.service.close(caller, request.caseId, input.value) : input;
        return result.ok ? { ok: true, value: { outcomeJson: json(result.value) } } : result;
      }),
      getCase: unary('GetCase', async (caller, request: shieldAnalyzerV1GrpcJs.GetCaseRequest) => {
        const result = await this.service.get(caller, request.caseId);
        return result.ok
          ? { ok: true, value: { caseRecordJson: json(result.value.case), consultationsJson: result.value.consultations.map(json), outcomesJson: result.value.outcomes.map(json) } }
          : result;
      }),
      listCases: unary('ListCases', async (caller, request: shieldAnalyzerV1GrpcJs.ListCasesRequest) => {
        const result = await this.service.listPage(caller, { status: request.status, limit: request.limit, cursor: request.cursor });
        return result.ok ? { ok: true, value: { casesJson: result.value.cases.map(json), nextCursor: result.value.nextCursor ?? '' } } : result;
      }),
      getCounterparty: unary('GetCounterparty', async (caller, request: shieldAnalyzerV1GrpcJs.GetCounterpartyRequest) => {
        const result = await this.service.counterparty(caller, request.reference, request.limit);
        return result.ok ? { ok: true, value: { counterpartyJson: json(result.value) } } : result;
      }),
      issueAgentToken: unary('IssueAgentToken', async (caller, request: shieldAnalyzerV1GrpcJs.IssueAgentTokenRequest) => {
        const input = parseJson(request.tokenInputJson);
        const result = input.ok ? await this.service.issueAgentToken(caller, request.agentId, input.value) : input;
        return result.ok ? { ok: true, value: { agentTokenJson: json(result.value) } } : result;
      }),
      listAgentTokens: unary('ListAgentTokens', async (caller, request: shieldAnalyzerV1GrpcJs.ListAgentTokensRequest) => {
        const result = await this.service.listAgentTokens(caller, request.agentId);
        return result.ok ? { ok: true, value: { agentTokensJson: result.value.map(json) } } : result;
      }),
      revokeAgentToken: unary('RevokeAgentToken', async (caller, request: shieldAnalyzerV1GrpcJs.RevokeAgentTokenRequest) => {
        const result = await this.service.revokeAgentToken(caller, request.agentId, request.tokenId);
        return result.ok ? { ok: true, value: { agentTokenJson: json(result.value) } } : result;
      }),
    };
    this.server.addService(tolerantDecoding(shieldAnalyzerV1GrpcJs.ShieldAnalyzerService), implementation);
    this.health = serveHealthAndReflection(this.server, {
      services: [shieldAnalyzerV1GrpcJs.ShieldAnalyzerService],
      protoFiles: [shieldAnalyzerV1GrpcJs.protobufFileName],
      ...(ready ? { ready } : {}),
    });
  }

  /** Binds (plaintext: TLS is the deployment's proxy's, as for REST in this slice); resolves with the port. */
  start(host: string, port: number): Promise<number> {
    return bindPlaintext(this.server, host, port);
  }

  close(): Promise<void> {
    this.health.close();
    return shutdownGracefully(this.server);
  }
}
