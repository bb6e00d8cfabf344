/**
 * What the browser test page loads: the client library and the encryption profile, bundled by esbuild
 * exactly as a web app would bundle them, exposed on `window` for the test to drive.
 */
import { createWorkspaceCipher } from '@trustmesh/relay-encryption';

import { RelayClient } from '../src';

(globalThis as unknown as { relayTest: unknown }).relayTest = { RelayClient, createWorkspaceCipher };
