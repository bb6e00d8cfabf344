/**
 * The control plane end to end on embedded PGlite: one gateway started by the real bootstrap, a real
 * grpc-js RelayControl client, real HTTPS requests that verify the self-signed development certificate,
 * and the RelayDirectory the data plane uses. gRPC runs over TLS with the same development certificate. The last tests read every table and the logs for secrets,
 * then stop the gateway under an open watch.
 */
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import * as grpc from '@grpc/grpc-js';
import { createTempDataDir } from '@trustmesh/platform-database/testing';
import { relayControlV1GrpcJs, serviceInfoV1GrpcJs } from '@trustmesh/contracts';
import { waitUntil } from '@trustmesh/platform-testing';
import { validateBrowserSessionDescriptor } from '@trustmesh/relay-protocol';

import { RELAY_DIRECTORY, type RelayDirectory, type WorkspaceStatusView } from '../src/control/relay-directory.port';
import type { RelayGatewayHandle } from '../src/relay-gateway.bootstrap';
import { bearer, call, controlClient, https, redeem, serviceInfoClient, startTestGateway, statusOf, type RelayControlClient } from './support/gateway.fixture';

const { WorkspaceConnectivity } = relayControlV1GrpcJs;
const ORIGIN = 'https://app.trustmesh.test';

