/**
 * The one rule for an app's gRPC client to another Trustmesh app (the simulator to the Shield, the relay to
 * the card registry, …), read from a family of variables that share a prefix:
 *
 * | variable | meaning |
 * |---|---|
 * | `<P>_ADDRESS` (the app may name it otherwise) | `host:port` of the other app's gRPC API |
 * | `<P>_CREDENTIAL` / `<P>_CREDENTIAL_FILE` | the bearer sent as `authorization: Bearer …`; one of them, required with the address |
 * | `<P>_TLS` | default `true`, except on a loopback host (`localhost`, 127.0.0.0/8, `::1`) where it is `false` |
 * | `<P>_TLS_CA_FILE` | PEM of the CA to trust instead of the system's; implies TLS |
 *
 * Why plaintext is an explicit choice off loopback: the bearer would otherwise cross the network in the clear.
 * An operator who knows the hop is protected (a pod-to-pod call behind NetworkPolicies, a mesh doing mTLS)
 * sets `<P>_TLS=false`; nothing falls back to plaintext by itself.
 *
 * Every refusal names its variable and carries a stable code (`GRPC_TARGET_*`). The credential is held in a
 * `SecretText` and never appears in a message, a log line or a serialized configuration.
 */
import { readFileSync, statSync } from 'node:fs';
import { inspect } from 'node:util';

import type { EnvReader } from './env-reader';

/** A secret held in memory only; `reveal()` is the one way to read it (it prints and serializes as `[redacted]`). */
export class SecretText {
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  reveal(): string {
    return this.#text;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return '[redacted]';
  }
}

/** The variables of one client; `credentialFile` and `caFile` are optional for apps that do not offer them. */
export interface GrpcClientVariables {
  address: string;
  credential: string;
  credentialFile?: string;
  tls: string;
  caFile?: string;
}

/** The variables `<prefix>_ADDRESS`, `_CREDENTIAL`, `_CREDENTIAL_FILE`, `_TLS`, `_TLS_CA_FILE`. */
export function grpcClientVariables(prefix: string): Required<GrpcClientVariables> {
  return {
    address: `${prefix}_ADDRESS`,
    credential: `${prefix}_CREDENTIAL`,
    credentialFile: `${prefix}_CREDENTIAL_FILE`,
    tls: `${prefix}_TLS`,
    caFile: `${prefix}_TLS_CA_FILE`,
  };
}

export interface GrpcClientTarget {
  /** `host:port` as given. */
  address: string;
  loopback: boolean;
  /** null: plaintext; else TLS trusting `ca` (null: the system's CAs). */
  tls: { ca: Buffer | null } | null;
  credential: SecretText;
}

export interface GrpcClientTargetOptions {
  /** Who the client calls, for messages ("the Shield", "the card registry"). */
  peer: string;
  /** Refuse when none of the variables is set (the caller's other variables asked for this client). */
  required?: boolean;
  /** The shape the peer's credentials have, as a message for a credential that does not (null: any 16–4096 printable characters). */
  credentialShape?: { pattern: RegExp; description: string } | null;
  /** Reads a file named by a variable (tests and relative-path handling pass their own). */
  readFile?: (path: string) => Buffer | string;
}

export type GrpcTargetCode =
  | 'GRPC_TARGET_ADDRESS_REQUIRED'
  | 'GRPC_TARGET_ADDRESS_INVALID'
  | 'GRPC_TARGET_CREDENTIAL_REQUIRED'
  | 'GRPC_TARGET_CREDENTIAL_CONFLICT'
  | 'GRPC_TARGET_CREDENTIAL_UNREADABLE'
  | 'GRPC_TARGET_CREDENTIAL_INVALID'
  | 'GRPC_TARGET_TLS_INVALID'
  | 'GRPC_TARGET_CA_UNREADABLE'
  | 'GRPC_TARGET_CA_INVALID'
  | 'GRPC_TARGET_CA_WITHOUT_TLS';

const HOST_PORT = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\]):(\d{1,5})$/;
const DEFAULT_CREDENTIAL = { pattern: /^[\x21-\x7e]{16,4096}$/, description: '16 to 4096 printable characters, no spaces' };
const MAX_FILE_BYTES = 1024 * 1024;

/** True for `localhost`, 127.0.0.0/8 and ::1 (brackets allowed): the only hosts plaintext is the default for. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

function boundedRead(path: string): Buffer {
  if (statSync(path).size > MAX_FILE_BYTES) throw new Error('too large');
  return readFileSync(path);
}

/**
 * Reads one client's variables: null when none is set (the client is off) or when one is refused (the
 * problem is recorded on `reader`, so the app's one ConfigError names it with every other).
 */
