/**
 * Which console account owns which relay workspace (API.md "Workspaces"): recorded as one event on the
 * workspace's own stream (`console.workspaces.v1`), listed from the `console_workspaces` projection. The
 * stream is the authority for every ownership check, so a workspace created a moment ago is its owner's at
 * once; the relay's own `owner_user_id` is the account id too, but the console never lets the relay decide
 * who may see a workspace.
 */
import type { SqlExecutor } from '@trustmesh/platform-database';
import type { EventStore } from '@trustmesh/platform-event-store';
import type { ProjectionRunner } from '@trustmesh/platform-projections';

import type { PrismaClient } from '../persistence/generated/prisma/client';
import { CONSOLE_WORKSPACES_TOPIC, WORKSPACE_CLAIMED, workspaceStreamId, type WorkspaceClaimedData } from '../persistence/console.streams';

export interface OwnedWorkspace {
  workspaceId: string;
  displayName: string;
  createdAt: string;
  endToEndEncrypted: boolean;
}

const PROJECTION_WAIT_MS = 10_000;

export class WorkspaceOwnership {
  constructor(
    private readonly store: EventStore,
    private readonly prisma: PrismaClient,
    private readonly projection: ProjectionRunner<SqlExecutor>,
  ) {}

  async claim(accountId: string, workspace: OwnedWorkspace): Promise<void> {
    const data: WorkspaceClaimedData = { ...workspace, workspaceId: workspace.workspaceId.toLowerCase(), accountId };
    await this.store.append(workspaceStreamId(workspace.workspaceId), 'no-stream', [{ eventType: WORKSPACE_CLAIMED, data }], { topic: CONSOLE_WORKSPACES_TOPIC });
    await this.projection.catchUp(PROJECTION_WAIT_MS);
  }

  /** The workspace when `accountId` owns it, else null (unknown and another account's alike). */
  async owned(accountId: string, workspaceId: string): Promise<OwnedWorkspace | null> {
    const [claimed] = await this.store.readStream(workspaceStreamId(workspaceId), { limit: 1 });
    const data = claimed?.envelope.data as WorkspaceClaimedData | undefined;
    if (!data || data.accountId !== accountId) return null;
    return { workspaceId: data.workspaceId, displayName: data.displayName, createdAt: data.createdAt, endToEndEncrypted: data.endToEndEncrypted };
  }

  /** A page of the account's workspaces, newest first, after `after` (the last of the previous page). */
  async list(accountId: string, limit: number, after: { createdAt: string; workspaceId: string } | null): Promise<OwnedWorkspace[]> {
    const rows = await this.prisma.consoleWorkspaceView.findMany({
      where: {
        accountId,
        ...(after
          ? { OR: [{ createdAt: { lt: new Date(after.createdAt) } }, { createdAt: new Date(after.createdAt), workspaceId: { lt: after.workspaceId } }] }
          : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { workspaceId: 'desc' }],
      take: limit,
    });
    return rows.map((row) => ({ workspaceId: row.workspaceId, displayName: row.displayName, createdAt: row.createdAt.toISOString(), endToEndEncrypted: row.endToEndEncrypted }));
  }
}