describe('relay gateway control plane (embedded PGlite)', () => {
  let dataDir: { dataDir: string; remove(): Promise<void> };
  let gateway: RelayGatewayHandle;
  let printed: string[];
  let logs: string[];
  let client: RelayControlClient;
  let directory: RelayDirectory;
  let auth: grpc.Metadata;
  /** Every secret the gateway handed out: none may be stored or logged in plain text. */
  const secrets: string[] = [];
  let sourceCounter = 0;
  const source = () => ({ 'x-forwarded-for': `198.51.100.${++sourceCounter}` });

  const createWorkspace = async (overrides: Partial<relayControlV1GrpcJs.CreateWorkspaceRequest> = {}) => {
    const response = await call(
      client,
      client.createWorkspace,
      { requestId: crypto.randomUUID(), ownerUserId: 'user-1', displayName: 'Laptop workspace', endToEndEncrypted: false, ...overrides },
      auth,
    );
    return response.workspace!;
  };
  const pairingCode = async (workspaceId: string, ttlSeconds = 0) => {
    const response = await call(client, client.createPairingCode, { workspaceId, ttlSeconds, requestedByUserId: 'user-1' }, auth);
    secrets.push(response.pairingCode);
    return response;
  };
  const enroll = async (workspaceId: string) => {
    const { pairingCode: code } = await pairingCode(workspaceId);
    const reply = await redeem(gateway, code, source());
    expect(reply.status).toBe(200);
    const device = reply.json as { deviceId: string; workspaceId: string; deviceCredential: string };
    secrets.push(device.deviceCredential);
    return device;
  };
  const browserSession = async (workspaceId: string, acceptedWireVersions = ['1.2', '1.1']) => {
    const response = await call(client, client.createBrowserSession, { workspaceId, origin: ORIGIN, acceptedWireVersions, userId: 'user-1' }, auth);
    const url = new URL(response.descriptor!.connectUrl);
    const ticket = url.searchParams.get('ticket')!;
    secrets.push(ticket);
    return { descriptor: response.descriptor!, ticket };
  };

  beforeAll(async () => {
    dataDir = await createTempDataDir('relay-gateway-e2e');
    ({ gateway, printed, logs } = await startTestGateway({
      TRUSTMESH_DATA_DIR: dataDir.dataDir,
      // The test client is the "proxy": its X-Forwarded-For hops are believed, right-most first.
      RELAY_TRUSTED_PROXIES: '127.0.0.1',
      RELAY_ENROLLMENT_RATE_LIMIT: '5',
      RELAY_PAIRING_CODE_MAX_TTL_SECONDS: '900',
      // gRPC over TLS with the development certificate too; the clients trust only that certificate.
      RELAY_GRPC_TLS: 'true',
    }));
    client = controlClient(gateway);
    directory = gateway.app.get<RelayDirectory>(RELAY_DIRECTORY);
    auth = bearer(gateway.developmentServiceCredential);
    secrets.push(gateway.developmentServiceCredential!);
  });

  afterAll(async () => {
    client?.close();
    await gateway?.close();
    await dataDir?.remove();
  });

  describe('start-up', () => {
    it('mints a development service credential and prints it once', () => {
      const lines = printed.filter((line) => line.includes(gateway.developmentServiceCredential!));
      expect(lines).toHaveLength(1);
      expect(gateway.developmentServiceCredential).toMatch(/^tmsc_[A-Za-z0-9_-]{43}$/);
    });

    it('serves HTTPS with a persisted self-signed certificate for localhost, verified by the client', async () => {
      const certFile = join(dataDir.dataDir, 'relay-gateway', 'tls', 'cert.pem');
      const cert = new X509Certificate(await readFile(certFile, 'utf8'));
      expect(cert.subjectAltName).toContain('DNS:localhost');
      expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
      expect(gateway.httpUrl).toMatch(/^https:\/\//);
      const health = await https(gateway, '/healthz');
      expect(health.status).toBe(200);
      const ready = await https(gateway, '/readyz');
      expect(ready.json).toEqual({ status: 'ready', checks: { database: 'ok', bus: 'ok' } });
    });

    it('answers ServiceInfo to an authenticated caller', async () => {
      const info = serviceInfoClient(gateway);
      const reply = await call(info, info.getServiceInfo, {}, auth);
      expect(reply).toEqual({
        serviceName: 'relay-gateway',
        version: '0.1.0',
        grpcPackages: ['trustmesh.platform.v1', 'trustmesh.relay.v1'],
        wireVersions: ['1.2', '1.1'],
        controlVersions: ['1.0'],
      });
      expect(await statusOf(call(info, info.getServiceInfo, {}, bearer(null)))).toBe('UNAUTHENTICATED');
      info.close();
      // The port speaks TLS only.
      const plaintext = new serviceInfoV1GrpcJs.ServiceInfoClient(gateway.grpcAddress, grpc.credentials.createInsecure());
      expect(await statusOf(call(plaintext, plaintext.getServiceInfo, {}, auth))).toBe('UNAVAILABLE');
      plaintext.close();
    });
  });

  describe('authentication', () => {
    it('refuses every RPC without a valid bearer service credential', async () => {
      const workspace = await createWorkspace();
      const { deviceCredential } = await enroll(workspace.workspaceId);
      const refusals = [
        bearer(null),
        bearer('tmsc_wrongwrongwrongwrongwrongwrongwrongwrongwro'),
        bearer(deviceCredential),
        (() => {
          const metadata = new grpc.Metadata();
          metadata.set('authorization', `Basic ${gateway.developmentServiceCredential}`);
          return metadata;
        })(),
      ];
      for (const metadata of refusals) {
        const codes = await Promise.all([
          statusOf(call(client, client.createWorkspace, { requestId: crypto.randomUUID(), ownerUserId: 'u', displayName: 'x', endToEndEncrypted: false }, metadata)),
          statusOf(call(client, client.createPairingCode, { workspaceId: workspace.workspaceId, ttlSeconds: 0, requestedByUserId: 'u' }, metadata)),
          statusOf(call(client, client.listDevices, { workspaceId: workspace.workspaceId, pageSize: 0, pageToken: '' }, metadata)),
          statusOf(call(client, client.revokeDevice, { workspaceId: workspace.workspaceId, deviceId: crypto.randomUUID(), reason: '', revokedByUserId: '' }, metadata)),
          statusOf(call(client, client.createBrowserSession, { workspaceId: workspace.workspaceId, origin: ORIGIN, acceptedWireVersions: [], userId: 'u' }, metadata)),
          statusOf(call(client, client.getWorkspaceStatus, { workspaceId: workspace.workspaceId }, metadata)),
          statusOf(call(client, client.listWorkspaceAudit, { workspaceId: workspace.workspaceId, pageSize: 0, pageToken: '' }, metadata)),
          new Promise<string>((resolve) => {
            const stream = client.watchWorkspaceStatus({ workspaceId: workspace.workspaceId }, metadata);
            stream.on('data', () => resolve('DATA'));
            stream.on('error', (error: grpc.ServiceError) => resolve(grpc.status[error.code]));
          }),
        ]);
        expect(codes).toEqual(Array(8).fill('UNAUTHENTICATED'));
      }
    });
  });

  describe('CreateWorkspace', () => {
    it('mints a workspace and is idempotent on request_id, also under concurrent retries', async () => {
      const requestId = crypto.randomUUID();
      const request = { requestId, ownerUserId: 'owner-7', displayName: 'Ada’s workspace', endToEndEncrypted: true };
      const [first, second] = await Promise.all([
        call(client, client.createWorkspace, request, auth),
        call(client, client.createWorkspace, request, auth),
      ]);
      expect(first.workspace).toMatchObject({ ownerUserId: 'owner-7', displayName: 'Ada’s workspace', endToEndEncrypted: true });
      expect(first.workspace!.workspaceId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(second.workspace).toEqual(first.workspace);
      const third = await call(client, client.createWorkspace, request, auth);
      expect(third.workspace).toEqual(first.workspace);
      expect(await statusOf(call(client, client.createWorkspace, { ...request, displayName: 'Other' }, auth))).toBe('ALREADY_EXISTS');
      expect(await statusOf(call(client, client.createWorkspace, { ...request, endToEndEncrypted: false }, auth))).toBe('ALREADY_EXISTS');
    });

    it('refuses a bad request_id or display_name', async () => {
      const base = { requestId: crypto.randomUUID(), ownerUserId: 'u', displayName: 'ok', endToEndEncrypted: false };
      expect(await statusOf(call(client, client.createWorkspace, { ...base, requestId: 'not-a-uuid' }, auth))).toBe('INVALID_ARGUMENT');
      expect(await statusOf(call(client, client.createWorkspace, { ...base, displayName: '   ' }, auth))).toBe('INVALID_ARGUMENT');
      expect(await statusOf(call(client, client.createWorkspace, { ...base, displayName: 'x'.repeat(201) }, auth))).toBe('INVALID_ARGUMENT');
      expect(await statusOf(call(client, client.createWorkspace, { ...base, displayName: 'x'.repeat(200) }, auth))).toBe('OK');
    });
  });

  describe('pairing and enrollment', () => {
    it('issues a high-entropy code, clamps its lifetime, and refuses unknown workspaces', async () => {
      const workspace = await createWorkspace();
      const before = Date.now();
      const byDefault = await pairingCode(workspace.workspaceId);
      const clamped = await pairingCode(workspace.workspaceId, 1_000_000);
      expect(byDefault.pairingCode).toMatch(/^tmpc_[A-Za-z0-9_-]{43}$/);
      const expiry = (response: relayControlV1GrpcJs.CreatePairingCodeResponse) => response.expiresAt!.seconds * 1000;
      expect(expiry(byDefault) - before).toBeLessThanOrEqual(600_000 + 1000);
      expect(expiry(clamped) - before).toBeLessThanOrEqual(900_000 + 1000);
      expect(expiry(clamped) - before).toBeGreaterThan(600_000);
      expect(await statusOf(call(client, client.createPairingCode, { workspaceId: crypto.randomUUID(), ttlSeconds: 0, requestedByUserId: '' }, auth))).toBe('NOT_FOUND');
      expect(await statusOf(call(client, client.createPairingCode, { workspaceId: 'nope', ttlSeconds: 0, requestedByUserId: '' }, auth))).toBe('INVALID_ARGUMENT');
    });

    it('redeems a code once for exactly {deviceId, workspaceId, deviceCredential}', async () => {
      const workspace = await createWorkspace();
      const { pairingCode: code } = await pairingCode(workspace.workspaceId);
      const reply = await redeem(gateway, `  ${code}\n`, source());
      expect(reply.status).toBe(200);
      expect(reply.headers['cache-control']).toBe('no-store');
      expect(Object.keys(reply.json as object).sort()).toEqual(['deviceCredential', 'deviceId', 'workspaceId']);
      const device = reply.json as { deviceId: string; workspaceId: string; deviceCredential: string };
      secrets.push(device.deviceCredential);
      expect(device.workspaceId).toBe(workspace.workspaceId);
      expect(device.deviceCredential).toMatch(/^tmdc_[A-Za-z0-9_-]{43}$/);
      const again = await redeem(gateway, code, source());
      expect([again.status, again.json]).toEqual([409, { code: 'PAIRING_CODE_ALREADY_USED', message: expect.any(String) }]);
    });

    it('lets exactly one of two simultaneous redeems of one code win', async () => {
      const workspace = await createWorkspace();
      const { pairingCode: code } = await pairingCode(workspace.workspaceId);
      const replies = await Promise.all([redeem(gateway, code, source()), redeem(gateway, code, source())]);
      expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409]);
      for (const reply of replies) if (reply.status === 200) secrets.push((reply.json as { deviceCredential: string }).deviceCredential);
    });

    it('refuses an expired code', async () => {
      const workspace = await createWorkspace();
      const issued = await pairingCode(workspace.workspaceId, 1);
      await waitUntil(() => Date.now() > issued.expiresAt!.seconds * 1000 + Math.ceil(issued.expiresAt!.nanos / 1e6) + 5, { what: 'the code to expire' });
      const reply = await redeem(gateway, issued.pairingCode, source());
      expect([reply.status, (reply.json as { code: string }).code]).toEqual([410, 'PAIRING_CODE_EXPIRED']);
    });

    it('bounds and checks the request with stable error codes', async () => {
      const post = (body: string | Buffer, contentType = 'application/json') =>
        https(gateway, '/v1/device-enrollments/redeem', { method: 'POST', body, headers: { 'content-type': contentType, ...source() } });
      const codeOf = (reply: { status: number; json: unknown }) => [reply.status, (reply.json as { code?: string } | undefined)?.code];
      expect(codeOf(await post('{"code":"x"}', 'text/plain'))).toEqual([415, 'CONTENT_TYPE_UNSUPPORTED']);
      expect(codeOf(await post(JSON.stringify({ code: 'x'.repeat(9000) })))).toEqual([413, 'BODY_TOO_LARGE']);
      expect(codeOf(await post('{"code":'))).toEqual([400, 'BODY_INVALID_JSON']);
      expect(codeOf(await post('["code"]'))).toEqual([400, 'BODY_INVALID_JSON']);
      expect(codeOf(await post('{}'))).toEqual([400, 'CODE_REQUIRED']);
      expect(codeOf(await post('{"code":"   "}'))).toEqual([400, 'CODE_REQUIRED']);
      expect(codeOf(await post(JSON.stringify({ code: 'é'.repeat(2049) })))).toEqual([400, 'CODE_TOO_LONG']);
      expect(codeOf(await post('{"code":"tmpc_unknownunknownunknownunknownunknownunknow"}'))).toEqual([400, 'PAIRING_CODE_INVALID']);
    });

    it('rate limits redeem attempts per source address with 429 and Retry-After', async () => {
      const attacker = { 'x-forwarded-for': '203.0.113.77' };
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 6; attempt += 1) statuses.push((await redeem(gateway, `tmpc_guess${attempt}`, attacker)).status);
      expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
      const limited = await redeem(gateway, 'tmpc_guess', attacker);
      expect(limited.status).toBe(429);
      expect(limited.json).toEqual({ code: 'RATE_LIMITED', message: expect.any(String) });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Another source is unaffected.
      expect((await redeem(gateway, 'tmpc_guess', source())).status).toBe(400);
    });

    it('answers with nosniff and the other security headers (no HSTS for a development gateway on localhost)', async () => {
      for (const reply of [await redeem(gateway, 'tmpc_headers', source()), await https(gateway, '/healthz'), await https(gateway, '/nowhere')]) {
        expect(reply.headers['x-content-type-options']).toBe('nosniff');
        expect(reply.headers['x-frame-options']).toBe('DENY');
        expect(reply.headers['strict-transport-security']).toBeUndefined();
      }
    });

    it('counts the right-most untrusted X-Forwarded-For hop: a client cannot pick its source by writing on the left', async () => {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 6; attempt += 1) {
        // What the client wrote comes first; the trusted proxy (127.0.0.1) appended the address it saw.
        statuses.push((await redeem(gateway, `tmpc_spoof${attempt}`, { 'x-forwarded-for': `198.18.0.${attempt + 1}, 203.0.113.99` })).status);
      }
      expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
    });
  });

  describe('device authentication (RelayDirectory)', () => {
    it('accepts the credential in constant time, and never a pairing code or another device’s credential', async () => {
      const workspace = await createWorkspace({ endToEndEncrypted: true });
      const device = await enroll(workspace.workspaceId);
      const other = await enroll(workspace.workspaceId);
      expect(await directory.authenticateDevice(device.deviceId, device.deviceCredential)).toEqual({
        deviceId: device.deviceId,
        workspaceId: workspace.workspaceId,
        endToEndEncrypted: true,
      });
      expect(await directory.authenticateDevice(device.deviceId, other.deviceCredential)).toBeNull();
      expect(await directory.authenticateDevice(crypto.randomUUID(), device.deviceCredential)).toBeNull();
      expect(await directory.authenticateDevice('not-a-uuid', device.deviceCredential)).toBeNull();
      expect(await directory.authenticateDevice(device.deviceId, 'short')).toBeNull();
      const { pairingCode: code } = await pairingCode(workspace.workspaceId);
      expect(await directory.authenticateDevice(device.deviceId, code)).toBeNull();
      // The code was not consumed by that attempt.
      expect((await redeem(gateway, code, source())).status).toBe(200);
    });
  });

  describe('ListDevices and RevokeDevice', () => {
    it('pages a workspace’s unrevoked devices, oldest first', async () => {
      const workspace = await createWorkspace();
      const devices = [await enroll(workspace.workspaceId), await enroll(workspace.workspaceId), await enroll(workspace.workspaceId)];
      const list = (pageToken = '', pageSize = 2) => call(client, client.listDevices, { workspaceId: workspace.workspaceId, pageSize, pageToken }, auth);
      await waitUntil(async () => (await list('', 10)).devices.length === 3, { what: 'the device projection' });
      const first = await list();
      expect(first.devices.map((device) => device.deviceId)).toEqual(devices.slice(0, 2).map((device) => device.deviceId));
      expect(first.devices[0]).toMatchObject({ workspaceId: workspace.workspaceId, connected: false, wireVersion: '' });
      const second = await list(first.nextPageToken);
      expect(second.devices.map((device) => device.deviceId)).toEqual([devices[2]!.deviceId]);
      expect(second.nextPageToken).toBe('');

      expect(await statusOf(list('', -1))).toBe('INVALID_ARGUMENT');
      expect(await statusOf(list('garbage!'))).toBe('INVALID_ARGUMENT');
      const elsewhere = await createWorkspace();
      expect(await statusOf(call(client, client.listDevices, { workspaceId: elsewhere.workspaceId, pageSize: 2, pageToken: first.nextPageToken }, auth))).toBe(
        'INVALID_ARGUMENT',
      );
      expect(await statusOf(call(client, client.listDevices, { workspaceId: crypto.randomUUID(), pageSize: 0, pageToken: '' }, auth))).toBe('NOT_FOUND');
    });

    it('revokes at once: the live socket is closed through the listeners, the credential is refused, repeats are idempotent', async () => {
      const workspace = await createWorkspace();
      const device = await enroll(workspace.workspaceId);
      const connectionId = crypto.randomUUID();
      // What the data plane does: hold the socket, close it when told, and report the close.
      const heard: string[] = [];
      const stop = directory.onDeviceRevoked((revocation) => {
        heard.push(revocation.deviceId);
        if (revocation.deviceId === device.deviceId) {
          void directory.companionDisconnected({ connectionId, workspaceId: workspace.workspaceId, deviceId: device.deviceId, reason: 'revoked' });
        }
      });
      await directory.companionConnected({ connectionId, workspaceId: workspace.workspaceId, deviceId: device.deviceId, wireVersion: '1.2' });
      const revoke = { workspaceId: workspace.workspaceId, deviceId: device.deviceId, reason: 'lost laptop', revokedByUserId: 'admin-1' };
      const first = await call(client, client.revokeDevice, revoke, auth);
      expect(first.disconnected).toBe(true);
      expect(heard).toContain(device.deviceId);
      const status = await call(client, client.getWorkspaceStatus, { workspaceId: workspace.workspaceId }, auth);
      expect(status.status?.connectivity).toBe(WorkspaceConnectivity.OFFLINE);
      expect(await directory.authenticateDevice(device.deviceId, device.deviceCredential)).toBeNull();
      const again = await call(client, client.revokeDevice, revoke, auth);
      expect(again).toEqual({ revokedAt: first.revokedAt, disconnected: false });
      stop();

      await waitUntil(async () => (await call(client, client.listDevices, { workspaceId: workspace.workspaceId, pageSize: 0, pageToken: '' }, auth)).devices.length === 0, {
        what: 'the revoked device to leave the list',
      });
      const other = await createWorkspace();
      expect(await statusOf(call(client, client.revokeDevice, { ...revoke, workspaceId: other.workspaceId }, auth))).toBe('NOT_FOUND');
      expect(await statusOf(call(client, client.revokeDevice, { ...revoke, deviceId: crypto.randomUUID() }, auth))).toBe('NOT_FOUND');
      expect(await statusOf(call(client, client.revokeDevice, { ...revoke, reason: 'x'.repeat(501) }, auth))).toBe('INVALID_ARGUMENT');
    });

    it('refuses a connection that authenticated just before its device was revoked', async () => {
      const workspace = await createWorkspace();
      const device = await enroll(workspace.workspaceId);
      expect(await directory.authenticateDevice(device.deviceId, device.deviceCredential)).not.toBeNull();
      await call(client, client.revokeDevice, { workspaceId: workspace.workspaceId, deviceId: device.deviceId, reason: '', revokedByUserId: '' }, auth);
      const heard: string[] = [];
      const stop = directory.onDeviceRevoked((revocation) => heard.push(revocation.deviceId));
      await directory.companionConnected({ connectionId: crypto.randomUUID(), workspaceId: workspace.workspaceId, deviceId: device.deviceId, wireVersion: '1.1' });
      expect(heard).toContain(device.deviceId);
      stop();
    });
  });

  describe('browser sessions', () => {
    it('mints a valid single-use wss:// descriptor bound to origin, versions and user', async () => {
      const workspace = await createWorkspace();
      const { descriptor, ticket } = await browserSession(workspace.workspaceId);
      const json = { connectUrl: descriptor.connectUrl, expiresAt: new Date(descriptor.expiresAt!.seconds * 1000).toISOString() };
      expect(validateBrowserSessionDescriptor(json).ok).toBe(true);
      const url = new URL(descriptor.connectUrl);
      expect(`${url.protocol}//${url.host}${url.pathname}`).toBe(`wss://localhost:${new URL(gateway.httpUrl).port}/v1/browser`);
      expect(ticket).toMatch(/^tmbt_[A-Za-z0-9_-]{43}$/);

      expect(await directory.consumeBrowserTicket(ticket, 'https://evil.example')).toEqual({ ok: false, code: 'ORIGIN_NOT_ALLOWED' });
      expect(await directory.consumeBrowserTicket(ticket, undefined)).toEqual({ ok: false, code: 'ORIGIN_NOT_ALLOWED' });
      const accepted = await directory.consumeBrowserTicket(ticket, ORIGIN);
      expect(accepted).toEqual({
        ok: true,
        workspaceId: workspace.workspaceId,
        sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        acceptedWireVersions: ['1.2', '1.1'],
        userId: 'user-1',
        origin: ORIGIN,
        encrypted: false,
        expiresAt: expect.any(Date),
        issuedPosition: expect.any(Number),
      });
      expect(await directory.consumeBrowserTicket(ticket, ORIGIN)).toEqual({ ok: false, code: 'SESSION_TICKET_ALREADY_USED' });
      expect(await directory.consumeBrowserTicket('tmbt_unknownunknownunknownunknownunknownunkno', ORIGIN)).toEqual({ ok: false, code: 'SESSION_TICKET_INVALID' });
      expect(await directory.consumeBrowserTicket('x'.repeat(10_000), ORIGIN)).toEqual({ ok: false, code: 'SESSION_TICKET_INVALID' });
    });

    it('lets exactly one of two simultaneous upgrades consume a ticket', async () => {
      const workspace = await createWorkspace();
      const { ticket } = await browserSession(workspace.workspaceId, []);
      const verdicts = await Promise.all([directory.consumeBrowserTicket(ticket, ORIGIN), directory.consumeBrowserTicket(ticket, ORIGIN)]);
      expect(verdicts.filter((verdict) => verdict.ok)).toHaveLength(1);
      expect(verdicts.find((verdict) => !verdict.ok)).toEqual({ ok: false, code: 'SESSION_TICKET_ALREADY_USED' });
      const accepted = verdicts.find((verdict) => verdict.ok);
      expect(accepted && accepted.ok && accepted.acceptedWireVersions).toEqual(['1.1']);
    });

    it('refuses bad origins and version lists', async () => {
      const workspace = await createWorkspace();
      const create = (origin: string, acceptedWireVersions: string[] = ['1.2']) =>
        statusOf(call(client, client.createBrowserSession, { workspaceId: workspace.workspaceId, origin, acceptedWireVersions, userId: 'u' }, auth));
      expect(await create('https://app.example/')).toBe('INVALID_ARGUMENT');
      expect(await create('https://app.example/path')).toBe('INVALID_ARGUMENT');
      expect(await create('HTTPS://APP.EXAMPLE')).toBe('INVALID_ARGUMENT');
      expect(await create('app.example')).toBe('INVALID_ARGUMENT');
      expect(await create('https://app.example', ['1.0'])).toBe('INVALID_ARGUMENT');
      expect(await create('https://app.example', ['9.9'])).toBe('INVALID_ARGUMENT');
      expect(await create('http://localhost:5173', ['9.9', '1.1'])).toBe('OK');
      expect(
        await statusOf(call(client, client.createBrowserSession, { workspaceId: crypto.randomUUID(), origin: ORIGIN, acceptedWireVersions: [], userId: 'u' }, auth)),
      ).toBe('NOT_FOUND');
    });
  });

  describe('workspace status', () => {
    it('streams the current status first, then each change, as the data plane reports presence', async () => {
      const workspace = await createWorkspace();
      const device = await enroll(workspace.workspaceId);
      const received: relayControlV1GrpcJs.WorkspaceStatus[] = [];
      const viaDirectory: WorkspaceStatusView[] = [];
      const stopDirectory = directory.onWorkspaceStatusChanged((status) => {
        if (status.workspaceId === workspace.workspaceId) viaDirectory.push(status);
      });
      const stream = client.watchWorkspaceStatus({ workspaceId: workspace.workspaceId }, auth);
      stream.on('data', (message: relayControlV1GrpcJs.WatchWorkspaceStatusResponse) => received.push(message.status!));
      stream.on('error', () => undefined);
      await waitUntil(() => received.length === 1, { what: 'the current status' });
      expect(received[0]).toEqual({
        workspaceId: workspace.workspaceId,
        connectivity: WorkspaceConnectivity.OFFLINE,
        deviceId: '',
        wireVersion: '',
        browserSessionCount: 0,
        changedAt: null,
      });

      const connectionId = crypto.randomUUID();
      await directory.companionConnected({ connectionId, workspaceId: workspace.workspaceId, deviceId: device.deviceId, wireVersion: '1.2' });
      await waitUntil(() => received.length === 2, { what: 'online' });
      expect(received[1]).toMatchObject({ connectivity: WorkspaceConnectivity.ONLINE, deviceId: device.deviceId, wireVersion: '1.2', browserSessionCount: 0 });
      expect(received[1]!.changedAt).not.toBeNull();

      const sessionId = crypto.randomUUID();
      await directory.browserSessionStarted({ sessionId, workspaceId: workspace.workspaceId, userId: 'user-1', wireVersion: '1.2' });
      await waitUntil(() => received.length === 3, { what: 'the browser session count' });
      expect(received[2]).toMatchObject({ connectivity: WorkspaceConnectivity.ONLINE, browserSessionCount: 1 });

      // A replaced connection closing late changes nothing; the live one going away does.
      await directory.companionDisconnected({ connectionId: crypto.randomUUID(), workspaceId: workspace.workspaceId, deviceId: device.deviceId, reason: 'replaced' });
      await directory.companionDisconnected({ connectionId, workspaceId: workspace.workspaceId, deviceId: device.deviceId, reason: 'closed' });
      await waitUntil(() => received.length === 4, { what: 'offline' });
      expect(received[3]).toMatchObject({ connectivity: WorkspaceConnectivity.OFFLINE, deviceId: '', wireVersion: '', browserSessionCount: 1 });

      await directory.browserSessionEnded({ sessionId, workspaceId: workspace.workspaceId, reason: 'closed', closeCode: 1000 });
      await waitUntil(() => received.length === 5, { what: 'the session count back at 0' });
      expect(received[4]).toMatchObject({ browserSessionCount: 0 });
      expect(viaDirectory.map((status) => [status.status, status.browserSessionCount])).toEqual([
        ['online', 0],
        ['online', 1],
        ['offline', 1],
        ['offline', 0],
      ]);
      expect(await directory.getWorkspaceStatus(workspace.workspaceId)).toMatchObject({ status: 'offline', lastKnownWireVersion: '1.2' });
      stopDirectory();
      stream.cancel();

      const get = await call(client, client.getWorkspaceStatus, { workspaceId: workspace.workspaceId }, auth);
      expect(get.status).toEqual(received[4]);
      expect(await statusOf(call(client, client.getWorkspaceStatus, { workspaceId: crypto.randomUUID() }, auth))).toBe('NOT_FOUND');
      const missing = await new Promise<string>((resolve) => {
        const watch = client.watchWorkspaceStatus({ workspaceId: crypto.randomUUID() }, auth);
        watch.on('data', () => resolve('DATA'));
        watch.on('error', (error: grpc.ServiceError) => resolve(grpc.status[error.code]));
      });
      expect(missing).toBe('NOT_FOUND');
    });

    it('tells directory listeners about a replaced Companion connection, and watchers only about what they can see', async () => {
      const workspace = await createWorkspace();
      const device = await enroll(workspace.workspaceId);
      const live: Array<string | null> = [];
      const stopDirectory = directory.onWorkspaceStatusChanged((status) => {
        if (status.workspaceId === workspace.workspaceId) live.push(status.connectionId);
      });
      const received: relayControlV1GrpcJs.WorkspaceStatus[] = [];
      const stream = client.watchWorkspaceStatus({ workspaceId: workspace.workspaceId }, auth);
      stream.on('data', (message: relayControlV1GrpcJs.WatchWorkspaceStatusResponse) => received.push(message.status!));
      stream.on('error', () => undefined);
      await waitUntil(() => received.length === 1, { what: 'the current status' });

      const [older, newer] = [crypto.randomUUID(), crypto.randomUUID()];
      await directory.companionConnected({ connectionId: older, workspaceId: workspace.workspaceId, deviceId: device.deviceId, wireVersion: '1.2' });
      await waitUntil(() => live.includes(older), { what: 'the first connection' });
      await directory.companionConnected({ connectionId: newer, workspaceId: workspace.workspaceId, deviceId: device.deviceId, wireVersion: '1.2' });
      await waitUntil(() => live.includes(newer), { what: 'the replacement' });
      await directory.browserSessionStarted({ sessionId: crypto.randomUUID(), workspaceId: workspace.workspaceId, userId: 'u', wireVersion: '1.2' });
      await waitUntil(() => received.some((status) => status.browserSessionCount === 1), { what: 'the session count' });
      // offline, online, online with one session: the replacement showed nothing a watcher can see.
      expect(received.map((status) => [status.connectivity, status.browserSessionCount])).toEqual([
        [WorkspaceConnectivity.OFFLINE, 0],
        [WorkspaceConnectivity.ONLINE, 0],
        [WorkspaceConnectivity.ONLINE, 1],
      ]);
      expect(live.slice(0, 2)).toEqual([older, newer]);
      stopDirectory();
      stream.cancel();
    });

    it('records audit rows for status changes and interaction steps, without payload', async () => {
      const workspace = await createWorkspace();
      const interactionId = crypto.randomUUID();
      await directory.recordInteraction({ workspaceId: workspace.workspaceId, interactionId, method: 'approval.request', phase: 'requested', relaySequence: 4 });
      await directory.recordInteraction({
        workspaceId: workspace.workspaceId,
        interactionId,
        method: 'approval.request',
        phase: 'candidate',
        sessionId: crypto.randomUUID(),
        userId: 'user-9',
        outcomeKind: 'approve',
        responseKind: 'accepted',
      });
      const prisma = gateway.infrastructure.prisma;
      await waitUntil(async () => (await prisma.relayInteractionAudit.count({ where: { interactionId } })) === 2, { what: 'the audit projection' });
      const rows = await prisma.relayInteractionAudit.findMany({ where: { interactionId }, orderBy: { id: 'asc' } });
      expect(rows.map((row) => [row.phase, row.userId, row.outcomeKind, row.responseKind])).toEqual([
        ['requested', null, null, null],
        ['candidate', 'user-9', 'approve', 'accepted'],
      ]);
      await waitUntil(async () => (await prisma.relayWorkspaceStatusChange.count()) >= 2, { what: 'status change rows' });
    });
  });

  describe('ListWorkspaceAudit', () => {
    it('pages a workspace’s audit trail newest first, only that workspace’s, without payload', async () => {
      const workspace = await createWorkspace();
      const other = await createWorkspace();
      const interactionId = crypto.randomUUID();
      const phases = ['requested', 'candidate', 'resolved'] as const;
      for (const [index, phase] of phases.entries()) {
        await directory.recordInteraction({
          workspaceId: workspace.workspaceId,
          interactionId,
          method: 'approval.request',
          phase,
          relaySequence: 10 + index,
          ...(phase === 'candidate' ? { sessionId: crypto.randomUUID(), userId: 'user-7', outcomeKind: 'approve', responseKind: 'accepted' } : {}),
        });
      }
      await directory.recordInteraction({ workspaceId: other.workspaceId, interactionId: crypto.randomUUID(), method: 'approval.request', phase: 'requested', relaySequence: 1 });
      const prisma = gateway.infrastructure.prisma;
      await waitUntil(async () => (await prisma.relayInteractionAudit.count({ where: { workspaceId: { in: [workspace.workspaceId, other.workspaceId] } } })) === 4, { what: 'the audit projection' });

      const first = await call(client, client.listWorkspaceAudit, { workspaceId: workspace.workspaceId, pageSize: 2, pageToken: '' }, auth);
      expect(first.entries.map((entry) => entry.phase)).toEqual(['resolved', 'candidate']);
      expect(first.entries[1]).toMatchObject({ interactionId, method: 'approval.request', userId: 'user-7', outcomeKind: 'approve', responseKind: 'accepted', relaySequence: 11 });
      expect(first.entries[0]!.occurredAt).toBeTruthy();
      expect(first.nextPageToken).not.toBe('');
      const second = await call(client, client.listWorkspaceAudit, { workspaceId: workspace.workspaceId, pageSize: 2, pageToken: first.nextPageToken }, auth);
      expect(second.entries.map((entry) => [entry.phase, entry.userId, entry.relaySequence])).toEqual([['requested', '', 10]]);
      expect(second.nextPageToken).toBe('');

      // Another workspace's token, a forged one, a negative page size, an unknown workspace.
      expect(await statusOf(call(client, client.listWorkspaceAudit, { workspaceId: other.workspaceId, pageSize: 2, pageToken: first.nextPageToken }, auth))).toBe('INVALID_ARGUMENT');
      expect(await statusOf(call(client, client.listWorkspaceAudit, { workspaceId: workspace.workspaceId, pageSize: 2, pageToken: 'not-a-token!' }, auth))).toBe('INVALID_ARGUMENT');
      expect(await statusOf(call(client, client.listWorkspaceAudit, { workspaceId: workspace.workspaceId, pageSize: -1, pageToken: '' }, auth))).toBe('INVALID_ARGUMENT');
      expect(await statusOf(call(client, client.listWorkspaceAudit, { workspaceId: 'nope', pageSize: 0, pageToken: '' }, auth))).toBe('INVALID_ARGUMENT');
      expect(await statusOf(call(client, client.listWorkspaceAudit, { workspaceId: crypto.randomUUID(), pageSize: 0, pageToken: '' }, auth))).toBe('NOT_FOUND');
    });
  });

  describe('secrets at rest and in logs', () => {
    it('stores no pairing code, device credential, ticket or service credential in plain text', async () => {
      expect(secrets.length).toBeGreaterThan(10);
      await gateway.infrastructure.projection.catchUp(30_000);
      const tables = await gateway.infrastructure.database.withConnection((connection) =>
        connection.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`),
      );
      expect(tables.map((table) => table.table_name)).toEqual(expect.arrayContaining(['events', 'outbox', 'relay_devices', 'relay_browser_sessions']));
      let scanned = 0;
      for (const { table_name } of tables) {
        const rows = await gateway.infrastructure.database.withConnection((connection) =>
          connection.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM "${table_name}" t`),
        );
        for (const { row } of rows) {
          scanned += 1;
          for (const secret of secrets) {
            // The body of each secret, too, in case a prefix was stripped somewhere.
            expect(row.includes(secret.slice(5))).toBe(false);
          }
        }
      }
      expect(scanned).toBeGreaterThan(50);
      const logText = logs.join('\n');
      for (const secret of secrets) expect(logText.includes(secret.slice(5))).toBe(false);
    });
  });

  describe('shutdown', () => {
    it('ends open watches with UNAVAILABLE', async () => {
      const workspace = await createWorkspace();
      const stream = client.watchWorkspaceStatus({ workspaceId: workspace.workspaceId }, auth);
      const first = new Promise<void>((resolve) => stream.once('data', () => resolve()));
      const ended = new Promise<string>((resolve) => stream.on('error', (error: grpc.ServiceError) => resolve(grpc.status[error.code])));
      await first;
      await gateway.close();
      expect(await ended).toBe('UNAVAILABLE');
    });
  });
});
