import { ConfigError } from '@trustmesh/platform-config';

import { DEFAULT_DATA_PLANE_CONFIG, loadDataPlaneConfig } from './data-plane.config';

describe('loadDataPlaneConfig: memory bounds', () => {
  it('bounds every retained structure by default, per workspace and per process', () => {
    expect(loadDataPlaneConfig({})).toMatchObject({
      retentionBytes: 32 * 1024 * 1024,
      retentionProcessBytes: 512 * 1024 * 1024,
      retainedInteractionsBytes: 16 * 1024 * 1024,
      retainedInteractionsProcessBytes: 256 * 1024 * 1024,
      interactionRetentionMaxMs: 24 * 3_600_000,
      maxPendingRequestsPerWorkspace: 4_096,
      maxPendingRequests: 256_000,
      publishQueueBytes: 256 * 1024 * 1024,
    });
    expect(DEFAULT_DATA_PLANE_CONFIG.retainedInteractionsBytes).toBeLessThan(DEFAULT_DATA_PLANE_CONFIG.retainedInteractionsProcessBytes);
  });

  it('reads the bounds from the environment and names a bad one', () => {
    expect(loadDataPlaneConfig({ RELAY_RETAINED_INTERACTIONS_BYTES: '65536', RELAY_INTERACTION_RETENTION_MAX_MS: '3600000' })).toMatchObject({
      retainedInteractionsBytes: 65_536,
      interactionRetentionMaxMs: 3_600_000,
    });
    expect(() => loadDataPlaneConfig({ RELAY_INTERACTION_RETENTION_MAX_MS: '99999999999' })).toThrow(ConfigError);
    expect(() => loadDataPlaneConfig({ RELAY_RETAINED_INTERACTIONS_PROCESS_BYTES: 'lots' })).toThrow(/RELAY_RETAINED_INTERACTIONS_PROCESS_BYTES/);
  });
});
