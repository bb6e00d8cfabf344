/**
 * The way back for responses: `runtime.response` goes only to the browser session that sent the
 * request (§13), and a 1.1 session behind a 1.2 Companion needs the request's method to downgrade the
 * response (§2). Each forwarded request leaves a route here, keyed by workspace and `requestId`, which
 * the response consumes. Routes expire (a Companion that never answers leaks nothing), and their
 * number is bounded per session, per workspace and in total. A full table refuses the new request rather
 * than evicting an older route: eviction would silently lose another session's (another tenant's) response.
 *
 * Pure: the clock is passed in.
 */
export interface RequestRoute {
  workspaceId: string;
  requestId: string;
  sessionId: string;
  /** The replica holding the session (routes made for requests that came over the bus). */
  replicaId: string;
  /** The request's method; undefined for encrypted requests, whose method the relay cannot see. */
  method: string | undefined;
  /** Set for `interaction.candidate` requests, for the audit when the response comes back. */
  interaction?: { interactionId: string; method: string; outcomeKind: string };
  /**
   * The request's trace (the W3C `traceparent` of the span that forwarded it), so the Companion's response
   * frame joins the request's trace: the wire frames carry no trace context of their own. Kept with the
   * route because the route is already bounded and dropped when the request settles or its session ends.
   */
  traceparent?: string;
  expiresAt: number;
}

const key = (workspaceId: string, requestId: string) => `${workspaceId}\n${requestId}`;

export class RequestRoutes {
  // Insertion order is expiry order (one TTL for all), so the oldest routes are first.
  private readonly routes = new Map<string, RequestRoute>();
  private readonly perSession = new Map<string, number>();
  private readonly perWorkspace = new Map<string, number>();

  constructor(private readonly limits: { ttlMs: number; maxTotal: number; maxPerSession: number; maxPerWorkspace: number }) {}

  get size(): number {
    return this.routes.size;
  }

  /**
   * Adds a route. `session-full` / `workspace-full` / `full`: the session, its workspace or the process
   * already has its maximum of routes awaiting responses. `in-use`: another live session is awaiting a response to this `requestId`; taking its route would hand
   * that session's response to this one, so the route stays with the first (the same session re-sending
   * its request just renews its own route).
   */
  add(route: Omit<RequestRoute, 'expiresAt'>, now: number): 'added' | 'session-full' | 'workspace-full' | 'full' | 'in-use' {
    this.expire(now);
    const id = key(route.workspaceId, route.requestId);
    const existing = this.routes.get(id);
    if (existing && existing.sessionId !== route.sessionId) return 'in-use';
    if (existing) this.forget(id, existing);
    if ((this.perSession.get(route.sessionId) ?? 0) >= this.limits.maxPerSession) return 'session-full';
    if ((this.perWorkspace.get(route.workspaceId) ?? 0) >= this.limits.maxPerWorkspace) return 'workspace-full';
    if (this.routes.size >= this.limits.maxTotal) return 'full';
    this.routes.set(id, { ...route, expiresAt: now + this.limits.ttlMs });
    this.perSession.set(route.sessionId, (this.perSession.get(route.sessionId) ?? 0) + 1);
    this.perWorkspace.set(route.workspaceId, (this.perWorkspace.get(route.workspaceId) ?? 0) + 1);
    return 'added';
  }

  /** Removes and returns the route of a response. */
  take(workspaceId: string, requestId: string, now: number): RequestRoute | undefined {
    this.expire(now);
    const id = key(workspaceId, requestId);
    const route = this.routes.get(id);
    if (route) this.forget(id, route);
    return route;
  }

  /** The route (its method, its trace) without consuming it; an expired route is still seen until the next `add`/`take`. */
  peek(workspaceId: string, requestId: string): RequestRoute | undefined {
    return this.routes.get(key(workspaceId, requestId));
  }

  /** Forgets the routes of a closed session. */
  dropSession(sessionId: string): void {
    if (!this.perSession.has(sessionId)) return;
    for (const [id, route] of this.routes) if (route.sessionId === sessionId) this.forget(id, route);
  }

  private expire(now: number): void {
    for (const [id, route] of this.routes) {
      if (route.expiresAt > now) break;
      this.forget(id, route);
    }
  }

  private forget(id: string, route: RequestRoute): void {
    this.routes.delete(id);
    decrement(this.perSession, route.sessionId);
    decrement(this.perWorkspace, route.workspaceId);
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const count = (counts.get(key) ?? 1) - 1;
  if (count <= 0) counts.delete(key);
  else counts.set(key, count);
}
