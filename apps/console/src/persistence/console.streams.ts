/**
 * How the console's facts are kept in the platform event store:
 *
 * - `console.accounts.v1`, one stream per username (`console-account-<username>`): an account is created,
 *   its password changed (when, not what), it is deleted. Keying the stream by the (case-folded) username
 *   makes the name unique by the store's optimistic concurrency alone: two creations of one name race on one
 *   stream version and one of them is refused. A name deleted and created again continues the same stream
 *   with a fresh account id, so nothing of the old account (sessions, workspaces, password) carries over.
 * - `console-password-<accountId>`, never published (`topic: null`): `ConsolePasswordSet` with the password's
 *   scrypt hash. A verifier is offline-cracking material, so it never goes to a peer that has no use for it:
 *   not to Kafka's consumers of the topic, not to another replica's local log. Sign-in reads it from the store
 *   (shared by the replicas), as the registry reads its credential digests. It is written before the published
 *   event that makes it count (the creation, or the change), so a crash between the two leaves at worst a
 *   verifier no live account points to, never an account without one.
 * - `console.workspaces.v1`, one stream per relay workspace (`console-workspace-<workspaceId>`): which
 *   account owns it.
 *
 * Data written before the verifier moved (dev builds of this release line only; the console is new in it, so
 * nothing is migrated): those account events still carry a `passwordHash`, which nothing reads any more, and
 * such an account has no verifier stream, so it cannot sign in until `trustmesh console account set-password`
 * gives it one (or it is deleted and created again). Logs never carry the password or its hash.
 */
export const CONSOLE_ACCOUNTS_TOPIC = 'console.accounts.v1';
export const CONSOLE_WORKSPACES_TOPIC = 'console.workspaces.v1';

export const accountStreamId = (username: string) => `console-account-${username}`;
export const passwordStreamId = (accountId: string) => `console-password-${accountId}`;
export const workspaceStreamId = (workspaceId: string) => `console-workspace-${workspaceId.toLowerCase()}`;

export interface WorkspaceClaimedData {
  workspaceId: string;
  accountId: string;
  displayName: string;
  endToEndEncrypted: boolean;
  createdAt: string;
}

export const WORKSPACE_CLAIMED = 'ConsoleWorkspaceClaimed';
