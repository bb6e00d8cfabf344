/**
 * The data plane's metric families, on prom-client (the gateway serves them from its operator port with the
 * process metrics and the backbone's lags). Label values are codes and frame types from fixed registries,
 * never identifiers or payload, so the series count stays bounded.
 *
 * Counters are bumped per frame and per send, so they count here, allocation-free (see `counter`), and
 * prom-client reads their totals when scraped; gauges computed from live structures are read then too.
 */
import { collectedCounter, collectedGauge, type Sample } from '@trustmesh/platform-metrics';
import { Registry } from 'prom-client';

type Labels = Readonly<Record<string, string>>;

interface Family {
  name: string;
  series: Map<string, { labels: Labels; value: number }>;
  /** For gauges computed when scraped. */
  collect?: () => ReadonlyArray<{ labels: Labels; value: number }>;
}

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const seriesKey = (labels: Labels) =>
  Object.keys(labels)
    .sort()
    .map((key) => `${key}="${escapeLabel(labels[key] ?? '')}"`)
    .join(',');

const NO_LABELS: Labels = Object.freeze({});

/**
 * A counter's series by the label names and values of a bump, in the order the caller gives them: names and
 * values alternate along the path, so no two label sets share a node.
 */
interface SeriesNode {
  series?: { labels: Labels; value: number };
  next?: Map<string, SeriesNode>;
}

function step(node: SeriesNode, part: string): SeriesNode {
  node.next ??= new Map();
  let child = node.next.get(part);
  if (!child) {
    child = {};
    node.next.set(part, child);
  }
  return child;
}

/** A family's series for prom-client, label names in a fixed (sorted) order as the exposition always had them. */
function samples(entries: Iterable<{ labels: Labels; value: number }>): Sample[] {
  const out: Sample[] = [];
  for (const { labels, value } of entries) {
    const sorted: Record<string, string> = {};
    for (const key of Object.keys(labels).sort()) sorted[key] = labels[key] ?? '';
    out.push({ labels: sorted, value: Number.isFinite(value) ? value : 0 });
  }
  return out;
}

export class MetricsRegistry {
  private readonly families = new Map<string, Family>();

  /** The prom-client registry the families are read into. */
  readonly prom = new Registry();

  private family(name: string, help: string, kind: 'counter' | 'gauge', labelNames: readonly string[]): Family {
    let family = this.families.get(name);
    if (!family) {
      const created: Family = { name, series: new Map() };
      const collect = () => samples(created.collect ? created.collect() : created.series.values());
      if (kind === 'counter') collectedCounter(this.prom, { name, help, labelNames, collect });
      else collectedGauge(this.prom, { name, help, labelNames, collect });
      this.families.set(name, created);
      family = created;
    }
    return family;
  }

  counter(name: string, help: string, labelNames: readonly string[] = []): (labels?: Labels, by?: number) => void {
    const family = this.family(name, help, 'counter', labelNames);
    // Counters are bumped per frame and per send: the series is found by walking the label names and values
    // as given, one map lookup each (no key string is built, sorted, escaped or joined on the hot path, so a
    // bump allocates nothing); the exposition key is built once per series.
    const root: SeriesNode = {};
    return (labels = NO_LABELS, by = 1) => {
      let node = root;
      for (const key in labels) node = step(step(node, key), labels[key] ?? '');
      let series = node.series;
      if (!series) {
        const key = seriesKey(labels);
        series = family.series.get(key);
        if (!series) {
          series = { labels: { ...labels }, value: 0 };
          family.series.set(key, series);
        }
        node.series = series;
      }
      series.value += by;
    };
  }

  gauge(name: string, help: string, labelNames: readonly string[] = []): (labels: Labels, value: number) => void {
    const family = this.family(name, help, 'gauge', labelNames);
    return (labels, value) => {
      family.series.set(seriesKey(labels), { labels, value });
    };
  }

  /** A gauge whose series are computed at scrape time. */
  collected(name: string, help: string, labelNames: readonly string[], collect: NonNullable<Family['collect']>): void {
    this.family(name, help, 'gauge', labelNames).collect = collect;
  }

  /** The value of one series (tests and health checks); 0 when never set. */
  value(name: string, labels: Labels = {}): number {
    const family = this.families.get(name);
    if (!family) return 0;
    if (family.collect) return family.collect().find((entry) => seriesKey(entry.labels) === seriesKey(labels))?.value ?? 0;
    return family.series.get(seriesKey(labels))?.value ?? 0;
  }

  /** The exposition text of these families (tests; the gateway serves its whole registry). */
  render(): Promise<string> {
    return this.prom.metrics();
  }
}

/** The data plane's metric families, on a prom-client registry of their own (`registry.prom`) that the gateway merges into its app registry. */
export class DataPlaneMetrics {
  readonly registry = new MetricsRegistry();
  readonly connectionsOpened = this.registry.counter('relay_connections_opened_total', 'WebSocket connections accepted, by socket kind.', ['socket']);
  readonly frames = this.registry.counter('relay_frames_total', 'Frames handled, by type and direction (inbound from or outbound to a peer).', ['direction', 'type']);
  readonly rejections = this.registry.counter('relay_rejections_total', 'Refused upgrades, frames and sessions, by socket kind and stable code.', ['code', 'socket']);
  readonly replayed = this.registry.counter('relay_catchup_frames_total', 'Frames replayed from the frames log to reconnecting browsers.');
  readonly redelivered = this.registry.counter('relay_interactions_redelivered_total', 'Retained interaction requests redelivered after session.ready.');
  readonly gaps = this.registry.counter('relay_gaps_total', 'runtime.gap frames sent to browsers, by origin (companion or relay retention).', ['origin']);
  readonly sendBufferDrops = this.registry.counter('relay_send_buffer_drops_total', 'Sockets closed because their send buffer passed the high-water mark, by socket kind.', ['socket']);
  readonly busPublished = this.registry.counter('relay_bus_published_total', 'Frames-log and routing records published, by topic.', ['topic']);
  readonly busPublishFailures = this.registry.counter('relay_bus_publish_failures_total', 'Failed bus publications, by topic.', ['topic']);
  readonly busPublishLag = this.registry.gauge('relay_bus_publish_lag_ms', 'Age of the oldest frame awaiting publication when the last batch was sent, by topic.', ['topic']);
  readonly busQueueDrops = this.registry.counter('relay_bus_queue_drops_total', 'Records given up because the publish queue was full (count or bytes), by topic.', ['topic']);
  readonly retentionEvictions = this.registry.counter(
    'relay_retention_evictions_total',
    'Entries given up by a memory bound before their time: structure (frames-log, interactions) and bound (workspace, process).',
    ['bound', 'structure'],
  );
  readonly retentionClamped = this.registry.counter('relay_retention_clamped_total', 'Interaction requests whose expiresAt lay beyond the retention cap (kept only until the cap).');
}
