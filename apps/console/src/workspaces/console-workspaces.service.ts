/**
 * The console's workspaces (API.md "Workspaces"): the signed-in account's relay workspaces through gRPC
 * RelayControl with the console's service credential. Framework-free: the HTTP edge hands it a
 * `ConsoleAccount` and answers its `ConsoleResult`s.
 *
 * Rules kept here:
 * - every call on a workspace checks ownership first (workspace-ownership.ts); another account's workspace
 *   is 404 CONSOLE_WORKSPACE_NOT_FOUND exactly like an unknown one, and the relay is not asked;
 * - identifiers are validated before any upstream call;
 * - a pairing code is handed to the caller and nowhere else (not logged, not stored);
 * - a session descriptor is minted for the console's own origin with `user_id` = the account id, so the
 *   relay's audit and session ending name the person, and a descriptor is useless from another origin;
 * - the relay's own error text never reaches the page: each failure becomes a stable code and a message
 *   that says what to do.
 */
import { randomUUID } from 'node:crypto';

import { answered, refused, type ConsoleAccount, type ConsolePage, type ConsoleResult } from '../console-result';
import { badCursor, decodeCursor, encodeCursor, type ListQuery } from '../http/list-query';
import { RelayCallFailed, type RelayControlPort, type RelayWorkspaceStatus } from './relay-control.port';
import type { OwnedWorkspace, WorkspaceOwnership } from './workspace-ownership';

export interface ConsoleWorkspace extends OwnedWorkspace {
  status: RelayWorkspaceStatus;
}

export interface ConsoleAuditEntry {
  at: string;
  action: string;
  actor?: string;
  detail: string;
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;
const MAX_DISPLAY_NAME = 200;
const MAX_REASON = 500;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

const notFound = <T>(): ConsoleResult<T> => refused(404, 'CONSOLE_WORKSPACE_NOT_FOUND', 'No workspace of yours has this id; pick one from your workspace list');
const invalid = <T>(message: string, issues: { code: string; path: string; message: string }[]): ConsoleResult<T> => refused(422, 'CONSOLE_INVALID_INPUT', message, { issues });

export class ConsoleWorkspacesService {
  constructor(
    /** Null when the console has no RelayControl configured: every route answers 503 saying so. */
    private readonly relay: RelayControlPort | null,
    private readonly ownership: WorkspaceOwnership,
    /** The console's origin, the one descriptors are bound to. */
    private readonly publicOrigin: () => string,
  ) {}

  async list(account: ConsoleAccount, query: ListQuery): Promise<ConsoleResult<ConsolePage<ConsoleWorkspace>>> {
    let after: { createdAt: string; workspaceId: string } | null = null;
    if (query.cursor !== null) {
      const decoded = decodeCursor(query.cursor, ['c', 'w'] as const);
      if (!decoded || !UUID.test(decoded.w) || Number.isNaN(Date.parse(decoded.c))) return badCursor();
      after = { createdAt: decoded.c, workspaceId: decoded.w };
    }
    const owned = await this.ownership.list(account.accountId, query.limit + 1, after);
    const page = owned.slice(0, query.limit);
    return this.relayed(async (relay) => {
      const items = await Promise.all(page.map(async (workspace) => ({ ...workspace, status: await relay.getWorkspaceStatus(workspace.workspaceId) })));
      const last = page.at(-1);
      return answered({ items, nextCursor: owned.length > query.limit && last ? encodeCursor({ c: last.createdAt, w: last.workspaceId }) : null });
    });
  }

  async create(account: ConsoleAccount, body: unknown): Promise<ConsoleResult<ConsoleWorkspace>> {
    const problem = onlyKeys<ConsoleWorkspace>(body, ['displayName']);
    if (problem) return problem;
    const displayName = (body as { displayName?: unknown }).displayName;
    if (typeof displayName !== 'string' || displayName.trim() === '' || [...displayName].length > MAX_DISPLAY_NAME || CONTROL_CHARACTERS.test(displayName)) {
      return invalid('Give the workspace a name', [{ code: 'CONSOLE_DISPLAY_NAME_INVALID', path: '/displayName', message: `A name is 1-${MAX_DISPLAY_NAME} characters with no control characters` }]);
    }
    return this.relayed(async (relay) => {
      const created = await relay.createWorkspace(randomUUID(), account.accountId, displayName.trim());
      const workspace: OwnedWorkspace = { workspaceId: created.workspaceId.toLowerCase(), displayName: created.displayName, createdAt: created.createdAt, endToEndEncrypted: created.endToEndEncrypted };
      await this.ownership.claim(account.accountId, workspace);
      return answered<ConsoleWorkspace>({ ...workspace, status: await relay.getWorkspaceStatus(workspace.workspaceId) }, 201);
    });
  }

  get(account: ConsoleAccount, workspaceId: string): Promise<ConsoleResult<ConsoleWorkspace>> {
    return this.onOwned(account, workspaceId, async (relay, workspace) => answered({ ...workspace, status: await relay.getWorkspaceStatus(workspace.workspaceId) }));
  }

  createPairingCode(account: ConsoleAccount, workspaceId: string): Promise<ConsoleResult<{ pairingCode: string; expiresAt: string }>> {
    return this.onOwned(account, workspaceId, async (relay, workspace) => answered(await relay.createPairingCode(workspace.workspaceId, account.accountId), 201));
  }

  listDevices(account: ConsoleAccount, workspaceId: string, query: ListQuery) {
    return this.onOwned(account, workspaceId, async (relay, workspace) => {
      const page = await relay.listDevices(workspace.workspaceId, query.limit, query.cursor ?? '');
      return answered({ items: page.items, nextCursor: page.nextPageToken || null });
    });
  }

