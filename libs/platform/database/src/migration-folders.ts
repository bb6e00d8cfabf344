/**
 * Where a library's migrations are at run time. In the source tree (tests, tsx, `nx serve`) each owner's
 * folder sits beside its code; in a bundle (`nx build <app>`, tools/bundle/README.md) every module shares
 * the bundle's `__dirname`, so the build copies each owner's folder to `<bundle dir>/migrations/<library>`
 * and this finds it there first. The source tree has no such folder next to this file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import type { MigrationSet } from './migration-runner';

/** The folder of a bundle that holds one sub-folder of migrations per owning library. */
export const BUNDLED_MIGRATIONS_FOLDER = 'migrations';

/** The migration set of `library`: the bundled copy when this code runs from a bundle, else `sourceDirectory`. */
export function locateMigrations(library: string, sourceDirectory: string, bundleDirectory: string = __dirname): MigrationSet {
  const bundled = join(bundleDirectory, BUNDLED_MIGRATIONS_FOLDER, library);
  return { library, directory: existsSync(bundled) ? bundled : sourceDirectory };
}
