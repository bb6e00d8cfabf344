/**
 * How the console's facts are kept in the platform event store:
 *
 * - `console.accounts.v1`, one stream per username (`console-account-<username>`): an account is created,
 *   its password changed, it is deleted. Keying the stream by the (case-folded) username makes the name
 *   unique by the store's optimistic concurrency alone: two creations of one name race on one stream
 *   version and one of them is refused. A name deleted and created again continues the same stream with a
 *   fresh account id, so nothing of the old account (sessions, workspaces) carries over.
 * - `console.workspaces.v1`, one stream per relay workspace (`console-workspace-<workspaceId>`): which
 *   account owns it.
 *
 * Events carry the password's scrypt hash (never the password); logs never carry either.
 */
export const CONSOLE_ACCOUNTS_TOPIC = 'console.accounts.v1';
export const CONSOLE_WORKSPACES_TOPIC = 'console.workspaces.v1';

export const accountStreamId = (username: string) => `console-account-${username}`;
export const workspaceStreamId = (workspaceId: string) => `console-workspace-${workspaceId.toLowerCase()}`;

export interface WorkspaceClaimedData {
  workspaceId: string;
  accountId: string;
  displayName: string;
  endToEndEncrypted: boolean;
  createdAt: string;
}

export const WORKSPACE_CLAIMED = 'ConsoleWorkspaceClaimed';
