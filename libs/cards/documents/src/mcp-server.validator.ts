/**
 * MCP Registry `server.json`, schema 2025-12-11 (CARDS.md §4.2), written from the schema's ServerDetail
 * rule: name as reverse-DNS `namespace/name`, description 1–100 chars, exact versions (ranges and
 * `latest` refused), https icons, packages (mcpb needs fileSha256) and remotes. `_meta` keys are
 * reverse-DNS names. Members the schema does not name are kept without comment.
 */
import { childPointer } from './document.issue';
import { clip, FieldReader, isHttpsUrl, type JsonObject } from './document-fields.reader';

export const MCP_SERVER_SCHEMA_MARK = 'modelcontextprotocol.io/schemas/';
export const MCP_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const TRANSPORTS = ['stdio', 'streamable-http', 'sse'];
const REMOTE_TRANSPORTS = ['streamable-http', 'sse'];
const ICON_MIME_TYPES = ['image/png', 'image/jpeg', 'image/jpg', 'image/svg+xml', 'image/webp'];
/** The range forms the MCP registry refuses (`^1.2.3`, `~1.2.3`, `>=1.2.3`, `1.x`, `1.*`, `a || b`, `a - b`). */
const VERSION_RANGE = /^[\^~<>=]|(^|\.)[xX*](\.|$)|\|\||\s-\s/;

export function validateMcpServer(server: JsonObject, fields: FieldReader): void {
  const issues = fields.issues;
  fields.uri(server, '$schema', '', false);
  const name = fields.length(server, 'name', '', true, 3, 200);
  if (name !== undefined && !MCP_NAME.test(name)) {
    issues.error('/name', 'FIELD_PATTERN', `"name" must be a reverse-DNS "namespace/name" such as io.github.acme/weather, not "${clip(name)}".`);
  }
  fields.length(server, 'description', '', true, 1, 100);
  checkExactVersion(server, '', fields, 255);
  fields.length(server, 'title', '', false, 1, 100);
  fields.uri(server, 'websiteUrl', '', false);

  const repository = fields.member(server, 'repository', '', false);
  if (repository) {
    fields.uri(repository, 'url', '/repository', true);
    fields.string(repository, 'source', '/repository', true, true);
    fields.string(repository, 'id', '/repository', false);
    fields.string(repository, 'subfolder', '/repository', false);
  }
  fields.array(server, 'icons', '', false)?.forEach((item, index) => {
    const at = `/icons/${index}`;
    const icon = fields.object(item, at, 'An icon');
    if (!icon) return;
    const src = fields.length(icon, 'src', at, true, 1, 255);
    if (src !== undefined && !isHttpsUrl(src)) issues.error(`${at}/src`, 'URL_NOT_HTTPS', 'An icon "src" must be an https: URL.');
    fields.oneOf(icon, 'mimeType', at, false, ICON_MIME_TYPES);
    fields.stringArray(icon, 'sizes', at, false);
    fields.oneOf(icon, 'theme', at, false, ['light', 'dark']);
  });
  fields.array(server, 'packages', '', false)?.forEach((item, index) => checkPackage(item, `/packages/${index}`, fields));
  fields.array(server, 'remotes', '', false)?.forEach((item, index) => {
    const at = `/remotes/${index}`;
    const remote = fields.object(item, at, 'A remote');
    if (!remote) return;
    checkTransport(remote, at, REMOTE_TRANSPORTS, fields);
    fields.member(remote, 'variables', at, false);
  });
  const meta = fields.member(server, '_meta', '', false);
  for (const key of Object.keys(meta ?? {})) {
    if (!/^[a-zA-Z0-9-]+(\.[a-zA-Z0-9-]+)+(\/[a-zA-Z0-9._-]+)*$/.test(key)) {
      issues.error(childPointer('/_meta', key), 'EXTENSION_KEY_INVALID', `"_meta" keys must be reverse-DNS names (e.g. io.modelcontextprotocol.registry/publisher-provided), not "${clip(key)}".`);
    }
  }
}

