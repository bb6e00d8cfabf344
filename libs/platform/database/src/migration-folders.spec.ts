import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { BUNDLED_MIGRATIONS_FOLDER, locateMigrations } from './migration-folders';

describe('locateMigrations', () => {
  let bundle: string;

  beforeEach(async () => {
    bundle = await mkdtemp(join(tmpdir(), 'trustmesh-bundle-'));
  });
  afterEach(async () => {
    await rm(bundle, { recursive: true, force: true });
  });

  it("takes the bundle's copy of the library's migrations when the bundle has one", async () => {
    await mkdir(join(bundle, BUNDLED_MIGRATIONS_FOLDER, 'platform-event-store'), { recursive: true });
    expect(locateMigrations('platform-event-store', '/src/libs/platform/event-store/prisma/migrations', bundle)).toEqual({
      library: 'platform-event-store',
      directory: join(bundle, 'migrations', 'platform-event-store'),
    });
  });

  it("keeps the source folder when the bundle has only other libraries' migrations (or runs from the source tree)", async () => {
    await mkdir(join(bundle, BUNDLED_MIGRATIONS_FOLDER, 'relay-gateway'), { recursive: true });
    expect(locateMigrations('card-registry', '/src/apps/card-registry/prisma/migrations', bundle).directory).toBe('/src/apps/card-registry/prisma/migrations');
    expect(locateMigrations('card-registry', '/src/apps/card-registry/prisma/migrations').directory).toBe('/src/apps/card-registry/prisma/migrations');
  });
});
