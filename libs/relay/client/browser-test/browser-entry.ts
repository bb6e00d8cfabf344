/**
 * What the browser test page loads: the client library and the encryption profile, bundled by esbuild
 * exactly as a web app would bundle them, exposed on `window` for the test to drive.
 */
import { createWorkspaceCipher } from '@trustmesh/relay-encryption';

import { RelayClient, type WebSocketConstructorLike } from '../src';

/** The DOM's own WebSocket fits the client's port without a cast (checked by the compiler). */
const nativeWebSocket: WebSocketConstructorLike = WebSocket;

(globalThis as unknown as { relayTest: unknown }).relayTest = { RelayClient, createWorkspaceCipher, nativeWebSocket };
