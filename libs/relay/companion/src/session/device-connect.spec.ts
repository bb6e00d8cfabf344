import { deviceConnectFrame } from './device-connect';

const DEVICE = '3b2a1c0d-9e8f-4a7b-b6c5-d4e3f2a1b0c9';

describe('deviceConnectFrame', () => {
  it('builds the first frame for the session version', () => {
    expect(JSON.parse(deviceConnectFrame({ wireVersion: '1.1', deviceId: DEVICE, deviceCredential: 'c'.repeat(16) }))).toEqual({
      type: 'device.connect',
      protocolVersion: '1.1',
      deviceId: DEVICE,
      pairingToken: 'c'.repeat(16),
    });
  });

  it('refuses a short credential without echoing it', () => {
    const attempt = () => deviceConnectFrame({ wireVersion: '1.2', deviceId: DEVICE, deviceCredential: 'short-secret' });
    expect(attempt).toThrow('/pairingToken');
    expect(attempt).not.toThrow('short-secret');
  });
});
