// Where the .proto files are at run time, and how to load them so that what @grpc/proto-loader hands a
// NestJS controller has exactly the shape of the generated `nestjs` types.
//
// NestJS's gRPC transport does not use ts-proto's codecs: it parses the .proto files with proto-loader when
// the app starts. So the .proto files must be readable at run time. There is one copy, `<repo>/proto`
// (the buf module, the only hand-written source of gRPC types); it is found from this file's __dirname:
//
//   - source tree (jest, tsx, `nx serve` without bundling): libs/contracts/src -> ../../../proto. This also
//     holds for a tsc build that keeps the repo layout, when the app copies proto/ to its output root.
//   - bundled app (esbuild/webpack to dist/apps/<app>/main.js, where __dirname is the bundle's directory):
//     <bundle dir>/proto. The app's build copies the protos there as assets, e.g. in its project.json:
//     `"assets": [{ "input": "proto", "glob": "**/*.proto", "output": "proto" }]`.
//
// Well-known imports (google/protobuf/timestamp.proto) need no file: proto-loader ships them.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import type { Options as ProtoLoaderOptions } from '@grpc/proto-loader';

/** Every proto file lives under `<root>/trustmesh/`, so its presence identifies a proto root. */
const PROTO_ROOT_MARKER = 'trustmesh';

/** Directories that may hold the protos, most specific first (see the file header). */
export function protoRootCandidates(fromDir: string): string[] {
  return [join(fromDir, 'proto'), join(fromDir, '..', '..', '..', 'proto')];
}

/**
 * The first candidate directory that holds the protos. When none does, returns the source-tree candidate,
 * so that `protoFilePath` can name a concrete path in its error: resolving never throws, because code
 * that only uses the generated types (tools, grpc-js clients) must not need the .proto files.
 */
export function resolveProtoRoot(fromDir: string = __dirname): string {
  const candidates = protoRootCandidates(fromDir);
  const found = candidates.find((dir) => existsSync(join(dir, PROTO_ROOT_MARKER)));
  return found ?? (candidates[candidates.length - 1] as string);
}

/** Absolute path of the directory that `protoFilePath` names resolve against (the buf module root). */
export const PROTO_ROOT: string = resolveProtoRoot();

/**
 * Absolute path of one .proto file. Pass the generated `protobufFileName` of the contract rather than a
 * literal, e.g. `protoFilePath(relayControlV1.protobufFileName)`. Throws when the file is missing, with the
 * fix, because NestJS would otherwise fail later with a bare "invalid proto definition".
 */
export function protoFilePath(protobufFileName: string, root: string = PROTO_ROOT): string {
  const file = join(root, protobufFileName);
  if (!existsSync(file)) {
    throw new Error(
      `Proto file ${protobufFileName} not found under ${root}. A bundled app must copy <repo>/proto/**/*.proto ` +
        `to <bundle dir>/proto (build assets); see libs/contracts/src/proto-files.ts.`,
    );
  }
  return file;
}

/**
 * proto-loader options under which decoded messages match the generated `nestjs` types field for field.
 * Pass them as the `loader` option of a NestJS gRPC server or client (with `protoPath` from
 * `protoFilePath`). Each option answers a generator flag in src/generated/README.md:
 *
 * - keepCase false: lowerCamelCase field names (snakeToCamel=true).
 * - longs Number: 64-bit integers, including Timestamp.seconds, as numbers (forceLong=number).
 * - enums left unset: enum values as numbers, like the generated TypeScript enums.
 * - defaults true: unset scalars and lists arrive as '', 0, false and [] (the types say `string`, not
 *   `string | undefined`), and unset message fields as null (useNullAsOptional=true).
 * - oneofs false: no extra "which member is set" property, which the generated types do not have.
 * - includeDirs: imports between our own protos resolve against PROTO_ROOT.
 */
export const PROTO_LOADER_OPTIONS = {
  keepCase: false,
  longs: Number,
  defaults: true,
  oneofs: false,
  includeDirs: [PROTO_ROOT],
} satisfies ProtoLoaderOptions;
