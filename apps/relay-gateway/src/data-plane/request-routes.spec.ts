import { RequestRoutes } from './request-routes';

const route = (requestId: string, sessionId = 's1') => ({ workspaceId: 'w', requestId, sessionId, replicaId: 'r', method: 'thread.list' });

describe('RequestRoutes', () => {
  it('hands a route to its response once', () => {
    const routes = new RequestRoutes({ ttlMs: 1_000, maxTotal: 10, maxPerSession: 10, maxPerWorkspace: 10 });
    routes.add(route('a'), 0);
    expect(routes.take('w', 'a', 1)).toMatchObject({ sessionId: 's1', method: 'thread.list' });
    expect(routes.take('w', 'a', 1)).toBeUndefined();
  });

  it('expires routes and bounds them per session, per workspace and in total, refusing rather than evicting', () => {
    const routes = new RequestRoutes({ ttlMs: 1_000, maxTotal: 4, maxPerSession: 2, maxPerWorkspace: 3 });
    expect(routes.add(route('a'), 0)).toBe('added');
    expect(routes.add(route('b'), 0)).toBe('added');
    expect(routes.add(route('c'), 0)).toBe('session-full');
    expect(routes.add(route('d', 's2'), 0)).toBe('added');
    expect(routes.add(route('e', 's3'), 0)).toBe('workspace-full');
    expect(routes.add({ ...route('f', 's4'), workspaceId: 'other' }, 0)).toBe('added');
    expect(routes.add({ ...route('g', 's5'), workspaceId: 'third' }, 0)).toBe('full');
    // Nothing was evicted to make room: every earlier route still answers.
    expect(routes.take('w', 'a', 1)).toBeDefined();
    expect(routes.take('other', 'f', 1)).toBeDefined();
    expect(routes.take('w', 'b', 2_000)).toBeUndefined();
    expect(routes.size).toBe(0);
    expect(routes.add({ ...route('g', 's5'), workspaceId: 'third' }, 2_000)).toBe('added');
  });

  it('forgets the routes of a closed session', () => {
    const routes = new RequestRoutes({ ttlMs: 1_000, maxTotal: 10, maxPerSession: 10, maxPerWorkspace: 10 });
    routes.add(route('a'), 0);
    routes.add(route('b', 's2'), 0);
    routes.dropSession('s1');
    expect(routes.take('w', 'a', 1)).toBeUndefined();
    expect(routes.take('w', 'b', 1)).toBeDefined();
  });

  it("keeps a route with the session awaiting it: another session reusing its requestId cannot take the response", () => {
    const routes = new RequestRoutes({ ttlMs: 1_000, maxTotal: 10, maxPerSession: 10, maxPerWorkspace: 10 });
    expect(routes.add(route('a', 's1'), 0)).toBe('added');
    expect(routes.add(route('a', 's2'), 1)).toBe('in-use');
    // The same session re-sending its request renews its own route.
    expect(routes.add(route('a', 's1'), 2)).toBe('added');
    expect(routes.take('w', 'a', 3)).toMatchObject({ sessionId: 's1' });
    // Once answered (or expired), the id is free again.
    expect(routes.add(route('a', 's2'), 4)).toBe('added');
  });
});
