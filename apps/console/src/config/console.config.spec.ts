import { join, resolve } from 'node:path';

import { ConfigError } from '@trustmesh/platform-config';

import { consoleVariables, loadConsoleConfig } from './console.config';

describe('console configuration', () => {
  it('defaults to loopback port 8400, its own embedded database and the development relay', () => {
    const config = loadConsoleConfig({ TRUSTMESH_DATA_DIR: '/data' });
    expect(config.http).toEqual({ host: '127.0.0.1', port: 8400 });
    expect(config.publicOrigin).toBe('http://localhost:8400');
    expect(config.platform.database).toEqual({ mode: 'embedded', dataDir: join('/data', 'console') });
    expect(config.relayWebSocketOrigin).toBe('wss://localhost:8443');
    expect(config.relayControl).toBeNull();
    expect(config.operator).toEqual({ host: '127.0.0.1', port: 0 });
    expect(config.webDir).toBe(resolve('dist/apps/console/web'));
  });

  it('reads the origin, the relay and its credential as a secret that never prints', () => {
    const config = loadConsoleConfig({
      CONSOLE_HTTP_PORT: '9000',
      CONSOLE_PUBLIC_ORIGIN: 'https://console.example.com',
      CONSOLE_RELAY_PUBLIC_URL: 'https://relay.example.com',
      CONSOLE_RELAY_CONTROL_ADDRESS: '127.0.0.1:50051',
      CONSOLE_RELAY_CONTROL_CREDENTIAL: 'tmsc_supersecretvalue',
      CONSOLE_OPERATOR_PORT: 'off',
    });
    expect(config.publicOrigin).toBe('https://console.example.com');
    expect(config.relayWebSocketOrigin).toBe('wss://relay.example.com');
    expect(config.relayControl?.address).toBe('127.0.0.1:50051');
    expect(config.relayControl?.credential.reveal()).toBe('tmsc_supersecretvalue');
    expect(JSON.stringify(config)).not.toContain('supersecret');
    expect(config.operator).toBeNull();
  });

  it('refuses bad values in one error naming every variable, without repeating a secret', () => {
    let error: unknown;
    try {
      loadConsoleConfig({
        CONSOLE_HTTP_PORT: '99999',
        CONSOLE_PUBLIC_ORIGIN: 'https://console.example.com/path?x=1',
        CONSOLE_RELAY_PUBLIC_URL: 'ftp://relay',
        CONSOLE_RELAY_CONTROL_ADDRESS: 'not an address',
        CONSOLE_RELAY_CONTROL_CREDENTIAL: 'tmsc_supersecretvalue',
        CONSOLE_TRUSTED_PROXIES: 'nope',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const variable of ['CONSOLE_HTTP_PORT', 'CONSOLE_PUBLIC_ORIGIN', 'CONSOLE_RELAY_PUBLIC_URL', 'CONSOLE_RELAY_CONTROL_ADDRESS', 'CONSOLE_TRUSTED_PROXIES']) expect(message).toContain(variable);
    expect(message).not.toContain('supersecret');
  });

  it('requires an https origin for a server deployment reached over the network', () => {
    expect(() => loadConsoleConfig({ DATABASE_URL: 'postgres://db/console', CONSOLE_PUBLIC_ORIGIN: 'http://console.example.com' })).toThrow(/CONSOLE_PUBLIC_ORIGIN/);
    expect(loadConsoleConfig({ DATABASE_URL: 'postgres://db/console', CONSOLE_PUBLIC_ORIGIN: 'https://console.example.com' }).platform.database.mode).toBe('server');
  });

  it('lists the variables it reads', () => {
    expect(consoleVariables({})).toEqual(expect.arrayContaining(['CONSOLE_HTTP_PORT', 'CONSOLE_HTTP_HOST', 'CONSOLE_PUBLIC_ORIGIN', 'CONSOLE_RELAY_CONTROL_ADDRESS', 'CONSOLE_WEB_DIR', 'TRUSTMESH_DATA_DIR']));
  });
});
