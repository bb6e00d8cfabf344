/**
 * Which workspaces exist, read from their event streams (strongly consistent: a workspace is known on every
 * replica as soon as CreateWorkspace returned). A workspace never changes after creation, so known ones are
 * cached in memory; unknown ids are not cached (they may be created later).
 */
import type { ControlStore } from './control-store';
import { isControlEvent, streams } from './control.events';

export interface WorkspaceRecord {
  workspaceId: string;
  ownerUserId: string;
  displayName: string;
  endToEndEncrypted: boolean;
  createdAt: Date;
}

const MAX_CACHED = 50_000;

export class WorkspaceRegistry {
  private readonly cache = new Map<string, WorkspaceRecord>();

  constructor(private readonly control: ControlStore) {}

  async find(workspaceId: string): Promise<WorkspaceRecord | null> {
    const cached = this.cache.get(workspaceId);
    if (cached) return cached;
    const events = await this.control.read(streams.workspace(workspaceId));
    const created = events.find((event) => isControlEvent(event, 'WorkspaceCreated'));
    if (!created || !isControlEvent(created, 'WorkspaceCreated')) return null;
    const record: WorkspaceRecord = {
      workspaceId: created.data.workspaceId,
      ownerUserId: created.data.ownerUserId,
      displayName: created.data.displayName,
      endToEndEncrypted: created.data.endToEndEncrypted === true,
      createdAt: new Date(created.data.createdAt),
    };
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(workspaceId, record);
    return record;
  }
}
