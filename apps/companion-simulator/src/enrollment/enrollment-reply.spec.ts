import { checkEnrollmentReply } from './enrollment-reply';

const DEVICE_ID = '0190a5e4-9d2f-7c4b-8a11-6e3d8f9b2c53';
const WORKSPACE_ID = '0190a5e4-7c1e-7b3a-9f00-5d2c7e8a1b42';
const CREDENTIAL = 'c'.repeat(16);

describe('the redeem reply check (§12 step 3)', () => {
  it('accepts exactly {deviceId, workspaceId, deviceCredential ≥16}', () => {
    expect(checkEnrollmentReply({ deviceId: DEVICE_ID, workspaceId: WORKSPACE_ID, deviceCredential: CREDENTIAL })).toEqual({
      deviceId: DEVICE_ID,
      workspaceId: WORKSPACE_ID,
      deviceCredential: CREDENTIAL,
    });
  });

  it.each([
    ['not an object', 'ok', /not a JSON object/],
    ['an array', [DEVICE_ID], /not a JSON object/],
    ['null', null, /not a JSON object/],
    ['an extra field', { deviceId: DEVICE_ID, workspaceId: WORKSPACE_ID, deviceCredential: CREDENTIAL, pairingCode: 'x' }, /exactly the fields/],
    ['a missing field', { deviceId: DEVICE_ID, workspaceId: WORKSPACE_ID }, /exactly the fields/],
    ['a device id that is not a UUID', { deviceId: 'device-1', workspaceId: WORKSPACE_ID, deviceCredential: CREDENTIAL }, /deviceId is not a UUID/],
    ['a UUID of version 0', { deviceId: '0190a5e4-9d2f-0c4b-8a11-6e3d8f9b2c53', workspaceId: WORKSPACE_ID, deviceCredential: CREDENTIAL }, /deviceId/],
    ['a workspace id that is a number', { deviceId: DEVICE_ID, workspaceId: 7, deviceCredential: CREDENTIAL }, /workspaceId is not a UUID/],
    ['a 15-character credential', { deviceId: DEVICE_ID, workspaceId: WORKSPACE_ID, deviceCredential: 'c'.repeat(15) }, /shorter than 16/],
    ['a credential that is not a string', { deviceId: DEVICE_ID, workspaceId: WORKSPACE_ID, deviceCredential: 1234567890123456 }, /not a string/],
    ['an oversized credential', { deviceId: DEVICE_ID, workspaceId: WORKSPACE_ID, deviceCredential: 'c'.repeat(4097) }, /longer than 4096/],
  ])('refuses %s', (_case, body, reason) => {
    const result = checkEnrollmentReply(body);
    expect(typeof result).toBe('string');
    expect(result).toMatch(reason);
  });

  it('never quotes the credential in a refusal', () => {
    const secret = 'super-secret-credential-value-1';
    const result = checkEnrollmentReply({ deviceId: 'nope', workspaceId: WORKSPACE_ID, deviceCredential: secret });
    expect(result).not.toContain(secret);
  });
});
