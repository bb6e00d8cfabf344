// Embedded mode end to end, the way a single-machine app runs: configuration from the environment, PGlite
// under the data directory, migrations applied at startup, and the data still there after a restart.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { loadPlatformConfig } from '@trustmesh/platform-config';
import { openDatabase } from '@trustmesh/platform-database';
import { createTempDataDir } from '@trustmesh/platform-database/testing';

import { openEventStore } from './event-store';

describe('the event store in embedded mode', () => {
  let dir: Awaited<ReturnType<typeof createTempDataDir>>;
  beforeAll(async () => {
    dir = await createTempDataDir('embedded-event-store');
  });
  afterAll(async () => {
    await dir.remove();
  });

  it('migrates at startup, appends, and reads everything back after a restart', async () => {
    const config = loadPlatformConfig({ TRUSTMESH_DATA_DIR: dir.dataDir });
    expect(config.database).toEqual({ mode: 'embedded', dataDir: dir.dataDir });

    const database = await openDatabase(config.database);
    const store = await openEventStore(database, { producer: 'shield-analyzer@0.1.0', defaultTopic: 'shield.cases.v1' });
    const written = await store.append('case-1', 'no-stream', [
      { eventType: 'CaseOpened', data: { subject: 'agent-7' } },
      { eventType: 'ConsultationRecorded', data: { disposition: 'allow' } },
    ]);
    await store.close();
    await database.close();
    expect(existsSync(join(dir.dataDir, 'pglite.lock'))).toBe(false);

    const reopened = await openDatabase(config.database);
    const again = await openEventStore(reopened, { producer: 'shield-analyzer@0.1.0', defaultTopic: 'shield.cases.v1' });
    expect(await again.readStream('case-1')).toEqual(written.events);
    expect(await again.readAll()).toEqual(written.events);
    expect(await again.streamVersion('case-1')).toBe(2);
    // Never published before the restart: still waiting in the outbox.
    expect((await again.claimOutbox()).map(({ topic, envelope }) => `${topic} ${envelope.eventType}`)).toEqual([
      'shield.cases.v1 CaseOpened',
      'shield.cases.v1 ConsultationRecorded',
    ]);
    expect((await again.append('case-1', 2, [{ eventType: 'CaseClosed', data: {} }])).streamVersion).toBe(3);
    await again.close();
    await reopened.close();
  });
});
