/**
 * The load mode as a module, for the gateway benchmark (src/bench/relay-gateway.bench.ts) and other tools:
 *
 *   const report = await runLoad({
 *     gatewayUrl: 'https://127.0.0.1:8443', tls: { ca, insecureDev: false },
 *     relayControl: { address: '127.0.0.1:50051', credential: new SecretText(credential), tls: null },
 *     stack: simulatorLoadStack(), companions: 50, browsers: 100, durationMs: 10_000,
 *   });
 *   console.log(formatLoadReport(report));
 *
 * `startLoad` returns a `LoadRun` (live `report()`, `stop()`) for runs whose end the caller decides.
 * A `LoadProvisioner` replaces RelayControl, and a `LoadStack` replaces the Companion/browser parts, e.g. to
 * drive a baseline forwarder with the same peers and measurements.
 */
export {
  runLoad,
  startLoad,
  LoadRun,
  LoadStartError,
  type LoadOptions,
  type LoadStack,
  type LoadState,
  type BrowserPeer,
  type BrowserPeerContext,
  type TurnGenerator,
} from './load-driver';
export { simulatorLoadStack, type SimulatorLoadStackOptions } from './load-stack';
export { formatLoadReport, emptyLoadReport, type LoadReport } from './load-report';
export { RelayControlProvisioner, ProvisioningError, type LoadProvisioner, type RelayControlTarget, type BrowserSessionDescriptor } from './relay-control.provisioner';
export { classifyFrameText, LatencySamples, WorkspaceStamps, type FrameKind, type LatencySummary } from './latency-recorder';
