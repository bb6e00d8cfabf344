#!/usr/bin/env node
// Runs the Prisma 6.19 CLI for a library that owns a Prisma schema, with no engine download and no
// database server, so `generate` and migration authoring work on machines without network access
// (ARCHITECTURE.md, "Environment facts"). Every schema-owning library calls it from its Nx targets.
//
//   node libs/platform/database/prisma-offline/prisma-offline.mjs generate --schema <schema.prisma>
//   node libs/platform/database/prisma-offline/prisma-offline.mjs diff     --schema <schema.prisma>
//   node libs/platform/database/prisma-offline/prisma-offline.mjs check    --schema <schema.prisma>
//   node libs/platform/database/prisma-offline/prisma-offline.mjs create   --schema <schema.prisma> --name <name>
//
// - generate: `prisma generate`, then rewrites the absolute paths Prisma records in the generated client
//   (its own output and schema paths, unused by the engine-less client) as workspace-relative ones, so the
//   committed output does not depend on where the checkout lives.
// - diff: prints the SQL that would bring the committed migrations (`<schema dir>/migrations`) to the
//   schema; prints nothing when they agree.
// - check: like diff, but exits 1 when the schema has changes no migration covers.
// - create: writes that SQL as `<schema dir>/migrations/<UTC yyyymmddhhmmss>_<name>/migration.sql`.
//
// Migrations are diffed by Prisma's WASM schema engine (`engine: 'js'` in ./prisma.config.ts) against
// throwaway in-memory PGlite databases; see that file for why it wraps the PGlite adapter.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const workspaceRoot = resolve(here, '..', '..', '..', '..');
const prismaCli = createRequire(import.meta.url).resolve('prisma/build/index.js');
const offlineConfig = join(here, 'prisma.config.ts');
const placeholder = join(here, 'ENGINE-PLACEHOLDER.md');

const USAGE = `Usage: prisma-offline.mjs <generate|diff|check|create> --schema <schema.prisma> [--name <migration name>]`;

function fail(message, status = 2) {
  process.stderr.write(`prisma-offline: ${message}\n`);
  process.exit(status);
}

function parseArgs(argv) {
  const [command, ...rest] = argv;
  const options = {};
  for (let i = 0; i < rest.length; i += 1) {
    const flag = rest[i];
    const value = rest[i + 1];
    if ((flag !== '--schema' && flag !== '--name') || value === undefined) fail(`unexpected argument ${JSON.stringify(flag)}\n${USAGE}`);
    options[flag.slice(2)] = value;
    i += 1;
  }
  if (!['generate', 'diff', 'check', 'create'].includes(command)) fail(USAGE);
  if (!options.schema) fail(`--schema is required\n${USAGE}`);
  if (command === 'create' && !options.name) fail(`--name is required for create\n${USAGE}`);
  return { command, schema: resolve(options.schema), name: options.name };
}

/** Runs the Prisma CLI; returns its stdout, or exits with its status and stderr when it fails. */
function prisma(args, { capture = false } = {}) {
  const env = {
    ...process.env,
    // The CLI downloads engine binaries before any command unless these point at existing files. Nothing
    // here runs them: the client is engine-less (`engineType = "client"`) and migrations use the WASM
    // schema engine. A real path set by the caller wins.
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || placeholder,
    PRISMA_QUERY_ENGINE_LIBRARY: process.env.PRISMA_QUERY_ENGINE_LIBRARY || placeholder,
    CHECKPOINT_DISABLE: '1',
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
  };
  const result = spawnSync(process.execPath, [prismaCli, ...args], {
    cwd: workspaceRoot,
    env,
    encoding: 'utf8',
    stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) fail(`could not run the Prisma CLI: ${result.error.message}`, 1);
  if (result.status !== 0) {
    if (capture) process.stderr.write(`${result.stdout}${result.stderr}`);
    process.exit(result.status ?? 1);
  }
  return capture ? result.stdout : '';
}

function generate(schema) {
  prisma(['generate', '--schema', schema]);
  const output = /^\s*output\s*=\s*"([^"]+)"/m.exec(readFileSync(schema, 'utf8'))?.[1];
  if (!output) fail(`${schema} has no generator output`, 1);
  const outputDir = resolve(dirname(schema), output);
  const prefixes = [`${workspaceRoot}${sep}`, JSON.stringify(`${workspaceRoot}${sep}`).slice(1, -1)];
  for (const file of walk(outputDir)) {
    const text = readFileSync(file, 'utf8');
    let normalized = text;
    for (const prefix of prefixes) normalized = normalized.split(prefix).join('');
    normalized = sortGeneratorConfig(normalized);
    if (normalized !== text) writeFileSync(file, normalized);
  }
  process.stdout.write(`prisma-offline: ${relative(workspaceRoot, outputDir)} normalised (workspace-relative paths, sorted generator config)\n`);
}

/**
 * The generator's `config` block (the schema's generator options) comes out in a different key order from
 * run to run (it passes through a hash map); sorted, the output is the same bytes for the same schema.
 */
function sortGeneratorConfig(text) {
  return text.replace(/^(\s*"config": \{\n)([^{}]*?)\n(\s*\})/m, (_, open, body, close) => {
    const entries = body.split('\n').map((line) => line.replace(/,\s*$/, ''));
    entries.sort();
    return `${open}${entries.join(',\n')}\n${close}`;
  });
}

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

/** The SQL from the committed migrations to the schema ('' when they agree). */
function pendingSql(schema) {
  const migrations = join(dirname(schema), 'migrations');
  mkdirSync(migrations, { recursive: true });
  const lock = join(migrations, 'migration_lock.toml');
  if (!existsSync(lock)) {
    // Prisma reads the provider of a migrations folder from this file.
    writeFileSync(
      lock,
      '# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "postgresql"\n',
    );
  }
  const hasMigrations = readdirSync(migrations, { withFileTypes: true }).some((entry) => entry.isDirectory());
  const from = hasMigrations ? ['--from-migrations', migrations] : ['--from-empty'];
  const sql = prisma(['migrate', 'diff', '--config', offlineConfig, ...from, '--to-schema-datamodel', schema, '--script'], {
    capture: true,
  });
  // The CLI prints a config banner on stdout before the script; keep the script only.
  const body = sql.replace(/^Loaded Prisma config from .*\n/m, '').trim();
  return body === '' || body === '-- This is an empty migration.' ? '' : `${body}\n`;
}

function create(schema, name) {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  if (slug === '') fail('--name must contain letters or digits');
  const sql = pendingSql(schema);
  if (sql === '') {
    process.stdout.write('prisma-offline: the schema and the committed migrations agree; no migration written\n');
    return;
  }
  const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const dir = join(dirname(schema), 'migrations', `${stamp}_${slug}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'migration.sql'), sql);
  process.stdout.write(`prisma-offline: wrote ${relative(workspaceRoot, join(dir, 'migration.sql'))}; review it, then commit it\n`);
}

const { command, schema, name } = parseArgs(process.argv.slice(2));
if (!existsSync(schema)) fail(`no schema at ${schema}`);
if (command === 'generate') generate(schema);
else if (command === 'diff') process.stdout.write(pendingSql(schema));
else if (command === 'check') {
  const sql = pendingSql(schema);
  if (sql !== '') {
    process.stderr.write(`${sql}\nprisma-offline: ${relative(workspaceRoot, schema)} has changes no committed migration covers (above); run the library's migrate-create target\n`);
    process.exit(1);
  }
  process.stdout.write(`prisma-offline: ${relative(workspaceRoot, schema)} and its migrations agree\n`);
} else create(schema, name);
