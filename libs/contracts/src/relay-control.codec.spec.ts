// RelayControl messages survive the binary wire and map onto the JSON the browser receives (§13).
import { dateFromTimestamp, relayControlV1, relayControlV1GrpcJs, timestampFromDate } from './index';

const { CreateBrowserSessionRequest, CreateBrowserSessionResponse, BrowserSessionDescriptor, ListDevicesResponse } =
  relayControlV1GrpcJs;

describe('RelayControl binary round trip', () => {
  it('keeps every field of a CreateBrowserSession request, in order', () => {
    const request: relayControlV1.CreateBrowserSessionRequest = {
      workspaceId: '0190a5e4-7c1e-7b3a-9f00-5d2c7e8a1b42',
      origin: 'https://app.trustmesh.example',
      acceptedWireVersions: ['1.2', '1.1'],
      userId: 'user-42',
    };
    const bytes = CreateBrowserSessionRequest.encode(request).finish();
    expect(bytes.length).toBeGreaterThan(0);
    expect(CreateBrowserSessionRequest.decode(bytes)).toEqual(request);
  });

  it('keeps nested devices with timestamps, and reads an unset timestamp back as null', () => {
    const page: relayControlV1.ListDevicesResponse = {
      devices: [
        {
          deviceId: '0190a5e4-9d2f-7c4b-8a11-6e3d8f9b2c53',
          workspaceId: '0190a5e4-7c1e-7b3a-9f00-5d2c7e8a1b42',
          enrolledAt: { seconds: 1_767_225_600, nanos: 1 },
          connected: true,
          wireVersion: '1.2',
          lastConnectedAt: { seconds: 1_767_229_200, nanos: 0 },
        },
        {
          deviceId: '0190a5e4-aaaa-7c4b-8a11-6e3d8f9b2c53',
          workspaceId: '0190a5e4-7c1e-7b3a-9f00-5d2c7e8a1b42',
          enrolledAt: { seconds: 1_767_225_700, nanos: 0 },
          connected: false,
          wireVersion: '',
        },
      ],
      nextPageToken: 'page-2',
    };
    const decoded = ListDevicesResponse.decode(ListDevicesResponse.encode(page).finish());
    expect(decoded.devices[0]).toEqual(page.devices[0]);
    expect(decoded.devices[1]).toEqual({ ...page.devices[1], lastConnectedAt: null });
    expect(decoded.nextPageToken).toBe('page-2');
  });

  it('rejects bytes that are not a message', () => {
    expect(() => CreateBrowserSessionResponse.decode(Uint8Array.of(0x0a, 0xff))).toThrow();
  });
});

describe('BrowserSessionDescriptor as the browser sees it', () => {
  // roll-relay-browser-session-v1: a closed object, expiresAt in RFC 3339 with an offset.
  it('maps to exactly {connectUrl, expiresAt} with an RFC 3339 expiry', () => {
    const descriptor: relayControlV1.BrowserSessionDescriptor = {
      connectUrl: 'wss://relay.trustmesh.example/v1/browser?ticket=single-use',
      expiresAt: timestampFromDate(new Date('2030-01-02T03:04:05.678Z')),
    };
    const json = BrowserSessionDescriptor.toJSON(descriptor);
    expect(json).toEqual({
      connectUrl: 'wss://relay.trustmesh.example/v1/browser?ticket=single-use',
      expiresAt: '2030-01-02T03:04:05.678Z',
    });
    expect(BrowserSessionDescriptor.fromJSON(json)).toEqual(descriptor);
  });
});

describe('timestamps', () => {
  it.each([
    ['2030-01-02T03:04:05.678Z', { seconds: 1_893_553_445, nanos: 678_000_000 }],
    ['1970-01-01T00:00:00.000Z', { seconds: 0, nanos: 0 }],
    // Before the epoch the seconds round down and nanos stay non-negative, as Timestamp requires.
    ['1969-12-31T23:59:59.500Z', { seconds: -1, nanos: 500_000_000 }],
  ])('converts %s both ways', (iso, timestamp) => {
    expect(timestampFromDate(new Date(iso))).toEqual(timestamp);
    expect(dateFromTimestamp(timestamp).toISOString()).toBe(iso);
  });

  it('refuses an invalid Date instead of sending NaN seconds', () => {
    expect(() => timestampFromDate(new Date('not a date'))).toThrow(RangeError);
  });
});
