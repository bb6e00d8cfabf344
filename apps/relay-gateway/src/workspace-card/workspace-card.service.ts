/**
 * PublishWorkspaceCard (proto/trustmesh/relay/v1/relay_control.proto) and the start-up check that keeps
 * published cards pointing at this relay's public endpoint. Both only append control events to the
 * workspace's card stream (`relay-workspace-card-<id>`, appended at the version read: one content per
 * version); the `relay-workspace-cards` projection decides the desired card and `WorkspaceCardDelivery`
 * delivers it, so a publish survives a registry outage or a restart between the two.
 */
import { ConcurrencyError } from '@trustmesh/platform-event-store';

import type { RelayEndpoints } from '../config/relay-endpoints';
import type { ControlStore } from '../control/control-store';
import { controlEvent, isControlEvent, streams } from '../control/control.events';
import { ControlError } from '../control/relay-control.service';
import type { WorkspaceRegistry } from '../control/workspace-registry';
import type { JsonLogger } from '../logging/json-logger';
import type { PrismaClient } from '../persistence/generated/prisma/client';
import { workspaceCardIdentifier } from './workspace-card.builder';
import type { WorkspaceCardConfig } from './workspace-card.config';
import type { WorkspaceCardDelivery } from './workspace-card.delivery';

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;
const MAX_USER_ID = 200;
const MAX_NAME = 100;
const MAX_DESCRIPTION = 1000;
const MAX_TAGS = 16;
const MAX_TAG = 40;
/** How long the call waits for the registry before it answers PENDING (delivery goes on regardless). */
const DELIVERY_WAIT_MS = 5_000;
const DELIVERY_POLL_MS = 100;
const MAX_APPEND_ATTEMPTS = 5;

export type WorkspaceCardDeliveryState = 'published' | 'pending' | 'refused';

export interface PublishedWorkspaceCard {
  identifier: string;
  revision: string;
  delivery: WorkspaceCardDeliveryState;
  status: 'active' | 'deprecated';
  registryRefusalCode: string;
}

/** The card content the stream holds now (null before the first publish). */
interface CardContent {
  identifier: string;
  name: string;
  description: string;
  tags: string[];
  endpoint: string;
}

const length = (value: string) => [...value].length;

function requiredText(field: string, value: string | undefined, max: number): string {
  const text = (value ?? '').trim();
  if (text === '' || length(text) > max) throw new ControlError('INVALID_ARGUMENT', `${field} must be 1 to ${max} characters`);
  return text;
}

function tagsArgument(tags: readonly string[] | undefined): string[] {
  const given = tags ?? [];
  if (given.length > MAX_TAGS) throw new ControlError('INVALID_ARGUMENT', `tags must hold at most ${MAX_TAGS} entries`);
  const trimmed = given.map((tag) => (typeof tag === 'string' ? tag.trim() : ''));
  if (trimmed.some((tag) => tag === '' || length(tag) > MAX_TAG)) throw new ControlError('INVALID_ARGUMENT', `each tag must be 1 to ${MAX_TAG} characters`);
  return [...new Set(trimmed)];
}

function contentOf(events: ReadonlyArray<{ eventType: string; data: unknown }>): CardContent | null {
  let content = null as CardContent | null;
  for (const event of events) {
    if (isControlEvent(event, 'WorkspaceCardPublished')) content = { identifier: event.data.identifier, name: event.data.name, description: event.data.description, tags: event.data.tags, endpoint: event.data.endpoint };
    else if (isControlEvent(event, 'WorkspaceCardEndpointMoved') && content !== null) content = { ...content, endpoint: event.data.endpoint };
  }
  return content;
}

const sameContent = (a: CardContent, b: CardContent) =>
  a.identifier === b.identifier &&
  a.name === b.name && a.description === b.description && a.endpoint === b.endpoint && a.tags.length === b.tags.length && a.tags.every((tag, index) => tag === b.tags[index]);

