/**
 * The live presence tables (`relay_workspace_presence`, `relay_live_browser_sessions`) in plain SQL on the
 * platform database's own connection (`Database.withConnection`), not through Prisma.
 *
 * Why not Prisma: these statements run on every socket that opens or closes, and again for every presence
 * event when the workspace's status is read back for the listeners. When a few hundred Companions and
 * browsers connect at once, Prisma's client engine compiled each model query again (its WASM query compiler
 * and interpreter took up to a fifth of the event loop and allocated most of the process's garbage), and the
 * frames streaming meanwhile waited behind it. Fixed statements with bind parameters cost one round trip each
 * and nothing to plan on this side; the tables and their types are still the Prisma schema's (the migrations
 * create them), only the access is direct.
 *
 * Each method is one statement, so each is atomic on its own, on PGlite and on a Postgres server alike.
 */
import type { Database, SqlExecutor } from '@trustmesh/platform-database';

/** One workspace's presence as the database holds it, with the number of live browser sessions. */
export interface PresenceRow {
  online: boolean;
  deviceId: string | null;
  connectionId: string | null;
  replicaId: string | null;
  wireVersion: string | null;
  lastWireVersion: string | null;
  changedAt: Date | null;
  browserSessionCount: number;
}

/** A live Companion connection a replica holds (what `heldBy` returns). */
export interface HeldCompanion {
  workspaceId: string;
  deviceId: string;
  connectionId: string;
}

/** A live browser session a replica holds. */
export interface HeldBrowserSession {
  sessionId: string;
  workspaceId: string;
}

const COMPANION_ONLINE = `
  INSERT INTO relay_workspace_presence (workspace_id, online, device_id, connection_id, replica_id, wire_version, last_wire_version, changed_at)
  VALUES ($1::uuid, true, $2::uuid, $3::uuid, $4, $5, $5, $6::timestamptz)
  ON CONFLICT (workspace_id) DO UPDATE SET
    online = true, device_id = EXCLUDED.device_id, connection_id = EXCLUDED.connection_id, replica_id = EXCLUDED.replica_id,
    wire_version = EXCLUDED.wire_version, last_wire_version = EXCLUDED.last_wire_version,
    changed_at = CASE WHEN relay_workspace_presence.online THEN relay_workspace_presence.changed_at ELSE EXCLUDED.changed_at END`;

/** Only while the connection is still the live one: a replaced socket closing late changes nothing. */
const COMPANION_OFFLINE = `
  UPDATE relay_workspace_presence
     SET online = false, device_id = NULL, connection_id = NULL, replica_id = NULL, wire_version = NULL, changed_at = $3::timestamptz
   WHERE workspace_id = $1::uuid AND connection_id = $2::uuid
  RETURNING 1 AS updated`;

const SESSION_STARTED = `
  INSERT INTO relay_live_browser_sessions (session_id, workspace_id, replica_id, started_at)
  VALUES ($1::uuid, $2::uuid, $3, $4::timestamptz)
  ON CONFLICT (session_id) DO NOTHING`;

const SESSION_ENDED = `DELETE FROM relay_live_browser_sessions WHERE session_id = $1::uuid RETURNING 1 AS removed`;

/**
 * The presence row (if any) and the session count in one statement, so both come from one snapshot. Times
 * travel as milliseconds (float8), which both drivers return as a number.
 */
const STATUS = `
  SELECT p.online, p.device_id::text AS device_id, p.connection_id::text AS connection_id, p.replica_id, p.wire_version,
         p.last_wire_version, (extract(epoch FROM p.changed_at) * 1000)::float8 AS changed_at_ms,
         (SELECT count(*) FROM relay_live_browser_sessions s WHERE s.workspace_id = w.workspace_id)::int AS browser_session_count
    FROM (SELECT $1::uuid AS workspace_id) w
    LEFT JOIN relay_workspace_presence p ON p.workspace_id = w.workspace_id`;

const COMPANIONS_HELD = `
  SELECT workspace_id::text AS workspace_id, device_id::text AS device_id, connection_id::text AS connection_id
    FROM relay_workspace_presence
   WHERE replica_id = $1 AND online AND device_id IS NOT NULL AND connection_id IS NOT NULL`;