export function readGrpcClientTarget(reader: EnvReader, variables: GrpcClientVariables, options: GrpcClientTargetOptions): GrpcClientTarget | null {
  const { value, fail } = reader;
  const refuse = (variable: string, message: string, code: GrpcTargetCode) => fail(variable, message, code);
  const readFile = options.readFile ?? boundedRead;
  const address = value(variables.address);
  const credentialRaw = value(variables.credential);
  const credentialFile = variables.credentialFile === undefined ? undefined : value(variables.credentialFile);
  const tlsRaw = value(variables.tls);
  const caFile = variables.caFile === undefined ? undefined : value(variables.caFile);
  if (!options.required && [address, credentialRaw, credentialFile, tlsRaw, caFile].every((entry) => entry === undefined)) return null;

  let ok = true;
  const match = address === undefined ? null : HOST_PORT.exec(address);
  if (address === undefined) {
    ok = false;
    refuse(variables.address, `is required to reach ${options.peer}: its gRPC host:port`, 'GRPC_TARGET_ADDRESS_REQUIRED');
  } else if (!match || Number(match[1]) < 1 || Number(match[1]) > 65535) {
    ok = false;
    refuse(variables.address, `must be ${options.peer}'s gRPC address as host:port (e.g. shield-analyzer:50061 or 127.0.0.1:50061)`, 'GRPC_TARGET_ADDRESS_INVALID');
  }
  const loopback = address !== undefined && isLoopbackHost(address.slice(0, address.lastIndexOf(':')));

  const credential = readCredential(reader, variables, options, readFile, credentialRaw, credentialFile);
  if (credential === null) ok = false;

  // A CA file says the peer serves TLS, on loopback too (the table above: it implies TLS).
  let tls = !loopback || caFile !== undefined;
  if (tlsRaw !== undefined) {
    const lower = tlsRaw.toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(lower)) tls = true;
    else if (['false', '0', 'no', 'off'].includes(lower)) tls = false;
    else {
      ok = false;
      refuse(variables.tls, `must be true or false (default: true, false only for a loopback ${options.peer})`, 'GRPC_TARGET_TLS_INVALID');
    }
  }
  let ca: Buffer | null = null;
  if (caFile !== undefined && variables.caFile !== undefined) {
    if (!tls) {
      ok = false;
      refuse(variables.caFile, `cannot be used with ${variables.tls}=false; unset one of them`, 'GRPC_TARGET_CA_WITHOUT_TLS');
    }
    try {
      ca = Buffer.from(readFile(caFile));
    } catch {
      ok = false;
      refuse(variables.caFile, `cannot be read (${caFile}; at most 1 MiB)`, 'GRPC_TARGET_CA_UNREADABLE');
    }
    if (ca !== null && !ca.toString('utf8').includes('-----BEGIN CERTIFICATE-----')) {
      ok = false;
      refuse(variables.caFile, `holds no PEM certificate (-----BEGIN CERTIFICATE-----): ${caFile}`, 'GRPC_TARGET_CA_INVALID');
    }
  }
  if (!ok || address === undefined || credential === null) return null;
  return { address, loopback, tls: tls ? { ca } : null, credential: new SecretText(credential) };
}

/** The credential from its variable or its file (one of them); null when missing or refused (recorded). */
function readCredential(
  reader: EnvReader,
  variables: GrpcClientVariables,
  options: GrpcClientTargetOptions,
  readFile: (path: string) => Buffer | string,
  raw: string | undefined,
  file: string | undefined,
): string | null {
  const refuse = (variable: string, message: string, code: GrpcTargetCode) => reader.fail(variable, message, code);
  const either = variables.credentialFile === undefined ? variables.credential : `${variables.credential} or ${variables.credentialFile}`;
  if (raw !== undefined && file !== undefined) {
    refuse(variables.credential, `set either it or ${variables.credentialFile}, not both`, 'GRPC_TARGET_CREDENTIAL_CONFLICT');
    return null;
  }
  if (raw === undefined && file === undefined) {
    refuse(variables.credential, `is required with ${variables.address}: the credential ${options.peer} accepts (set ${either})`, 'GRPC_TARGET_CREDENTIAL_REQUIRED');
    return null;
  }
  let credential = raw;
  const variable = file !== undefined && variables.credentialFile !== undefined ? variables.credentialFile : variables.credential;
  if (file !== undefined) {
    try {
      credential = Buffer.from(readFile(file)).toString('utf8').trim();
    } catch {
      refuse(variable, `cannot be read (${file}; at most 1 MiB)`, 'GRPC_TARGET_CREDENTIAL_UNREADABLE');
      return null;
    }
  }
  const shape = options.credentialShape ?? DEFAULT_CREDENTIAL;
  // Never echo the value: a misplaced secret must not reach the logs.
  if (credential === undefined || !shape.pattern.test(credential)) {
    refuse(variable, `must hold a credential of ${options.peer}: ${shape.description}`, 'GRPC_TARGET_CREDENTIAL_INVALID');
    return null;
  }
  return credential;
}
