/**
 * Gauges and counters whose series are read when `/metrics` is scraped, not pushed as things happen: lags and
 * backlogs that only a query answers (consumer lag, unpublished outbox rows, projection lag), sizes of
 * in-memory structures, and counters an app keeps in its own allocation-free form on a hot path.
 *
 * A reading that fails or takes longer than `timeoutMs` (a broker or database that is away) leaves the
 * family without series for that scrape: the scrape itself never fails or hangs on it, and an absent series
 * is what an alert on "no data" sees.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** How long one family's reading may take in a scrape. */
export const COLLECT_TIMEOUT_MS = 2_000;

/** One series of a collected family: bounded label values (names, codes, topics, partitions), never ids. */
export interface Sample {
  readonly labels?: Readonly<Record<string, string | number>>;
  readonly value: number;
}

export interface CollectedFamily {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly string[];
  readonly collect: () => readonly Sample[] | Promise<readonly Sample[]>;
  readonly timeoutMs?: number;
}

async function read(family: CollectedFamily): Promise<readonly Sample[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<readonly Sample[]>((resolve) => (timer = setTimeout(() => resolve([]), family.timeoutMs ?? COLLECT_TIMEOUT_MS)));
  try {
    return await Promise.race([Promise.resolve().then(family.collect), timeout]);
  } catch {
    return [];
  } finally {
    clearTimeout(timer);
  }
}

/** Replaces a metric's series with `samples`, each written by `write` (a gauge's set, a counter's inc). */
function replaceSamples(metric: Gauge | Counter, samples: readonly Sample[], write: (labels: NonNullable<Sample['labels']>, value: number) => void): void {
  metric.reset();
  // A family without labels resets to one series at 0: gone instead when nothing was read.
  if (samples.length === 0) metric.remove({});
  for (const sample of samples) write(sample.labels ?? {}, sample.value);
}

export function collectedGauge(registry: Registry, family: CollectedFamily): Gauge {
  return new Gauge({
    name: family.name,
    help: family.help,
    labelNames: family.labelNames ?? [],
    registers: [registry],
    async collect() {
      replaceSamples(this, await read(family), (labels, value) => this.set(labels, value));
    },
  });
}

/** A counter whose totals the app keeps itself (e.g. per label path, allocation-free) and reports when scraped. */
export function collectedCounter(registry: Registry, family: CollectedFamily): Counter {
  return new Counter({
    name: family.name,
    help: family.help,
    labelNames: family.labelNames ?? [],
    registers: [registry],
    async collect() {
      replaceSamples(this, await read(family), (labels, value) => this.inc(labels, value));
    },
  });
}
