/**
 * What a failed load start reports: SimulatorControl hands it to its callers (StartLoad, GetStats), so it
 * names the step that failed but never carries the text of an unexpected error from below.
 */
import { LoadStartError, startLoad } from './load-driver';
import type { LoadProvisioner } from './relay-control.provisioner';
import { simulatorLoadStack } from './load-stack';

const INTERNAL = 'connect ECONNREFUSED 10.1.2.3:5432 (password authentication for user relay_admin)';

function failingProvisioner(): LoadProvisioner {
  return {
    createWorkspace: () => Promise.reject(new Error(INTERNAL)),
    createPairingCode: () => Promise.reject(new Error(INTERNAL)),
    createBrowserSession: () => Promise.reject(new Error(INTERNAL)),
    close: () => undefined,
  };
}

describe('a load run that cannot start', () => {
  it('says which step failed, without the text of the unexpected error behind it', async () => {
    const started = startLoad({
      gatewayUrl: 'https://127.0.0.1:1',
      tls: { insecureDev: true },
      provisioner: failingProvisioner(),
      stack: simulatorLoadStack(),
      companions: 1,
      browsers: 0,
    });
    const error: unknown = await started.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(LoadStartError);
    expect((error as LoadStartError).message).toBe('cannot create workspace 1: an unexpected error');
    expect((error as LoadStartError).message).not.toContain('ECONNREFUSED');
  });
});