function checkPackage(item: unknown, at: string, fields: FieldReader): void {
  const pkg = fields.object(item, at, 'A package');
  if (!pkg) return;
  const registryType = fields.string(pkg, 'registryType', at, true, true);
  fields.string(pkg, 'identifier', at, true, true);
  const transport = fields.member(pkg, 'transport', at, true);
  if (transport) checkTransport(transport, `${at}/transport`, TRANSPORTS, fields);
  if (pkg['version'] !== undefined) checkExactVersion(pkg, at, fields, Number.MAX_SAFE_INTEGER);
  fields.uri(pkg, 'registryBaseUrl', at, false);
  const sha = fields.string(pkg, 'fileSha256', at, false);
  if (sha !== undefined && !/^[a-f0-9]{64}$/.test(sha)) {
    fields.issues.error(`${at}/fileSha256`, 'FIELD_PATTERN', '"fileSha256" must be 64 lowercase hex characters.');
  }
  if (registryType === 'mcpb' && pkg['fileSha256'] === undefined) {
    fields.issues.error(`${at}/fileSha256`, 'MCP_FILE_SHA256_REQUIRED', 'An mcpb package must carry "fileSha256" so clients can check the file they download.');
  }
  fields.string(pkg, 'runtimeHint', at, false);
  for (const key of ['runtimeArguments', 'packageArguments']) {
    fields.array(pkg, key, at, false)?.forEach((item, index) => checkArgument(item, `${at}/${key}/${index}`, fields));
  }
  checkKeyValueInputs(pkg, 'environmentVariables', at, fields);
}

/** A transport: stdio, or an HTTP transport whose url is http(s) (it may hold `{variable}` templates). */
function checkTransport(transport: JsonObject, at: string, allowed: readonly string[], fields: FieldReader): void {
  const type = fields.oneOf(transport, 'type', at, true, allowed);
  if (type === undefined || type === 'stdio') return;
  const url = fields.string(transport, 'url', at, true, true);
  if (url !== undefined && !/^https?:\/\/\S+$/.test(url)) {
    fields.issues.error(`${at}/url`, 'FIELD_PATTERN', `A ${type} transport "url" must be an http(s) URL, not "${clip(url)}".`);
  }
  checkKeyValueInputs(transport, 'headers', at, fields);
}

/** Headers and environment variables: each a named input. */
function checkKeyValueInputs(parent: JsonObject, key: string, at: string, fields: FieldReader): void {
  fields.array(parent, key, at, false)?.forEach((item, index) => {
    const itemAt = `${at}/${key}/${index}`;
    const input = fields.object(item, itemAt, `Each item of "${key}"`);
    if (input) checkInput(input, itemAt, fields, true);
  });
}

/** A command-line argument: `positional` (with `valueHint` or `value`) or `named` (with its flag `name`). */
function checkArgument(item: unknown, at: string, fields: FieldReader): void {
  const argument = fields.object(item, at, 'An argument');
  if (!argument) return;
  const type = fields.oneOf(argument, 'type', at, true, ['positional', 'named']);
  checkInput(argument, at, fields, type === 'named');
  if (type === 'positional' && argument['valueHint'] === undefined && argument['value'] === undefined) {
    fields.issues.error(at, 'FIELD_MISSING', 'A positional argument needs "valueHint" or "value".');
  }
  fields.boolean(argument, 'isRepeated', at, false);
}

function checkInput(input: JsonObject, at: string, fields: FieldReader, named: boolean): void {
  if (named) fields.string(input, 'name', at, true, true);
  fields.oneOf(input, 'format', at, false, ['string', 'number', 'boolean', 'filepath']);
  fields.boolean(input, 'isRequired', at, false);
  fields.boolean(input, 'isSecret', at, false);
  fields.stringArray(input, 'choices', at, false);
  for (const key of ['value', 'default', 'description', 'placeholder', 'valueHint']) fields.string(input, key, at, false);
}

/** `version`: a specific version, never a range nor `latest` (frozen after publish in the MCP registry). */
function checkExactVersion(parent: JsonObject, path: string, fields: FieldReader, maxLength: number): void {
  const version = fields.length(parent, 'version', path, path === '', 1, maxLength);
  if (version === undefined) return;
  const at = childPointer(path, 'version');
  if (version === 'latest') {
    fields.issues.error(at, 'MCP_PACKAGE_VERSION_LATEST', '"version" must be a specific version, not "latest".');
  } else if (VERSION_RANGE.test(version)) {
    fields.issues.error(at, 'MCP_VERSION_RANGE', `"version" must be a specific version, not a range ("${clip(version)}").`);
  }
}
