// The command line without a gateway: usage and configuration errors, secrets refused as flags, and a bad
// scenario file reported with the offending path before anything connects.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { EXIT, runSimulatorCli, type CliIo } from './simulator-cli';

function io(): CliIo & { out: () => string; err: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    stopRequested: () => new Promise(() => undefined),
    out: () => out.join(''),
    err: () => err.join(''),
  };
}

describe('companion-simulator command line', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'sim-cli-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints its usage', async () => {
    const cli = io();
    expect(await runSimulatorCli(['--help'], cli, {})).toBe(EXIT.ok);
    expect(cli.out()).toContain('Usage: companion-simulator <command>');
  });

  it('refuses unknown commands and options, and secrets given as flags', async () => {
    const unknown = io();
    expect(await runSimulatorCli(['fly'], unknown, {})).toBe(EXIT.usage);
    expect(unknown.err()).toContain('unknown command "fly"');
    const option = io();
    expect(await runSimulatorCli(['run', '--colour'], option, {})).toBe(EXIT.usage);
    const secret = io();
    expect(await runSimulatorCli(['enroll', '--pairing-code', 'tmpc_secret'], secret, {})).toBe(EXIT.usage);
    expect(secret.err()).toContain('secrets are read from the environment only');
    expect(secret.err()).not.toContain('tmpc_secret');
  });

  it('exits 78 naming the variables of a bad configuration, flags included', async () => {
    const cli = io();
    expect(await runSimulatorCli(['enroll', '--gateway-url', 'http://relay.example.com', '--wire-version', '1.0'], cli, { SIMULATOR_PAIRING_CODE: 'tmpc_x' })).toBe(EXIT.config);
    expect(cli.err()).toContain('RELAY_GATEWAY_URL');
    expect(cli.err()).toContain('SIMULATOR_WIRE_VERSION');
    expect(cli.err()).not.toContain('tmpc_x');
  });

  it('reports a bad scenario file with the offending path before connecting', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'version: 1\nname: bad\nsteps:\n  - kind: delay\n    ms: -5\n');
    const cli = io();
    const code = await runSimulatorCli(['scenario', file, '--gateway-url', 'https://127.0.0.1:1', '--credential-file', join(dir, 'none.json')], cli, { SIMULATOR_PAIRING_CODE: 'tmpc_unused' });
    expect(code).toBe(EXIT.failed);
    expect(cli.err()).toContain('/steps/0/ms');
    expect(cli.err()).toContain(file);
  });

  it('needs a file or a built-in counterparty request for the scenario command', async () => {
    const cli = io();
    expect(await runSimulatorCli(['scenario'], cli, {})).toBe(EXIT.usage);
    expect(cli.err()).toContain('--counterparty-request NAME');
    const unknown = io();
    const code = await runSimulatorCli(['scenario', '--counterparty-request', 'wire-fraud', '--gateway-url', 'https://127.0.0.1:1', '--credential-file', join(dir, 'none.json')], unknown, {
      SIMULATOR_PAIRING_CODE: 'tmpc_unused',
    });
    expect(code).toBe(EXIT.config);
    expect(unknown.err()).toContain('SIMULATOR_COUNTERPARTY_REQUEST: must be one of invoice-reminder, bank-detail-change');
  });

  it('takes the Shield credential from the environment only', async () => {
    const cli = io();
    expect(await runSimulatorCli(['run', '--shield-credential', 'tmsa_secret'], cli, {})).toBe(EXIT.usage);
    expect(cli.err()).not.toContain('tmsa_secret');
  });

  it('says so when there is nothing to unenroll', async () => {
    const cli = io();
    expect(await runSimulatorCli(['unenroll', '--credential-file', join(dir, 'nothing.json')], cli, {})).toBe(EXIT.ok);
    expect(cli.out()).toContain('no device was enrolled');
  });
});
