/**
 * Redeems a one-time pairing code at the gateway (§12 step 2): `POST <base>/v1/device-enrollments/redeem`
 * with `{"code": …}`, a 30 s budget for the whole exchange, a bounded reply, and the strict reply check of
 * enrollment-reply.ts. The pairing code and the credential never appear in an error.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

import type { TlsTrust } from '../config/simulator-config';
import { checkEnrollmentReply, type EnrollmentReply } from './enrollment-reply';
import { EnrollmentError } from './enrollment.errors';

export const REDEEM_TIMEOUT_MS = 30_000;
const MAX_REPLY_BYTES = 64 * 1024;
const MAX_PAIRING_CODE_BYTES = 4096;
/** A gateway's `{"code": …}` refusal is echoed only when it looks like a code, never as free text. */
const REFUSAL_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;

export interface RedeemOptions {
  redeemUrl: string;
  tls: TlsTrust;
  timeoutMs?: number;
}

export async function redeemPairingCode(code: string, options: RedeemOptions): Promise<EnrollmentReply> {
  const trimmed = code.trim();
  if (trimmed === '' || Buffer.byteLength(trimmed) > MAX_PAIRING_CODE_BYTES) {
    throw new EnrollmentError('ENROLLMENT_REFUSED', 'the pairing code must be 1 to 4096 bytes after trimming');
  }
  const body = JSON.stringify({ code: trimmed });
  const url = new URL(options.redeemUrl);
  const secure = url.protocol === 'https:';
  const timeoutMs = options.timeoutMs ?? REDEEM_TIMEOUT_MS;

  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const send = secure ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), accept: 'application/json' },
        ...(secure ? { ca: options.tls.ca, rejectUnauthorized: !options.tls.insecureDev } : {}),
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_REPLY_BYTES) {
            req.destroy();
            reject(new EnrollmentError('ENROLLMENT_INVALID_REPLY', `the gateway's reply is larger than ${MAX_REPLY_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', () => reject(new EnrollmentError('ENROLLMENT_UNREACHABLE', 'the connection to the gateway broke during enrollment')));
      },
    );
    // One budget for connect, TLS, request and reply (§11: redeem timeout 30 s).
    const timer = setTimeout(() => {
      req.destroy();
      reject(new EnrollmentError('ENROLLMENT_TIMEOUT', `the gateway did not answer the redeem request within ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    timer.unref();
    req.on('close', () => clearTimeout(timer));
    req.on('error', (error: NodeJS.ErrnoException) => {
      const tlsProblem = typeof error.code === 'string' && /CERT|SELF_SIGNED|TLS|SSL/.test(error.code);
      reject(
        new EnrollmentError(
          'ENROLLMENT_UNREACHABLE',
          tlsProblem
            ? `the gateway's TLS certificate is not trusted (${error.code}); set RELAY_GATEWAY_CA_FILE to its certificate`
            : `cannot reach the gateway at ${url.origin} (${error.code ?? 'connection failed'})`,
        ),
      );
    });
    req.end(body);
  });

  if (status < 200 || status > 299) {
    let refusal = '';
    try {
      const parsed: unknown = JSON.parse(text);
      const gatewayCode = (parsed as { code?: unknown } | null)?.code;
      if (typeof gatewayCode === 'string' && REFUSAL_CODE.test(gatewayCode)) refusal = ` ${gatewayCode}`;
    } catch {
      refusal = '';
    }
    throw new EnrollmentError(
      'ENROLLMENT_REFUSED',
      `the gateway refused the pairing code (HTTP ${status}${refusal}); ask for a new code: codes are single-use and expire`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new EnrollmentError('ENROLLMENT_INVALID_REPLY', 'the gateway\'s reply is not JSON');
  }
  const reply = checkEnrollmentReply(parsed);
  if (typeof reply === 'string') throw new EnrollmentError('ENROLLMENT_INVALID_REPLY', `the gateway's reply is not a valid enrollment: ${reply}`);
  return reply;
}
