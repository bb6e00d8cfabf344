// Lint for the whole workspace. Layering is a lint error, not a hope (docs: STYLE.md):
// - @nx/enforce-module-boundaries checks project tags (`scope:*`, `type:*`) and bans server-side
//   packages from pure libraries;
// - Node built-ins are not npm packages to Nx, so `no-restricted-imports` bans them in the sources of
//   every project whose tags mark it pure (protocol and domain libraries run in browsers too).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import nx from '@nx/eslint-plugin';

const root = fileURLToPath(new URL('.', import.meta.url));
const PURE_TAGS = ['type:protocol', 'type:domain'];
const SERVER_PACKAGES = ['@nestjs/*', '@prisma/*', 'prisma', 'kafkajs', '@grpc/*', 'ws', 'pg', '@electric-sql/*', 'tsx'];

function projectsUnder(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    try {
      if (statSync(join(path, 'project.json')).isFile()) {
        found.push({ root: relative(root, path), ...JSON.parse(readFileSync(join(path, 'project.json'), 'utf8')) });
        continue;
      }
    } catch {
      // not a project folder
    }
    found.push(...projectsUnder(path));
  }
  return found;
}

const pureSources = ['apps', 'libs']
  .flatMap((dir) => projectsUnder(join(root, dir)))
  .filter((project) => (project.tags ?? []).some((tag) => PURE_TAGS.includes(tag)))
  .map((project) => `${project.root}/src/**/*.ts`);

const DEP_CONSTRAINTS = [
            { sourceTag: 'type:protocol', onlyDependOnLibsWithTags: ['type:protocol', 'type:util'], bannedExternalImports: SERVER_PACKAGES },
            { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', 'type:protocol', 'type:util'], bannedExternalImports: SERVER_PACKAGES },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', 'type:protocol'] },
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
            { sourceTag: 'type:data-access', onlyDependOnLibsWithTags: ['type:data-access', 'type:domain', 'type:protocol', 'type:contracts', 'type:util'] },
            { sourceTag: 'type:feature', onlyDependOnLibsWithTags: ['type:feature', 'type:data-access', 'type:domain', 'type:protocol', 'type:contracts', 'type:util'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['*'] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:feature', 'type:data-access', 'type:domain', 'type:protocol', 'type:contracts', 'type:util', 'type:testing'] },
            { sourceTag: 'scope:relay', onlyDependOnLibsWithTags: ['scope:relay', 'scope:platform', 'scope:shared'] },
            { sourceTag: 'scope:shield', onlyDependOnLibsWithTags: ['scope:shield', 'scope:platform', 'scope:shared'] },
            { sourceTag: 'scope:registry', onlyDependOnLibsWithTags: ['scope:registry', 'scope:platform', 'scope:shared'] },
            { sourceTag: 'scope:platform', onlyDependOnLibsWithTags: ['scope:platform', 'scope:shared'] },
            { sourceTag: 'scope:console', onlyDependOnLibsWithTags: ['scope:console', 'scope:relay', 'scope:shield', 'scope:registry', 'scope:platform', 'scope:shared'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['*'] }];

// Tests of any project may use the testing libraries (real Kafka and databases for its suites).
const TEST_DEP_CONSTRAINTS = DEP_CONSTRAINTS.map((constraint) =>
  constraint.onlyDependOnLibsWithTags && !constraint.onlyDependOnLibsWithTags.includes('*')
    ? { ...constraint, onlyDependOnLibsWithTags: [...constraint.onlyDependOnLibsWithTags, 'type:testing'] }
    : constraint,
);

const bannedInPureCode = [...new Set(builtinModules.filter((name) => !name.startsWith('_')).flatMap((name) => [name, `node:${name}`]))];

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  ...nx.configs['flat/javascript'],
  {
    ignores: ['**/dist', '**/node_modules', '**/src/generated/**', 'tmp/**', 'coverage/**', '.nx/**'],
  },
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.js', '**/*.mjs'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.js'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: true,
          banTransitiveDependencies: false,
          checkNestedExternalImports: true,
          allow: [],
          depConstraints: DEP_CONSTRAINTS,
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/test/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        { enforceBuildableLibDependency: true, banTransitiveDependencies: false, checkNestedExternalImports: true, allow: [], depConstraints: TEST_DEP_CONSTRAINTS },
      ],
    },
  },
  {
    files: pureSources,
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: bannedInPureCode.map((name) => ({ name, message: 'Pure libraries run in browsers: no Node built-ins.' })),
          patterns: [{ group: SERVER_PACKAGES, message: 'Pure libraries carry no server-side dependencies.' }],
        },
      ],
    },
  },
  {
    // Tests break values on purpose and build tools handle schema documents as data.
    files: ['**/*.spec.ts', '**/test/**/*.ts', '**/codegen/**/*.ts', '**/definitions/**/*.ts', 'tools/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
];
