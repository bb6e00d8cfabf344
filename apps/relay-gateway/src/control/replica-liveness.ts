/**
 * Replica liveness: each gateway renews its `relay_replicas` row every RELAY_REPLICA_HEARTBEAT_SECONDS, with
 * the database's clock (no skew between machines), and sweeps replicas whose row is older than
 * RELAY_REPLICA_TIMEOUT_SECONDS: a replica that crashed cannot report its sockets closed, so another one
 * ends the presence it held (Companions go offline for watchers and browsers everywhere; its browser sessions
 * stop counting). The Companions and browsers themselves reconnect to a live replica.
 *
 * Sweeps on several replicas at once are harmless: each disconnect is conditional on the connection id. A replica
 * swept while alive (a long pause, a partition from the database) keeps its sockets: its data plane hears that its
 * live Companions went offline and records them again, so a mistaken sweep costs a moment offline, not the
 * Companion. Requests routed to a dead replica do not wait for the sweep: see the data plane's routing receipts.
 */
import type { RelayGatewayConfig } from '../config/relay-gateway.config';
import type { JsonLogger } from '../logging/json-logger';
import type { PrismaClient } from '../persistence/generated/prisma/client';
import type { WorkspacePresence } from './workspace-presence.service';

export class ReplicaLiveness {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly presence: WorkspacePresence,
    private readonly config: RelayGatewayConfig,
    private readonly logger: JsonLogger,
  ) {}

  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => {
      this.running ??= this.beat()
        .then(() => this.sweep())
        .then(() => undefined)
        .catch((error: unknown) => this.logger.warn('replica liveness failed', { errorName: error instanceof Error ? error.name : 'unknown' }))
        .finally(() => {
          this.running = undefined;
        });
    }, this.config.replicaLiveness.heartbeatSeconds * 1000);
    this.timer.unref();
  }

  /** Stops renewing and removes this replica's row (its presence is released by the caller). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    await this.prisma.relayReplica.deleteMany({ where: { replicaId: this.config.replicaId } });
  }

  private async beat(): Promise<void> {
    await this.prisma.$executeRaw`
      INSERT INTO relay_replicas (replica_id, started_at, last_seen_at) VALUES (${this.config.replicaId}, now(), now())
      ON CONFLICT (replica_id) DO UPDATE SET last_seen_at = now()`;
  }

  /** Ends the presence of every replica not seen within the timeout; returns how many replicas it released. */
  async sweep(): Promise<number> {
    const stale = await this.prisma.$queryRaw<Array<{ replica_id: string }>>`
      SELECT replica_id FROM relay_replicas
       WHERE replica_id <> ${this.config.replicaId}
         AND last_seen_at < now() - make_interval(secs => ${this.config.replicaLiveness.timeoutSeconds})`;
    for (const { replica_id: replicaId } of stale) {
      const released = await this.presence.releaseReplica(replicaId, 'heartbeat-timeout');
      await this.prisma.relayReplica.deleteMany({ where: { replicaId } });
      this.logger.warn('replica presumed dead; its presence was released', { deadReplica: replicaId, released });
    }
    return stale.length;
  }
}
