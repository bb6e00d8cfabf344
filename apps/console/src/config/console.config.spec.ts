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
    expect(config.shield).toBeNull();
    expect(config.registry).toBeNull();
    expect(config.platformTargets).toEqual({ relay: null, shield: null, registry: null });
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

  it('reads the Shield, the registry and the operator URLs, their credentials as secrets', () => {
    const config = loadConsoleConfig({
      CONSOLE_SHIELD_ADDRESS: '127.0.0.1:50061',
      CONSOLE_SHIELD_CREDENTIAL: 'shield-supersecretvalue',
      CONSOLE_REGISTRY_ADDRESS: 'registry.internal:50071',
      CONSOLE_REGISTRY_CREDENTIAL: 'registry-supersecretvalue',
      CONSOLE_RELAY_OPERATOR_URL: 'http://127.0.0.1:9464',
      CONSOLE_SHIELD_OPERATOR_URL: 'http://127.0.0.1:9465/',
      CONSOLE_REGISTRY_OPERATOR_URL: 'https://registry.internal:9470',
    });
    expect(config.shield).toMatchObject({ address: '127.0.0.1:50061', loopback: true, tls: null });
    expect(config.shield?.credential.reveal()).toBe('shield-supersecretvalue');
    expect(config.registry?.address).toBe('registry.internal:50071');
    expect(config.registry?.tls).not.toBeNull();
    expect(config.registry?.credential.reveal()).toBe('registry-supersecretvalue');
    expect(config.platformTargets).toEqual({ relay: 'http://127.0.0.1:9464', shield: 'http://127.0.0.1:9465', registry: 'https://registry.internal:9470' });
    expect(JSON.stringify(config)).not.toContain('supersecret');
  });

  it('refuses an upstream set halfway or an operator URL that is not one, naming each variable', () => {
    let error: unknown;
    try {
      loadConsoleConfig({
        CONSOLE_SHIELD_ADDRESS: '127.0.0.1:50061',
        CONSOLE_REGISTRY_CREDENTIAL: 'registry-supersecretvalue',
        CONSOLE_SHIELD_OPERATOR_URL: 'http://127.0.0.1:9465/metrics',
        CONSOLE_REGISTRY_OPERATOR_URL: 'ftp://registry',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const variable of ['CONSOLE_SHIELD_CREDENTIAL', 'CONSOLE_REGISTRY_ADDRESS', 'CONSOLE_SHIELD_OPERATOR_URL', 'CONSOLE_REGISTRY_OPERATOR_URL']) expect(message).toContain(variable);
    expect(message).not.toContain('supersecret');
  });

  it('requires an https origin for a server deployment reached over the network', () => {
    expect(() => loadConsoleConfig({ DATABASE_URL: 'postgres://db/console', CONSOLE_PUBLIC_ORIGIN: 'http://console.example.com' })).toThrow(/CONSOLE_PUBLIC_ORIGIN/);
    expect(loadConsoleConfig({ DATABASE_URL: 'postgres://db/console', CONSOLE_PUBLIC_ORIGIN: 'https://console.example.com' }).platform.database.mode).toBe('server');
  });

  it('lists the variables it reads', () => {
    expect(consoleVariables({})).toEqual(expect.arrayContaining(['CONSOLE_HTTP_PORT', 'CONSOLE_HTTP_HOST', 'CONSOLE_PUBLIC_ORIGIN', 'CONSOLE_RELAY_CONTROL_ADDRESS', 'CONSOLE_SHIELD_ADDRESS', 'CONSOLE_REGISTRY_CREDENTIAL', 'CONSOLE_SHIELD_OPERATOR_URL', 'CONSOLE_WEB_DIR', 'TRUSTMESH_DATA_DIR']));
  });
});
