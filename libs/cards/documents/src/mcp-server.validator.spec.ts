import { check, edit, errorsOf, MCP_SERVER } from './documents.fixtures';

// Specs edit fixtures freely; their shape is what the validator under test checks.
type Json = Record<string, any>;

describe('MCP server.json validation (CARDS.md §4.2)', () => {
  it('accepts a server.json, recognised by its $schema', () => {
    expect(check(MCP_SERVER)).toMatchObject({ kind: 'mcp-server', valid: true, errors: [], warnings: [] });
  });

  it('recognises a server.json without $schema by its name, version and packages', () => {
    const { $schema: _schema, ...server } = MCP_SERVER;
    expect(check(server)).toMatchObject({ kind: 'mcp-server', valid: true });
  });

  it.each(['weather', 'io.github.orbit/weather/extra', 'io github/weather', 'a/'])('refuses the name %s', (name) => {
    expect(errorsOf({ ...MCP_SERVER, name }, { kind: 'mcp-server' })).toEqual([expect.stringMatching(/^(FIELD_PATTERN|FIELD_EMPTY)@\/name$/)]);
  });

  it('bounds description and title lengths', () => {
    expect(errorsOf({ ...MCP_SERVER, description: '', title: 't'.repeat(101) })).toEqual(['FIELD_EMPTY@/description', 'FIELD_TOO_LONG@/title']);
    expect(errorsOf({ ...MCP_SERVER, description: 'd'.repeat(101) })).toEqual(['FIELD_TOO_LONG@/description']);
  });

  it.each(['^1.2.3', '~1.2.3', '>=1.2.3', '1.x', '1.*', '1.2.3 || 2.0.0'])('refuses the version range %s', (version) => {
    expect(errorsOf({ ...MCP_SERVER, version })).toEqual(['MCP_VERSION_RANGE@/version']);
  });

  it('accepts prerelease versions that merely contain an x', () => {
    expect(check({ ...MCP_SERVER, version: '1.0.0-linux.2' }).valid).toBe(true);
  });

  it('refuses latest as a package version and mcpb packages without fileSha256', () => {
    const server = edit(MCP_SERVER as Json, (s) => {
      s['packages'][0]['version'] = 'latest';
      s['packages'].push({ registryType: 'mcpb', identifier: 'https://orbit.example/weather.mcpb', transport: { type: 'stdio' } });
    });
    expect(errorsOf(server)).toEqual(['MCP_PACKAGE_VERSION_LATEST@/packages/0/version', 'MCP_FILE_SHA256_REQUIRED@/packages/1/fileSha256']);
  });

  it('checks package arguments, environment variables and remote headers', () => {
    const server = edit(MCP_SERVER as Json, (s) => {
      s['packages'][0]['runtimeArguments'] = [{ type: 'named' }, { type: 'positional' }, { type: 'positional', valueHint: 'file', format: 'path' }];
      s['packages'][0]['environmentVariables'] = [{ value: 'x', isSecret: 'yes' }];
      s['remotes'][0]['headers'] = [{ name: 'Authorization', value: 'Bearer {token}' }, {}];
      s['remotes'][0]['url'] = 'wss://orbit.example/mcp';
    });
    expect(errorsOf(server)).toEqual([
      'FIELD_MISSING@/packages/0/runtimeArguments/0/name',
      'FIELD_MISSING@/packages/0/runtimeArguments/1',
      'VALUE_NOT_ALLOWED@/packages/0/runtimeArguments/2/format',
      'FIELD_MISSING@/packages/0/environmentVariables/0/name',
      'FIELD_TYPE@/packages/0/environmentVariables/0/isSecret',
      'FIELD_PATTERN@/remotes/0/url',
      'FIELD_MISSING@/remotes/0/headers/1/name',
    ]);
  });

  it('accepts URL templates in remote transports', () => {
    expect(check(edit(MCP_SERVER as Json, (s) => (s['remotes'][0]['url'] = 'https://{tenant}.orbit.example/mcp'))).valid).toBe(true);
  });

  it('checks icons, remotes, transports, repository and _meta keys', () => {
    const server = edit(MCP_SERVER as Json, (s) => {
      s['icons'][0]['src'] = 'http://orbit.example/icon.png';
      s['remotes'][0]['type'] = 'stdio';
      s['packages'][0]['transport'] = { type: 'sse' };
      s['repository'] = { url: 'https://github.com/orbit/weather-mcp' };
      s['_meta'] = { 'not a domain': {} };
    });
    expect(errorsOf(server)).toEqual([
      'FIELD_MISSING@/repository/source',
      'URL_NOT_HTTPS@/icons/0/src',
      'FIELD_MISSING@/packages/0/transport/url',
      'VALUE_NOT_ALLOWED@/remotes/0/type',
      'EXTENSION_KEY_INVALID@/_meta/not a domain',
    ]);
  });
});
