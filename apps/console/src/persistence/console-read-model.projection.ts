/**
 * The console's read models, projected from `console.accounts.v1` and `console.workspaces.v1` by the
 * platform's projection runner: `console_accounts` (each live account, for lists; sign-in reads the streams)
 * and `console_workspaces` (which account owns which relay workspace, for the workspace list). No password
 * hash reaches it: verifiers are never published (console.streams.ts). Each event
 * is applied once in the runner's transaction with statements that leave the same rows when replayed, so
 * rebuilding from the log gives the same tables.
 */
import type { SqlExecutor } from '@trustmesh/platform-database';
import type { EventEnvelope } from '@trustmesh/platform-events';
import type { ProjectionDefinition } from '@trustmesh/platform-projections';

import { ACCOUNT_CREATED, ACCOUNT_DELETED, ACCOUNT_PASSWORD_CHANGED, type ConsoleAccountEvent } from '../accounts/console-account.decider';
import { CONSOLE_ACCOUNTS_TOPIC, CONSOLE_WORKSPACES_TOPIC, WORKSPACE_CLAIMED, type WorkspaceClaimedData } from './console.streams';

export const CONSOLE_READ_MODEL_PROJECTION = 'console-read-model';

export function consoleReadModelProjection(): ProjectionDefinition<SqlExecutor> {
  return {
    name: CONSOLE_READ_MODEL_PROJECTION,
    version: 1,
    topics: [CONSOLE_ACCOUNTS_TOPIC, CONSOLE_WORKSPACES_TOPIC],
    async apply(envelope: EventEnvelope, { tx }) {
      if (envelope.eventType === WORKSPACE_CLAIMED) {
        const data = envelope.data as WorkspaceClaimedData;
        await tx.query(
          `INSERT INTO console_workspaces (workspace_id, account_id, display_name, end_to_end_encrypted, created_at)
           VALUES ($1::uuid, $2::uuid, $3, $4, $5::timestamptz) ON CONFLICT (workspace_id) DO NOTHING`,
          [data.workspaceId, data.accountId, data.displayName, data.endToEndEncrypted, data.createdAt],
        );
        return;
      }
      const event = { eventType: envelope.eventType, data: envelope.data } as ConsoleAccountEvent;
      switch (event.eventType) {
        case ACCOUNT_CREATED:
          // A name deleted and created again: the deleted account's row is gone (ACCOUNT_DELETED), so the
          // conflict can only be this very event replayed.
          await tx.query(
            `INSERT INTO console_accounts (account_id, username, created_at, password_changed_at)
             VALUES ($1::uuid, $2, $3::timestamptz, $3::timestamptz) ON CONFLICT DO NOTHING`,
            [event.data.accountId, event.data.username, event.data.createdAt],
          );
          return;
        case ACCOUNT_PASSWORD_CHANGED:
          await tx.query('UPDATE console_accounts SET password_changed_at = $2::timestamptz WHERE account_id = $1::uuid', [event.data.accountId, event.data.changedAt]);
          return;
        case ACCOUNT_DELETED:
          await tx.query('DELETE FROM console_accounts WHERE account_id = $1::uuid', [event.data.accountId]);
          return;
        default:
          // An event type this version does not know: nothing of it is read here.
          return;
      }
    },
  };
}
