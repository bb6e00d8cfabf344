import { createRequestPolicy, productionRequestPolicy, type RequestPolicyContext } from './companion-policies';

const WS = '6d1f3c2a-8b4e-4f7a-9c1d-2e3f4a5b6c7d';
const OTHER = '0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d';
const context = (method: string, overrides: Partial<RequestPolicyContext> = {}): RequestPolicyContext => ({
  method,
  workspaceId: WS,
  boundWorkspaceId: WS,
  wireVersion: '1.2',
  encrypted: false,
  appResults: true,
  generation: 1,
  ...overrides,
});

describe('request policies (§8)', () => {
  it('production admits exactly the §8 list, for the bound workspace only', () => {
    const admitted = ['thread.list', 'thread.create', 'thread.open', 'thread.snapshot', 'thread.capabilities', 'turn.start', 'turn.cancel', 'operation.get', 'interaction.candidate'];
    for (const method of admitted) expect([method, productionRequestPolicy(context(method))]).toEqual([method, true]);
    for (const method of ['initialize', 'thread.rename', 'thread.delete', 'thread.detach']) expect([method, productionRequestPolicy(context(method))]).toEqual([method, false]);
    expect(productionRequestPolicy(context('thread.list', { workspaceId: OTHER }))).toBe(false);
  });

  it('production admits operation.result.get only when serving 1.2 app results', () => {
    expect(productionRequestPolicy(context('operation.result.get'))).toBe(true);
    expect(productionRequestPolicy(context('operation.result.get', { appResults: false }))).toBe(false);
    expect(productionRequestPolicy(context('operation.result.get', { wireVersion: '1.1' }))).toBe(false);
    expect(createRequestPolicy({ appResults: false })(context('operation.result.get'))).toBe(false);
  });

  it('custom policies: allow lists, deny lists, and foreign workspaces left to step 3 by default', () => {
    const simulator = createRequestPolicy({ allow: 'all', deny: ['thread.delete'] });
    expect(simulator(context('thread.rename'))).toBe(true);
    expect(simulator(context('thread.delete'))).toBe(false);
    expect(simulator(context('thread.list', { workspaceId: OTHER }))).toBe(true);
    expect(createRequestPolicy({ allow: ['thread.list'], boundWorkspaceOnly: true })(context('thread.list', { workspaceId: OTHER }))).toBe(false);
  });
});
