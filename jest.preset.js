// Shared Jest settings for every project: TypeScript through SWC (fast on two cores, no type
// checking here: `typecheck` targets do that), tsconfig path aliases resolved by Nx.
//
// PGlite's CommonJS build loads Node built-ins with `import()`, which Jest's module sandbox refuses
// without --experimental-vm-modules; compiling that one package turns those calls into `require`, so
// every suite can open an embedded database. The OTLP exporter loads `http`/`https` the same way, so
// suites that export traces to an in-process collector compile it too.
const path = require('node:path');

module.exports = {
  testEnvironment: 'node',
  resolver: '@nx/jest/plugins/resolver',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.(ts|js)$': [
      '@swc/jest',
      {
        swcrc: false,
        jsc: {
          target: 'es2022',
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          keepClassNames: true,
        },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
    '@electric-sql/pglite/dist/.+\\.cjs$': [
      '@swc/jest',
      { swcrc: false, jsc: { target: 'es2022', parser: { syntax: 'ecmascript' } }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!@electric-sql/pglite/|@opentelemetry/otlp-exporter-base/)'],
  coverageReporters: ['text-summary', 'html'],
  rootDir: undefined,
  roots: undefined,
  cacheDirectory: path.join(__dirname, 'tmp', 'jest-cache'),
};