  revokeDevice(account: ConsoleAccount, workspaceId: string, deviceId: string, body: unknown): Promise<ConsoleResult<{ revokedAt: string; disconnected: boolean }>> {
    if (!UUID.test(deviceId)) return Promise.resolve(refused(404, 'CONSOLE_DEVICE_NOT_FOUND', 'No device of this workspace has this id; pick one from its device list'));
    const problem = body === undefined ? null : onlyKeys<{ revokedAt: string; disconnected: boolean }>(body, ['reason']);
    if (problem) return Promise.resolve(problem);
    const reason = (body as { reason?: unknown } | undefined)?.reason ?? '';
    if (typeof reason !== 'string' || [...reason].length > MAX_REASON || CONTROL_CHARACTERS.test(reason)) {
      return Promise.resolve(invalid('Shorten the reason', [{ code: 'CONSOLE_REASON_INVALID', path: '/reason', message: `A reason is at most ${MAX_REASON} characters with no control characters` }]));
    }
    return this.onOwned(account, workspaceId, async (relay, workspace) => answered<{ revokedAt: string; disconnected: boolean }>(await relay.revokeDevice(workspace.workspaceId, deviceId.toLowerCase(), reason, account.accountId)), 'CONSOLE_DEVICE_NOT_FOUND');
  }

  createSessionDescriptor(account: ConsoleAccount, workspaceId: string): Promise<ConsoleResult<{ connectUrl: string; expiresAt: string }>> {
    return this.onOwned(account, workspaceId, async (relay, workspace) => answered(await relay.createBrowserSession(workspace.workspaceId, this.publicOrigin(), account.accountId)));
  }

  audit(account: ConsoleAccount, workspaceId: string, query: ListQuery): Promise<ConsoleResult<ConsolePage<ConsoleAuditEntry>>> {
    return this.onOwned(account, workspaceId, async (relay, workspace) => {
      const page = await relay.listWorkspaceAudit(workspace.workspaceId, query.limit, query.cursor ?? '');
      const items = page.items.map((entry) => ({
        at: entry.at,
        action: `${entry.method} ${entry.phase}`,
        ...(entry.userId ? { actor: entry.userId } : {}),
        detail: [`interaction ${entry.interactionId}`, entry.outcomeKind ? `outcome ${entry.outcomeKind}` : '', entry.responseKind ? `response ${entry.responseKind}` : ''].filter(Boolean).join(', '),
      }));
      return answered({ items, nextCursor: page.nextPageToken || null });
    });
  }

  /** Runs `work` on a workspace the account owns; 404 for any other id, before the relay is asked anything. */
  private async onOwned<T>(account: ConsoleAccount, workspaceId: string, work: (relay: RelayControlPort, workspace: OwnedWorkspace) => Promise<ConsoleResult<T>>, notFoundCode?: string): Promise<ConsoleResult<T>> {
    if (!UUID.test(workspaceId)) return notFound();
    const workspace = await this.ownership.owned(account.accountId, workspaceId.toLowerCase());
    if (!workspace) return notFound();
    return this.relayed((relay) => work(relay, workspace), notFoundCode);
  }

  /** Runs `work` against the relay, turning its failures into answers a person can act on. */
  private async relayed<T>(work: (relay: RelayControlPort) => Promise<ConsoleResult<T>>, notFoundCode = 'CONSOLE_WORKSPACE_NOT_FOUND'): Promise<ConsoleResult<T>> {
    const relay = this.relay;
    if (!relay) return refused(503, 'CONSOLE_RELAY_NOT_CONFIGURED', 'This console has no relay configured; its operator sets CONSOLE_RELAY_CONTROL_ADDRESS and its credential');
    try {
      return await work(relay);
    } catch (error) {
      if (!(error instanceof RelayCallFailed)) throw error;
      const upstream = error.reason ? { upstreamCode: error.reason } : {};
      switch (error.kind) {
        case 'not_found':
          return notFoundCode === 'CONSOLE_DEVICE_NOT_FOUND'
            ? refused(404, notFoundCode, 'No device of this workspace has this id; pick one from its device list', upstream)
            : refused(404, notFoundCode, 'The relay does not know this workspace any more', upstream);
        case 'invalid_argument':
          return refused(422, 'CONSOLE_INVALID_INPUT', 'The relay refused the request; check the values and the cursor and try again', upstream);
        case 'unavailable':
          return refused(503, 'CONSOLE_RELAY_UNAVAILABLE', 'The relay cannot be reached right now; try again in a moment', upstream);
        default:
          return refused(502, 'CONSOLE_RELAY_FAILED', 'The relay could not complete the request; try again, and tell the operator if it keeps failing', upstream);
      }
    }
  }
}

/** A refusal unless `body` is a JSON object whose keys are all in `allowed`. */
function onlyKeys<T>(body: unknown, allowed: readonly string[]): ConsoleResult<T> | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return invalid('Send a JSON object', [{ code: 'CONSOLE_BODY_NOT_OBJECT', path: '', message: 'The body must be a JSON object' }]);
  const unknown = Object.keys(body).filter((key) => !allowed.includes(key));
  if (unknown.length === 0) return null;
  // The unknown names are not repeated: the answer never echoes input.
  return invalid('Remove the fields this request does not take', [{ code: 'CONSOLE_FIELD_UNKNOWN', path: '', message: `Only ${allowed.join(', ')} may be sent` }]);
}