const SESSIONS_HELD = `SELECT session_id::text AS session_id, workspace_id::text AS workspace_id FROM relay_live_browser_sessions WHERE replica_id = $1`;

const HOLDERS = `
  SELECT replica_id FROM relay_workspace_presence WHERE online AND replica_id IS NOT NULL
   UNION
  SELECT replica_id FROM relay_live_browser_sessions`;

interface StatusRow {
  online: boolean | null;
  device_id: string | null;
  connection_id: string | null;
  replica_id: string | null;
  wire_version: string | null;
  last_wire_version: string | null;
  changed_at_ms: number | null;
  browser_session_count: number;
}

export class PresenceRows {
  constructor(private readonly database: Database) {}

  /** The connection is the workspace's live Companion, held by `replicaId`; `changedAt` moves only if it was offline. */
  async companionOnline(connection: { workspaceId: string; deviceId: string; connectionId: string; wireVersion: string }, replicaId: string, at: Date): Promise<void> {
    await this.run((sql) =>
      sql.query(COMPANION_ONLINE, [connection.workspaceId, connection.deviceId, connection.connectionId, replicaId, connection.wireVersion, at.toISOString()]),
    );
  }

  /** The workspace goes offline if `connectionId` is still its live connection; true when it was. */
  async companionOffline(workspaceId: string, connectionId: string, at: Date): Promise<boolean> {
    const rows = await this.run((sql) => sql.query(COMPANION_OFFLINE, [workspaceId, connectionId, at.toISOString()]));
    return rows.length > 0;
  }

  /** Records a live session (again: nothing changes, the first start stands). */
  async sessionStarted(session: { sessionId: string; workspaceId: string }, replicaId: string, at: Date): Promise<void> {
    await this.run((sql) => sql.query(SESSION_STARTED, [session.sessionId, session.workspaceId, replicaId, at.toISOString()]));
  }

  /** Removes a live session; true when it was recorded (so its end is reported once). */
  async sessionEnded(sessionId: string): Promise<boolean> {
    const rows = await this.run((sql) => sql.query(SESSION_ENDED, [sessionId]));
    return rows.length > 0;
  }

  async status(workspaceId: string): Promise<PresenceRow> {
    const [row] = await this.run((sql) => sql.query<StatusRow>(STATUS, [workspaceId]));
    return {
      online: row?.online === true,
      deviceId: row?.device_id ?? null,
      connectionId: row?.connection_id ?? null,
      replicaId: row?.replica_id ?? null,
      wireVersion: row?.wire_version ?? null,
      lastWireVersion: row?.last_wire_version ?? null,
      changedAt: typeof row?.changed_at_ms === 'number' ? new Date(Math.round(row.changed_at_ms)) : null,
      browserSessionCount: Number(row?.browser_session_count ?? 0),
    };
  }

  /** What `replicaId` still holds: its live Companions and browser sessions. */
  async heldBy(replicaId: string): Promise<{ companions: HeldCompanion[]; sessions: HeldBrowserSession[] }> {
    return this.run(async (sql) => {
      const companions = await sql.query<{ workspace_id: string; device_id: string; connection_id: string }>(COMPANIONS_HELD, [replicaId]);
      const sessions = await sql.query<{ session_id: string; workspace_id: string }>(SESSIONS_HELD, [replicaId]);
      return {
        companions: companions.map((row) => ({ workspaceId: row.workspace_id, deviceId: row.device_id, connectionId: row.connection_id })),
        sessions: sessions.map((row) => ({ sessionId: row.session_id, workspaceId: row.workspace_id })),
      };
    });
  }

  /** Every replica id that holds any presence. */
  async holders(): Promise<string[]> {
    const rows = await this.run((sql) => sql.query<{ replica_id: string }>(HOLDERS));
    return rows.map((row) => row.replica_id);
  }

  private run<T>(work: (sql: SqlExecutor) => Promise<T>): Promise<T> {
    return this.database.withConnection(work);
  }
}
