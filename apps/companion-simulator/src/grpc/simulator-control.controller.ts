/**
 * gRPC SimulatorControl (proto/trustmesh/relay/v1/simulator_control.proto): bearer authentication in
 * constant time, the documented bounds, and stable status codes. Internal failures become INTERNAL with a
 * fixed message; their text stays in the simulator's log. Each call is a server span (the platform's
 * `traceGrpcServerCall`, as on the other apps' gRPC servers), a child of the caller's trace when its
 * metadata carries one.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

import { Metadata, status } from '@grpc/grpc-js';
import { Controller, Inject, Logger } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { simulatorControlV1 } from '@trustmesh/contracts';
import { traceGrpcServerCall } from '@trustmesh/platform-tracing';

import { SIMULATOR_CONTROL, SIMULATOR_CONTROL_CREDENTIAL, SimulatorControlError, type SimulatorControlPort } from './simulator-control.port';

const MAX_SCENARIO_BYTES = 1024 * 1024;
const MAX_RECONNECT_AFTER_MS = 300_000;
const STATUS_OF: Record<SimulatorControlError['code'], status> = {
  INVALID_ARGUMENT: status.INVALID_ARGUMENT,
  FAILED_PRECONDITION: status.FAILED_PRECONDITION,
  UNAVAILABLE: status.UNAVAILABLE,
};

const INTERNAL_MESSAGE = 'the simulator failed to carry out the call; see its log';
const SERVICE_PATH = `/${simulatorControlV1.TRUSTMESH_RELAY_V1_PACKAGE_NAME}.${simulatorControlV1.SIMULATOR_CONTROL_SERVICE_NAME}`;

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

@Controller()
@simulatorControlV1.SimulatorControlControllerMethods()
export class SimulatorControlController implements simulatorControlV1.SimulatorControlController {
  private readonly logger = new Logger('SimulatorControl');
  private readonly credentialDigest: Buffer;

  constructor(
    @Inject(SIMULATOR_CONTROL) private readonly simulator: SimulatorControlPort,
    @Inject(SIMULATOR_CONTROL_CREDENTIAL) credential: string,
  ) {
    this.credentialDigest = digest(credential);
  }

  async getStats(_request: simulatorControlV1.GetStatsRequest, metadata?: Metadata): Promise<simulatorControlV1.GetStatsResponse> {
    return this.call('GetStats', metadata, async () => this.simulator.stats());
  }

  async startScenario(request: simulatorControlV1.StartScenarioRequest, metadata?: Metadata): Promise<simulatorControlV1.StartScenarioResponse> {
    return this.call('StartScenario', metadata, async () => {
      if (request.document.trim() === '') throw new SimulatorControlError('INVALID_ARGUMENT', 'document is empty');
      if (Buffer.byteLength(request.document, 'utf8') > MAX_SCENARIO_BYTES) throw new SimulatorControlError('INVALID_ARGUMENT', 'document is larger than 1 MiB');
      if (!['', 'json', 'yaml'].includes(request.format)) throw new SimulatorControlError('INVALID_ARGUMENT', 'format must be "json", "yaml" or empty');
      return this.simulator.startScenario(request.document, request.format === '' ? undefined : (request.format as 'json' | 'yaml'));
    });
  }

  async disconnect(request: simulatorControlV1.DisconnectRequest, metadata?: Metadata): Promise<simulatorControlV1.DisconnectResponse> {
    return this.call('Disconnect', metadata, async () => {
      if (request.reconnectAfterMs > MAX_RECONNECT_AFTER_MS) throw new SimulatorControlError('INVALID_ARGUMENT', 'reconnect_after_ms must be at most 300000');
      return this.simulator.disconnect(request.reconnectAfterMs);
    });
  }

  async restart(_request: simulatorControlV1.RestartRequest, metadata?: Metadata): Promise<simulatorControlV1.RestartResponse> {
    return this.call('Restart', metadata, () => this.simulator.restart());
  }

  async startLoad(request: simulatorControlV1.StartLoadRequest, metadata?: Metadata): Promise<simulatorControlV1.StartLoadResponse> {
    return this.call('StartLoad', metadata, async () => {
      if (request.companions < 1 || request.companions > 1000) throw new SimulatorControlError('INVALID_ARGUMENT', 'companions must be from 1 to 1000');
      if (request.browsers > 10_000) throw new SimulatorControlError('INVALID_ARGUMENT', 'browsers must be at most 10000');
      if (request.durationSeconds > 3600) throw new SimulatorControlError('INVALID_ARGUMENT', 'duration_seconds must be at most 3600');
      if (request.turnIntervalMs > 600_000) throw new SimulatorControlError('INVALID_ARGUMENT', 'turn_interval_ms must be at most 600000');
      if (!['', '1.2', '1.1'].includes(request.wireVersion)) throw new SimulatorControlError('INVALID_ARGUMENT', 'wire_version must be "1.2", "1.1" or empty');
      return this.simulator.startLoad(request);
    });
  }

  async stopLoad(_request: simulatorControlV1.StopLoadRequest, metadata?: Metadata): Promise<simulatorControlV1.StopLoadResponse> {
    return this.call('StopLoad', metadata, async () => ({ load: await this.simulator.stopLoad() }));
  }

  /** One call under its server span, which records the status code the caller gets. */
  private async call<T>(method: string, metadata: Metadata | undefined, run: () => Promise<T>): Promise<T> {
    const settled: { value?: T; refusal?: RpcException } = {};
    await traceGrpcServerCall(`${SERVICE_PATH}/${method}`, metadata ?? new Metadata(), async () => {
      try {
        settled.value = await this.answer(metadata, run);
        return status.OK;
      } catch (error) {
        settled.refusal = error instanceof RpcException ? error : new RpcException({ code: status.INTERNAL, message: INTERNAL_MESSAGE });
        return codeOf(settled.refusal);
      }
    });
    if (settled.refusal) throw settled.refusal;
    return settled.value as T;
  }

  private async answer<T>(metadata: Metadata | undefined, run: () => Promise<T>): Promise<T> {
    this.authenticate(metadata);
    try {
      return await run();
    } catch (error) {
      if (error instanceof SimulatorControlError) throw new RpcException({ code: STATUS_OF[error.code], message: error.message });
      if (error instanceof RpcException) throw error;
      this.logger.error(`SimulatorControl call failed: ${error instanceof Error ? error.message : String(error)}`);
      throw new RpcException({ code: status.INTERNAL, message: INTERNAL_MESSAGE });
    }
  }

  private authenticate(metadata: Metadata | undefined): void {
    const values = metadata?.get('authorization') ?? [];
    const header = values.length === 1 && typeof values[0] === 'string' ? values[0] : '';
    const match = /^Bearer ([\x21-\x7e]{1,4096})$/.exec(header);
    // Compare digests: equal length whatever the input, so the comparison time says nothing about the secret.
    if (!match?.[1] || !timingSafeEqual(digest(match[1]), this.credentialDigest)) {
      throw new RpcException({ code: status.UNAUTHENTICATED, message: 'a valid bearer simulator control credential is required' });
    }
  }
}

function codeOf(refusal: RpcException): number {
  const body = refusal.getError();
  return typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'number' ? (body as { code: number }).code : status.UNKNOWN;
}
