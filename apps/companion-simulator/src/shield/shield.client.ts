/**
 * The Companion's client of the Shield's gRPC API (`proto/trustmesh/shield/v1/shield_analyzer.proto`, the
 * generated grpc-js client): open a case, consult on it, close it. Every call carries the configured bearer
 * (an operator credential or an agent token; never logged) and its own deadline, and every failure becomes a
 * `ShieldCallError` with a stable code: the caller never waits longer than the deadline and never sees
 * the Shield's internal text. Answers are bounded (1 MiB) and read as JSON.
 */
import { status, type Metadata, type ServiceError } from '@grpc/grpc-js';
import { bearerMetadataOf, callUnary, channelCredentialsOf, shieldAnalyzerV1, shieldAnalyzerV1GrpcJs as S, type UnaryInvoker } from '@trustmesh/contracts';
import { traceGrpcClientCall, withTraceparent } from '@trustmesh/platform-tracing';

import type { ShieldTarget } from '../config/simulator-config';
import { field, type ShieldFailureCode } from './shield-verdict.mapping';

const MAX_ANSWER_BYTES = 1024 * 1024;

export class ShieldCallError extends Error {
  constructor(
    readonly code: ShieldFailureCode,
    readonly rpc: string,
  ) {
    super(`Shield ${rpc} failed: ${code}`);
    this.name = 'ShieldCallError';
  }
}

/** The gRPC status of a failed call as a failure code (the status message is the Shield's, never shown). */
function failureOf(error: ServiceError): ShieldFailureCode {
  switch (error.code) {
    case status.DEADLINE_EXCEEDED:
      return 'SHIELD_TIMEOUT';
    case status.UNAVAILABLE:
      return 'SHIELD_UNREACHABLE';
    case status.UNAUTHENTICATED:
    case status.PERMISSION_DENIED:
      return 'SHIELD_CREDENTIAL_REFUSED';
    default:
      return 'SHIELD_REFUSED';
  }
}

export class ShieldClient {
  private readonly client: S.ShieldAnalyzerClient;
  private readonly metadata: Metadata;

  constructor(private readonly target: Pick<ShieldTarget, 'address' | 'credential' | 'tls' | 'deadlineMs'>) {
    this.client = new S.ShieldAnalyzerClient(target.address, channelCredentialsOf(target), { 'grpc.max_receive_message_length': MAX_ANSWER_BYTES });
    this.metadata = bearerMetadataOf(target);
  }

  /** Opens a case; resolves with its id. */
  async openCase(caseInput: Record<string, unknown>): Promise<string> {
    const response = await this.unary<S.OpenCaseRequest, S.OpenCaseResponse>('OpenCase', (r, m, o, cb) => this.client.openCase(r, m, o, cb), { caseInputJson: JSON.stringify(caseInput) });
    const caseId = field(parseJson(response.caseRecordJson, 'OpenCase'), 'caseId');
    if (typeof caseId !== 'string' || caseId === '') throw new ShieldCallError('SHIELD_ANSWER_INVALID', 'OpenCase');
    return caseId;
  }

  /** Consults on a case; resolves with the consultation record (parsed JSON, unchecked). */
  async consult(caseId: string, consultInput: Record<string, unknown>): Promise<unknown> {
    const response = await this.unary<S.ConsultRequest, S.ConsultResponse>('Consult', (r, m, o, cb) => this.client.consult(r, m, o, cb), {
      caseId,
      consultInputJson: JSON.stringify(consultInput),
    });
    return parseJson(response.consultationJson, 'Consult');
  }

  /** Closes a case with its outcome; resolves with the outcome record's `result`. */
  async closeCase(caseId: string, closeInput: Record<string, unknown>): Promise<string> {
    const response = await this.unary<S.CloseCaseRequest, S.CloseCaseResponse>('CloseCase', (r, m, o, cb) => this.client.closeCase(r, m, o, cb), {
      caseId,
      closeInputJson: JSON.stringify(closeInput),
    });
    const result = field(parseJson(response.outcomeJson, 'CloseCase'), 'result');
    if (typeof result !== 'string') throw new ShieldCallError('SHIELD_ANSWER_INVALID', 'CloseCase');
    return result;
  }

  close(): void {
    this.client.close();
  }

  private unary<Req, Res>(rpc: string, invoke: UnaryInvoker<Req, Res>, request: Req): Promise<Res> {
    // A client span per call, its traceparent in a copy of the shared metadata: the Shield's span is its child.
    return traceGrpcClientCall(`/${shieldAnalyzerV1.TRUSTMESH_SHIELD_V1_PACKAGE_NAME}.${shieldAnalyzerV1.SHIELD_ANALYZER_SERVICE_NAME}/${rpc}`, () =>
      callUnary(invoke, request, withTraceparent(this.metadata.clone()), this.target.deadlineMs),
    ).catch((error: ServiceError) => {
      throw new ShieldCallError(failureOf(error), rpc);
    });
  }
}

function parseJson(text: string, rpc: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ShieldCallError('SHIELD_ANSWER_INVALID', rpc);
  }
}