export class WorkspaceCardService {
  constructor(
    private readonly control: ControlStore,
    private readonly workspaces: WorkspaceRegistry,
    private readonly endpoints: RelayEndpoints,
    private readonly prisma: PrismaClient,
    private readonly config: WorkspaceCardConfig | null,
    private readonly delivery: WorkspaceCardDelivery | null,
    private readonly logger: JsonLogger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async publish(input: { workspaceId: string; requestedByUserId: string; name: string; description: string; tags: readonly string[] }): Promise<PublishedWorkspaceCard> {
    if (typeof input.workspaceId !== 'string' || !UUID.test(input.workspaceId)) throw new ControlError('INVALID_ARGUMENT', 'workspace_id must be a UUID (canonical text form)');
    const workspaceId = input.workspaceId.toLowerCase();
    const requestedByUserId = input.requestedByUserId ?? '';
    if (length(requestedByUserId) > MAX_USER_ID) throw new ControlError('INVALID_ARGUMENT', `requested_by_user_id must be at most ${MAX_USER_ID} characters`);
    const wanted = { name: requiredText('name', input.name, MAX_NAME), description: requiredText('description', input.description, MAX_DESCRIPTION), tags: tagsArgument(input.tags) };
    if (!this.config) {
      throw new ControlError('FAILED_PRECONDITION', 'this relay publishes no workspace cards: its operator has configured no card registry publisher credential (RELAY_REGISTRY_*)', 'CARD_PUBLISHING_NOT_CONFIGURED');
    }
    const workspace = await this.workspaces.find(workspaceId);
    if (!workspace) throw new ControlError('NOT_FOUND', 'no such workspace');
    if (requestedByUserId === '' || requestedByUserId !== workspace.ownerUserId) {
      throw new ControlError('PERMISSION_DENIED', 'requested_by_user_id is not the owner of this workspace: only its owner may publish its agent', 'WORKSPACE_NOT_OWNED');
    }
    const identifier = workspaceCardIdentifier(this.config.namespace, workspaceId);
    const content: CardContent = { identifier, ...wanted, endpoint: this.endpoints.publicBaseUrl };
    const stream = streams.workspaceCard(workspaceId);
    for (let attempt = 1; ; attempt += 1) {
      const events = await this.control.read(stream);
      const current = contentOf(events);
      if (current && sameContent(current, content)) break;
      try {
        await this.control.append(stream, events.length === 0 ? 'no-stream' : events.length, [
          controlEvent('WorkspaceCardPublished', {
            workspaceId,
            ...content,
            endToEndEncrypted: workspace.endToEndEncrypted,
            requestedByUserId,
            publishedAt: this.now().toISOString(),
          }),
        ]);
        this.logger.info('workspace card publish requested', { workspaceId });
        break;
      } catch (error) {
        if (!(error instanceof ConcurrencyError) || attempt >= MAX_APPEND_ATTEMPTS) throw error;
      }
    }
    await this.prisma.$executeRaw`UPDATE relay_workspace_cards SET refusal_code = NULL WHERE workspace_id = ${workspaceId}::uuid AND refusal_code IS NOT NULL`;
    return this.awaitDelivery(workspaceId, identifier);
  }

  /**
   * At start: every published card whose endpoint is not this relay's public base URL any more gets a
   * WorkspaceCardEndpointMoved (a new revision). Appended at the version read, so two replicas starting
   * together move a card once.
   */
  async followEndpoint(): Promise<void> {
    const endpoint = this.endpoints.publicBaseUrl;
    const moved = await this.prisma.relayWorkspaceCard.findMany({ where: { endpoint: { not: endpoint } }, select: { workspaceId: true } });
    for (const { workspaceId } of moved) {
      const stream = streams.workspaceCard(workspaceId);
      const events = await this.control.read(stream);
      const current = contentOf(events);
      if (!current || current.endpoint === endpoint) continue;
      try {
        await this.control.append(stream, events.length, [controlEvent('WorkspaceCardEndpointMoved', { workspaceId, endpoint, movedAt: this.now().toISOString() })]);
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
      }
    }
    if (moved.length > 0) this.logger.info('workspace cards follow the public endpoint', { cards: moved.length });
  }

  /** The card's delivery once the registry answered for the latest desired version, or PENDING after a bounded wait. */
  private async awaitDelivery(workspaceId: string, identifier: string): Promise<PublishedWorkspaceCard> {
    this.delivery?.kick();
    const deadline = Date.now() + DELIVERY_WAIT_MS;
    for (;;) {
      const row = await this.prisma.relayWorkspaceCard.findUnique({ where: { workspaceId } });
      const latest = contentOf(await this.control.read(streams.workspaceCard(workspaceId)));
      // The projection trails the store: a row counts once it reflects the stream's latest content.
      const projected = row !== null && latest !== null && row.identifier === latest.identifier && row.endpoint === latest.endpoint && row.name === latest.name && row.description === latest.description;
      if (projected && row.refusalCode) return this.answer(identifier, row, 'refused');
      if (projected && row.deliveredVersion >= row.desiredVersion) return this.answer(identifier, row, 'published');
      if (Date.now() >= deadline) {
        return row ? this.answer(identifier, row, 'pending') : { identifier, revision: '', delivery: 'pending', status: 'active', registryRefusalCode: '' };
      }
      await new Promise((resolve) => setTimeout(resolve, DELIVERY_POLL_MS));
    }
  }

  private answer(identifier: string, row: { revision: string; status: string; refusalCode: string | null }, delivery: WorkspaceCardDeliveryState): PublishedWorkspaceCard {
    return { identifier, revision: row.revision, delivery, status: row.status === 'deprecated' ? 'deprecated' : 'active', registryRefusalCode: delivery === 'refused' ? (row.refusalCode ?? '') : '' };
  }
}
