/**
 * POST /v1/device-enrollments/redeem {code} → 200 {deviceId, workspaceId, deviceCredential} (§12 step 3,
 * exactly those keys). Refusals are JSON `{"code": "<STABLE_CODE>", "message": "<what to do>"}`:
 *
 * | status | code | when |
 * |---|---|---|
 * | 415 | CONTENT_TYPE_UNSUPPORTED | not `application/json` |
 * | 413 | BODY_TOO_LARGE | body over 8 KiB |
 * | 400 | BODY_INVALID_JSON | not JSON, or not an object |
 * | 400 | CODE_REQUIRED, CODE_TOO_LONG, PAIRING_CODE_INVALID | no code, over 4 KiB, unknown or malformed |
 * | 410 | PAIRING_CODE_EXPIRED | past its expiry |
 * | 409 | PAIRING_CODE_ALREADY_USED | redeemed before |
 * | 429 | RATE_LIMITED | too many attempts from this source (Retry-After) |
 * | 503 | ENROLLMENT_UNAVAILABLE | the store is unreachable; retry later |
 *
 * The app runs without Nest's body parser (main.ts), so this handler reads the body itself with a hard
 * size bound before anything is parsed (`@trustmesh/platform-http-body`). Responses are
 * `Cache-Control: no-store`: one carries a credential.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { BodyTooLargeError, hasJsonContentType, readBoundedBody } from '@trustmesh/platform-http-body';
import { sourceAddress, sourceKey, WindowRateLimiter } from '@trustmesh/platform-rate-limits';

import { RELAY_CONFIG, type RelayGatewayConfig } from '../config/relay-gateway.config';
import { RELAY_LOGGER, type JsonLogger } from '../logging/json-logger';
import { DeviceEnrollmentService, REDEEM_ERRORS } from './device-enrollment.service';

export const MAX_REDEEM_BODY_BYTES = 8 * 1024;

type ReplyCode = keyof typeof REDEEM_ERRORS | 'CONTENT_TYPE_UNSUPPORTED' | 'BODY_TOO_LARGE' | 'BODY_INVALID_JSON' | 'RATE_LIMITED' | 'ENROLLMENT_UNAVAILABLE';

const TRANSPORT_ERRORS: Record<Exclude<ReplyCode, keyof typeof REDEEM_ERRORS>, { status: number; message: string }> = {
  CONTENT_TYPE_UNSUPPORTED: { status: 415, message: 'Send the body as Content-Type: application/json.' },
  BODY_TOO_LARGE: { status: 413, message: `The body must be at most ${MAX_REDEEM_BODY_BYTES} bytes.` },
  BODY_INVALID_JSON: { status: 400, message: 'The body must be a JSON object {"code": "<pairing code>"}.' },
  RATE_LIMITED: { status: 429, message: 'Too many enrollment attempts from this address. Wait and retry.' },
  ENROLLMENT_UNAVAILABLE: { status: 503, message: 'Enrollment is unavailable right now. Retry later.' },
};

export const DEVICE_ENROLLMENT_SERVICE = Symbol.for('trustmesh.relay-gateway.DeviceEnrollmentService');

@Controller('v1/device-enrollments')
export class DeviceEnrollmentController {
  private readonly limiter: WindowRateLimiter;

  constructor(
    @Inject(DEVICE_ENROLLMENT_SERVICE) private readonly enrollment: DeviceEnrollmentService,
    @Inject(RELAY_CONFIG) private readonly config: RelayGatewayConfig,
    @Inject(RELAY_LOGGER) private readonly logger: JsonLogger,
  ) {
    this.limiter = new WindowRateLimiter({ limit: config.enrollment.rateLimitPerWindow, windowSeconds: config.enrollment.rateLimitWindowSeconds });
  }

  @Post('redeem')
  @HttpCode(200)
  async redeem(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    const rate = this.limiter.take(this.sourceOf(request));
    if (!rate.allowed) {
      request.resume();
      return reply(response, 'RATE_LIMITED', { 'Retry-After': String(rate.retryAfterSeconds) });
    }
    if (!hasJsonContentType(request)) {
      request.resume();
      return reply(response, 'CONTENT_TYPE_UNSUPPORTED');
    }
    let body: unknown;
    try {
      body = JSON.parse((await readBoundedBody(request, MAX_REDEEM_BODY_BYTES)).toString('utf8'));
    } catch (error) {
      return reply(response, error instanceof BodyTooLargeError ? 'BODY_TOO_LARGE' : 'BODY_INVALID_JSON');
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return reply(response, 'BODY_INVALID_JSON');
    let result;
    try {
      result = await this.enrollment.redeem((body as { code?: unknown }).code);
    } catch (error) {
      this.logger.error('redeem failed', { errorName: error instanceof Error ? error.name : 'unknown' });
      return reply(response, 'ENROLLMENT_UNAVAILABLE', { 'Retry-After': '5' });
    }
    if (!result.ok) return reply(response, result.code);
    sendJson(response, 200, { deviceId: result.deviceId, workspaceId: result.workspaceId, deviceCredential: result.deviceCredential });
  }

  private sourceOf(request: IncomingMessage): string {
    return sourceKey(sourceAddress(request, this.config.trustedProxies));
  }
}

function reply(response: ServerResponse, code: ReplyCode, headers: Record<string, string> = {}): void {
  const entry = code in TRANSPORT_ERRORS ? TRANSPORT_ERRORS[code as keyof typeof TRANSPORT_ERRORS] : REDEEM_ERRORS[code as keyof typeof REDEEM_ERRORS];
  sendJson(response, entry.status, { code, message: entry.message }, headers);
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    'Cache-Control': 'no-store',
    ...headers,
  });
  response.end(text);
}
