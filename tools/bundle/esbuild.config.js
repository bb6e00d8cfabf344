// esbuild settings shared by every app's `nx build` (@nx/esbuild, `esbuildConfig` in the app's project.json).
//
// esbuild cannot emit TypeScript's decorator metadata (`design:paramtypes`), and NestJS injects
// constructor parameters by it. So the workspace's own TypeScript is compiled by SWC first, with the
// same flags as the tests (jest.preset.js: legacy decorators with metadata), and esbuild only bundles
// the result. npm packages stay external (the executor lists them in the generated package.json).
const { readFile } = require('node:fs/promises');

const { transform } = require('@swc/core');

/** Compiles one workspace .ts file to ES modules with decorator metadata; esbuild does the rest. */
const decoratorMetadata = {
  name: 'swc-decorator-metadata',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const source = await readFile(args.path, 'utf8');
      const { code } = await transform(source, {
        filename: args.path,
        swcrc: false,
        sourceMaps: 'inline',
        jsc: {
          target: 'es2022',
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          keepClassNames: true,
        },
        module: { type: 'es6' },
      });
      return { contents: code, loader: 'js' };
    });
  },
};

module.exports = {
  plugins: [decoratorMetadata],
  // `node main.js` / `node migrate.js`: the generated package.json says "type": "commonjs".
  outExtension: { '.js': '.js' },
  // Stack traces name the workspace's files (node --enable-source-maps).
  sourcemap: true,
  // Nest and gRPC report class names (providers, errors).
  keepNames: true,
};
