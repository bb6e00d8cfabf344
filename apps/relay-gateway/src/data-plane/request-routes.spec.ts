import { RequestRoutes } from './request-routes';

const route = (requestId: string, sessionId = 's1') => ({ workspaceId: 'w', requestId, sessionId, replicaId: 'r', method: 'thread.list' });

describe('RequestRoutes', () => {
  it('hands a route to its response once', () => {
    const routes = new RequestRoutes({ ttlMs: 1_000, maxTotal: 10, maxPerSession: 10 });
    routes.add(route('a'), 0);
    expect(routes.take('w', 'a', 1)).toMatchObject({ sessionId: 's1', method: 'thread.list' });
    expect(routes.take('w', 'a', 1)).toBeUndefined();
  });

  it('expires routes and bounds them per session and in total', () => {
    const routes = new RequestRoutes({ ttlMs: 1_000, maxTotal: 3, maxPerSession: 2 });
    expect(routes.add(route('a'), 0)).toBe('added');
    expect(routes.add(route('b'), 0)).toBe('added');
    expect(routes.add(route('c'), 0)).toBe('session-full');
    expect(routes.take('w', 'a', 2_000)).toBeUndefined();
    routes.add(route('x', 's2'), 2_000);
    routes.add(route('y', 's3'), 2_000);
    routes.add(route('z', 's4'), 2_000);
    routes.add(route('v', 's5'), 2_000);
    expect(routes.size).toBe(3);
    expect(routes.take('w', 'x', 2_001)).toBeUndefined();
  });

  it('forgets the routes of a closed session', () => {
    const routes = new RequestRoutes({ ttlMs: 1_000, maxTotal: 10, maxPerSession: 10 });
    routes.add(route('a'), 0);
    routes.add(route('b', 's2'), 0);
    routes.dropSession('s1');
    expect(routes.take('w', 'a', 1)).toBeUndefined();
    expect(routes.take('w', 'b', 1)).toBeDefined();
  });

  it("keeps a route with the session awaiting it: another session reusing its requestId cannot take the response", () => {
    const routes = new RequestRoutes({ ttlMs: 1_000, maxTotal: 10, maxPerSession: 10 });
    expect(routes.add(route('a', 's1'), 0)).toBe('added');
    expect(routes.add(route('a', 's2'), 1)).toBe('in-use');
    // The same session re-sending its request renews its own route.
    expect(routes.add(route('a', 's1'), 2)).toBe('added');
    expect(routes.take('w', 'a', 3)).toMatchObject({ sessionId: 's1' });
    // Once answered (or expired), the id is free again.
    expect(routes.add(route('a', 's2'), 4)).toBe('added');
  });
});
