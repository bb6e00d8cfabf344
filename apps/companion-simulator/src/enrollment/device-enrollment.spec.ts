// Enrollment against a real HTTP server playing the gateway's redeem endpoint, and the credential file on a
// real file system: mode 0600 from creation, refusal of a readable file, no overwrite without unenroll.
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { gatewayEndpoints, type GatewayEndpoints } from '../config/simulator-config';
import { loadEnrollment, saveEnrollment } from './credential.store';
import { enrollDevice, ensureEnrollment, unenrollDevice } from './device-enrollment.service';
import { EnrollmentError } from './enrollment.errors';

const DEVICE_ID = '0190a5e4-9d2f-7c4b-8a11-6e3d8f9b2c53';
const WORKSPACE_ID = '0190a5e4-7c1e-7b3a-9f00-5d2c7e8a1b42';
const CREDENTIAL = 'dc_0123456789abcdefghijklmnop';
const PAIRING_CODE = 'PAIR-0123-4567-89AB';

type Handler = (body: string, req: IncomingMessage, res: ServerResponse) => void;

describe('device enrollment', () => {
  let server: Server;
  let handler: Handler;
  let gateway: GatewayEndpoints;
  let dir: string;
  const requests: Array<{ method?: string; url?: string; type?: string; body: string }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        requests.push({ method: req.method, url: req.url, type: req.headers['content-type'], body });
        handler(body, req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const endpoints = gatewayEndpoints(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    if (typeof endpoints === 'string') throw new Error(endpoints);
    gateway = endpoints;
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sim-enroll-'));
    requests.length = 0;
    handler = (_body, _req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ deviceId: DEVICE_ID, workspaceId: WORKSPACE_ID, deviceCredential: CREDENTIAL }));
    };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const config = (overrides: { pairingCode?: string | null } = {}) => ({
    gateway,
    tls: { insecureDev: false },
    pairingCode: overrides.pairingCode === undefined ? `  ${PAIRING_CODE}\n` : overrides.pairingCode,
    credentialFile: join(dir, 'nested', 'device-credential.json'),
  });

  it('redeems the trimmed code as JSON and stores the device in a 0600 file without the pairing code', async () => {
    const enrollment = await enrollDevice(config());
    expect(requests).toEqual([{ method: 'POST', url: '/v1/device-enrollments/redeem', type: 'application/json', body: JSON.stringify({ code: PAIRING_CODE }) }]);
    expect(enrollment).toMatchObject({ deviceId: DEVICE_ID, workspaceId: WORKSPACE_ID, deviceCredential: CREDENTIAL });

    const file = config().credentialFile;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const content = readFileSync(file, 'utf8');
    expect(content).not.toContain(PAIRING_CODE);
    await expect(loadEnrollment(file)).resolves.toMatchObject({ deviceId: DEVICE_ID, workspaceId: WORKSPACE_ID, deviceCredential: CREDENTIAL, workingDirectory: process.cwd() });
  });

  it('refuses to enroll again until unenrolled, without spending the code', async () => {
    await enrollDevice(config());
    requests.length = 0;
    await expect(enrollDevice(config())).rejects.toMatchObject({ code: 'ALREADY_ENROLLED' });
    expect(requests).toEqual([]);
    await expect(ensureEnrollment(config())).rejects.toMatchObject({ code: 'ALREADY_ENROLLED' });

    await expect(unenrollDevice(config())).resolves.toBe(true);
    await expect(unenrollDevice(config())).resolves.toBe(false);
    await expect(enrollDevice(config())).resolves.toMatchObject({ deviceId: DEVICE_ID });
  });

  it('uses the stored device when no code is given, and asks for a code when nothing is stored', async () => {
    await expect(ensureEnrollment(config({ pairingCode: null }))).rejects.toMatchObject({ code: 'NOT_ENROLLED' });
    await enrollDevice(config());
    requests.length = 0;
    await expect(ensureEnrollment(config({ pairingCode: null }))).resolves.toMatchObject({ deviceCredential: CREDENTIAL });
    expect(requests).toEqual([]);
  });

  it('refuses a credential file that other users can read', async () => {
    await enrollDevice(config());
    chmodSync(config().credentialFile, 0o644);
    await expect(loadEnrollment(config().credentialFile)).rejects.toMatchObject({ code: 'CREDENTIAL_FILE_INSECURE' });
  });

  it('refuses a credential file that is not an enrollment', async () => {
    const file = join(dir, 'garbage.json');
    writeFileSync(file, '{"deviceId": "x"}', { mode: 0o600 });
    await expect(loadEnrollment(file)).rejects.toMatchObject({ code: 'CREDENTIAL_FILE_INVALID' });
  });

  it('never replaces an existing file when saving', async () => {
    const file = join(dir, 'existing.json');
    writeFileSync(file, 'keep me', { mode: 0o600 });
    await expect(
      saveEnrollment(file, { deviceId: DEVICE_ID, workspaceId: WORKSPACE_ID, deviceCredential: CREDENTIAL, gatewayUrl: 'x', workingDirectory: '/', enrolledAt: 'now' }),
    ).rejects.toMatchObject({ code: 'ALREADY_ENROLLED' });
    expect(readFileSync(file, 'utf8')).toBe('keep me');
  });

  it.each([
    ['an extra field', { deviceId: DEVICE_ID, workspaceId: WORKSPACE_ID, deviceCredential: CREDENTIAL, extra: 1 }],
    ['a short credential', { deviceId: DEVICE_ID, workspaceId: WORKSPACE_ID, deviceCredential: 'short' }],
  ])('fails on a 2xx reply with %s and stores nothing', async (_case, reply) => {
    handler = (_body, _req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    };
    await expect(enrollDevice(config())).rejects.toMatchObject({ code: 'ENROLLMENT_INVALID_REPLY' });
    await expect(loadEnrollment(config().credentialFile)).resolves.toBeNull();
  });

  it('fails on a reply that is not JSON', async () => {
    handler = (_body, _req, res) => {
      res.writeHead(200);
      res.end('<html>');
    };
    await expect(enrollDevice(config())).rejects.toMatchObject({ code: 'ENROLLMENT_INVALID_REPLY' });
  });

  it('reports a refusal with the gateway\'s code but no free text and no pairing code', async () => {
    handler = (_body, _req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'PAIRING_CODE_INVALID', message: 'internal detail' }));
    };
    const error = (await enrollDevice(config()).catch((e: unknown) => e)) as EnrollmentError;
    expect(error.code).toBe('ENROLLMENT_REFUSED');
    expect(error.message).toContain('HTTP 400 PAIRING_CODE_INVALID');
    expect(error.message).not.toContain('internal detail');
    expect(error.message).not.toContain(PAIRING_CODE);
  });

  it('gives up when the gateway does not answer within the timeout', async () => {
    handler = () => undefined;
    await expect(enrollDevice(config(), { timeoutMs: 100 })).rejects.toMatchObject({ code: 'ENROLLMENT_TIMEOUT' });
  });

  it('reports an unreachable gateway', async () => {
    const closed = gatewayEndpoints('http://127.0.0.1:1');
    if (typeof closed === 'string') throw new Error(closed);
    await expect(enrollDevice({ ...config(), gateway: closed })).rejects.toMatchObject({ code: 'ENROLLMENT_UNREACHABLE' });
  });
});
