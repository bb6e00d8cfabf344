import baseConfig from '../../../eslint.config.mjs';

export default [
  ...baseConfig,
  {
    // Test databases are for tests: production code of this library never imports them.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: '@trustmesh/platform-database/testing', message: 'Test helpers are for *.spec.ts files only.' }] },
      ],
    },
  },
];
