/**
 * A small Prometheus registry for the data plane (text exposition format 0.0.4): counters and gauges
 * with labels, nothing more. Label values are codes and frame types from fixed registries, never
 * identifiers or payload, so the series count stays bounded.
 */
type Labels = Readonly<Record<string, string>>;

interface Family {
  name: string;
  help: string;
  kind: 'counter' | 'gauge';
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

export class MetricsRegistry {
  private readonly families = new Map<string, Family>();

  private family(name: string, help: string, kind: Family['kind']): Family {
    let family = this.families.get(name);
    if (!family) {
      family = { name, help, kind, series: new Map() };
      this.families.set(name, family);
    }
    return family;
  }

  counter(name: string, help: string): (labels?: Labels, by?: number) => void {
    const family = this.family(name, help, 'counter');
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

  gauge(name: string, help: string): (labels: Labels, value: number) => void {
    const family = this.family(name, help, 'gauge');
    return (labels, value) => {
      family.series.set(seriesKey(labels), { labels, value });
    };
  }

  /** A gauge whose series are computed at scrape time. */
  collected(name: string, help: string, collect: NonNullable<Family['collect']>): void {
    this.family(name, help, 'gauge').collect = collect;
  }

  /** The value of one series (tests and health checks); 0 when never set. */
  value(name: string, labels: Labels = {}): number {
    const family = this.families.get(name);
    if (!family) return 0;
    if (family.collect) return family.collect().find((entry) => seriesKey(entry.labels) === seriesKey(labels))?.value ?? 0;
    return family.series.get(seriesKey(labels))?.value ?? 0;
  }

  render(): string {
    const lines: string[] = [];
    for (const family of this.families.values()) {
      lines.push(`# HELP ${family.name} ${family.help}`, `# TYPE ${family.name} ${family.kind}`);
      const entries = family.collect ? family.collect() : [...family.series.values()];
      for (const { labels, value } of entries) {
        const key = seriesKey(labels);
        lines.push(`${family.name}${key ? `{${key}}` : ''} ${Number.isFinite(value) ? value : 0}`);
      }
    }
    return `${lines.join('\n')}\n`;
  }
}

/** The data plane's metric families. */
export class DataPlaneMetrics {
  readonly registry = new MetricsRegistry();
  readonly connectionsOpened = this.registry.counter('relay_connections_opened_total', 'WebSocket connections accepted, by socket kind.');
  readonly frames = this.registry.counter('relay_frames_total', 'Frames handled, by type and direction (inbound from or outbound to a peer).');
  readonly rejections = this.registry.counter('relay_rejections_total', 'Refused upgrades, frames and sessions, by socket kind and stable code.');
  readonly replayed = this.registry.counter('relay_catchup_frames_total', 'Frames replayed from the frames log to reconnecting browsers.');
  readonly redelivered = this.registry.counter('relay_interactions_redelivered_total', 'Retained interaction requests redelivered after session.ready.');
  readonly gaps = this.registry.counter('relay_gaps_total', 'runtime.gap frames sent to browsers, by origin (companion or relay retention).');
  readonly sendBufferDrops = this.registry.counter('relay_send_buffer_drops_total', 'Sockets closed because their send buffer passed the high-water mark, by socket kind.');
  readonly busPublished = this.registry.counter('relay_bus_published_total', 'Frames-log and routing records published, by topic.');
  readonly busPublishFailures = this.registry.counter('relay_bus_publish_failures_total', 'Failed bus publications, by topic.');
  readonly busPublishLag = this.registry.gauge('relay_bus_publish_lag_ms', 'Age of the oldest frame awaiting publication when the last batch was sent, by topic.');
  readonly busQueueDrops = this.registry.counter('relay_bus_queue_drops_total', 'Records given up because the publish queue was full (count or bytes), by topic.');
  readonly retentionEvictions = this.registry.counter(
    'relay_retention_evictions_total',
    'Entries given up by a memory bound before their time: structure (frames-log, interactions) and bound (workspace, process).',
  );
  readonly retentionClamped = this.registry.counter('relay_retention_clamped_total', 'Interaction requests whose expiresAt lay beyond the retention cap (kept only until the cap).');

  render(): string {
    return this.registry.render();
  }
}
