/**
 * The data plane's own settings (WebSocket limits, heartbeats, the frames log's retention, batching,
 * shutdown), read once from the environment and validated whole: a bad value stops the process with a
 * message that names the variable. Defaults suit one machine; the README's table lists them.
 */
import { ConfigError, type ConfigProblem } from '@trustmesh/platform-config';

export interface DataPlaneConfig {
  /** Inbound frame limits in UTF-8 bytes (§11: at least 1 MiB from Companions; browsers may be capped lower). */
  maxCompanionFrameBytes: number;
  maxBrowserFrameBytes: number;
  /** Ping interval; a peer that has not answered the previous ping by the next one is terminated. */
  heartbeatIntervalMs: number;
  /** High-water mark of a socket's send buffer (bytes the kernel has not taken yet + the frame to send). */
  sendHighWaterBytes: number;
  /** Token buckets per connection: frames per second, and the burst allowed above it. */
  browserFramesPerSecond: number;
  browserFrameBurst: number;
  companionFramesPerSecond: number;
  companionFrameBurst: number;
  /** Requests awaiting a response at once (their routes back): per browser session, per workspace, per process. */
  maxPendingRequestsPerSession: number;
  maxPendingRequestsPerWorkspace: number;
  maxPendingRequests: number;
  /** How long a forwarded request's route back (requestId → session, method) is kept. */
  requestRouteTtlMs: number;
  /**
   * How long a request routed to a Companion on another replica may wait for that replica's receipt before
   * the Companion is reported unreachable (offline) and the requester gets `session.error WORKSPACE_OFFLINE`.
   */
  routeReceiptTimeoutMs: number;
  /** The frames log kept in memory per workspace, for catch-up (whichever limit is reached first). */
  retentionFrames: number;
  retentionBytes: number;
  retentionMs: number;
  /** Bytes of every workspace's frames ring together; past it the largest rings give up their oldest frames. */
  retentionProcessBytes: number;
  /** Unresolved interaction requests kept for redelivery (§8): count and bytes per workspace, bytes per process. */
  maxRetainedInteractions: number;
  retainedInteractionsBytes: number;
  retainedInteractionsProcessBytes: number;
  /** How long an interaction request is retained at most, whatever its `expiresAt` (it is still forwarded). */
  interactionRetentionMaxMs: number;
  /** Frames log publishing: most frames per batch, and how long a batch may wait to fill. */
  publishBatchFrames: number;
  publishLingerMs: number;
  /** Records awaiting publication (per topic, whole process) before the oldest are given up: count and bytes. */
  publishQueueFrames: number;
  publishQueueBytes: number;
  /** How long a new browser session may take to send its first ACK before live frames start anyway. */
  firstAckTimeoutMs: number;
  /** How long shutdown waits for peers to finish their closing handshakes. */
  shutdownDrainMs: number;
  /** Sockets accepted at once, per kind (a bound on memory; further upgrades get 503). */
  maxCompanionConnections: number;
  maxBrowserConnections: number;
  /**
   * Sockets that have not proven who they are (a Companion before its credential checked out, a browser
   * upgrade whose ticket is being checked) have their own small budget, so they can never take the room of
   * authenticated ones: at most this many per process (the oldest idle Companion handshake is closed to make
   * room for a new one), and at most `maxPendingPerSource` from one source address (an IPv6 /64).
   */
  maxPendingCompanionHandshakes: number;
  maxPendingBrowserUpgrades: number;
  maxPendingPerSource: number;
  /** A Companion must have sent a valid `device.connect` and been authenticated within this time. */
  companionHandshakeTimeoutMs: number;
  /** Bytes a Companion may send before its `device.connect` has been read (a few hundred are needed). */
  companionHandshakeMaxBytes: number;
  /** A browser session is closed (retryable, 4012) after this long; the browser reconnects with a fresh ticket. */
  browserSessionMaxSeconds: number;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Variable name → [field, default, min, max]. */
const VARIABLES: ReadonlyArray<[string, keyof DataPlaneConfig, number, number, number]> = [
  ['RELAY_WS_MAX_COMPANION_FRAME_BYTES', 'maxCompanionFrameBytes', 1_048_576, 1_048_576, 16_777_216],
  ['RELAY_WS_MAX_BROWSER_FRAME_BYTES', 'maxBrowserFrameBytes', 262_144, 1_024, 16_777_216],
  ['RELAY_WS_HEARTBEAT_MS', 'heartbeatIntervalMs', 30_000, 100, 600_000],
  ['RELAY_WS_SEND_HIGH_WATER_BYTES', 'sendHighWaterBytes', 4_194_304, 4_096, 1_073_741_824],
  ['RELAY_BROWSER_FRAMES_PER_SECOND', 'browserFramesPerSecond', 100, 1, 1_000_000],
  ['RELAY_BROWSER_FRAME_BURST', 'browserFrameBurst', 400, 1, 1_000_000],
  ['RELAY_COMPANION_FRAMES_PER_SECOND', 'companionFramesPerSecond', 5_000, 1, 1_000_000],
  ['RELAY_COMPANION_FRAME_BURST', 'companionFrameBurst', 20_000, 1, 1_000_000],
  ['RELAY_MAX_PENDING_REQUESTS_PER_SESSION', 'maxPendingRequestsPerSession', 256, 1, 100_000],
  ['RELAY_MAX_PENDING_REQUESTS_PER_WORKSPACE', 'maxPendingRequestsPerWorkspace', 4_096, 1, 10_000_000],
  ['RELAY_MAX_PENDING_REQUESTS', 'maxPendingRequests', 256_000, 1, 10_000_000],
  ['RELAY_REQUEST_ROUTE_TTL_MS', 'requestRouteTtlMs', 120_000, 1_000, 3_600_000],
  ['RELAY_ROUTE_RECEIPT_TIMEOUT_MS', 'routeReceiptTimeoutMs', 5_000, 100, 120_000],
  ['RELAY_FRAMES_RETENTION_FRAMES', 'retentionFrames', 10_000, 0, 10_000_000],
  ['RELAY_FRAMES_RETENTION_BYTES', 'retentionBytes', 33_554_432, 0, 4_294_967_296],
  ['RELAY_FRAMES_RETENTION_MS', 'retentionMs', 3_600_000, 0, 30 * 86_400_000],
  ['RELAY_FRAMES_RETENTION_PROCESS_BYTES', 'retentionProcessBytes', 536_870_912, 0, 1_099_511_627_776],
  ['RELAY_MAX_RETAINED_INTERACTIONS', 'maxRetainedInteractions', 1_000, 1, 100_000],
  ['RELAY_RETAINED_INTERACTIONS_BYTES', 'retainedInteractionsBytes', 16_777_216, 1_024, 4_294_967_296],
  ['RELAY_RETAINED_INTERACTIONS_PROCESS_BYTES', 'retainedInteractionsProcessBytes', 268_435_456, 1_024, 1_099_511_627_776],
  ['RELAY_INTERACTION_RETENTION_MAX_MS', 'interactionRetentionMaxMs', 86_400_000, 1_000, 30 * 86_400_000],
  ['RELAY_FRAMES_PUBLISH_BATCH', 'publishBatchFrames', 500, 1, 100_000],
  ['RELAY_FRAMES_PUBLISH_LINGER_MS', 'publishLingerMs', 5, 0, 10_000],
  ['RELAY_FRAMES_PUBLISH_QUEUE_FRAMES', 'publishQueueFrames', 50_000, 1, 10_000_000],
  ['RELAY_FRAMES_PUBLISH_QUEUE_BYTES', 'publishQueueBytes', 268_435_456, 1_048_576, 1_099_511_627_776],
  ['RELAY_FIRST_ACK_TIMEOUT_MS', 'firstAckTimeoutMs', 5_000, 0, 600_000],
  ['RELAY_SHUTDOWN_DRAIN_MS', 'shutdownDrainMs', 5_000, 0, 600_000],
  ['RELAY_MAX_COMPANION_CONNECTIONS', 'maxCompanionConnections', 20_000, 1, 10_000_000],
  ['RELAY_MAX_BROWSER_CONNECTIONS', 'maxBrowserConnections', 100_000, 1, 10_000_000],
  ['RELAY_MAX_PENDING_COMPANION_HANDSHAKES', 'maxPendingCompanionHandshakes', 512, 1, 1_000_000],
  ['RELAY_MAX_PENDING_BROWSER_UPGRADES', 'maxPendingBrowserUpgrades', 1_024, 1, 1_000_000],
  ['RELAY_MAX_PENDING_PER_SOURCE', 'maxPendingPerSource', 32, 1, 1_000_000],
  ['RELAY_COMPANION_HANDSHAKE_TIMEOUT_MS', 'companionHandshakeTimeoutMs', 10_000, 100, 600_000],
  ['RELAY_COMPANION_HANDSHAKE_MAX_BYTES', 'companionHandshakeMaxBytes', 16_384, 1_024, 1_048_576],
  ['RELAY_BROWSER_SESSION_MAX_SECONDS', 'browserSessionMaxSeconds', 43_200, 1, 30 * 86_400],
];

export const DEFAULT_DATA_PLANE_CONFIG: Readonly<DataPlaneConfig> = Object.fromEntries(
  VARIABLES.map(([, field, fallback]) => [field, fallback]),
) as unknown as DataPlaneConfig;

/** Reads the data plane's variables; throws a `ConfigError` naming every bad one. */
export function loadDataPlaneConfig(env: Env): DataPlaneConfig {
  const problems: ConfigProblem[] = [];
  const config = { ...DEFAULT_DATA_PLANE_CONFIG };
  for (const [variable, field, fallback, min, max] of VARIABLES) {
    const raw = env[variable]?.trim();
    if (raw === undefined || raw === '') {
      config[field] = fallback;
      continue;
    }
    const parsed = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      problems.push({ variable, message: `must be a whole number from ${min} to ${max} (got ${JSON.stringify(raw)})` });
      continue;
    }
    config[field] = parsed;
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
