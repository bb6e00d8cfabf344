/**
 * Reads the samples of chosen metric families from Prometheus text exposition (version 0.0.4, what prom-client
 * serves on every app's `/metrics`): `name{label="value",...} value [timestamp]` lines, `#` lines skipped.
 * Only the families asked for are kept, and at most `maxSamples` of them, so a hostile or broken exporter costs a
 * bounded amount whatever it sends. A line that does not parse is skipped, never thrown on.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

export function parseSamples(text: string, families: ReadonlySet<string>, maxSamples = 10_000): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (samples.length >= maxSamples) break;
    if (line === '' || line.startsWith('#')) continue;
    const name = NAME.exec(line)?.[0];
    if (name === undefined || !families.has(name)) continue;
    const parsed = parseRest(line.slice(name.length));
    if (parsed) samples.push({ name, ...parsed });
  }
  return samples;
}

/** `{labels} value [timestamp]` after the name; null when malformed. */
function parseRest(rest: string): { labels: Record<string, string>; value: number } | null {
  const labels: Record<string, string> = {};
  let at = 0;
  if (rest[at] === '{') {
    at += 1;
    for (;;) {
      if (rest[at] === '}') {
        at += 1;
        break;
      }
      const label = LABEL_NAME.exec(rest.slice(at))?.[0];
      if (label === undefined || rest[at + label.length] !== '=' || rest[at + label.length + 1] !== '"') return null;
      at += label.length + 2;
      let value = '';
      for (;;) {
        const char = rest[at];
        if (char === undefined) return null;
        at += 1;
        if (char === '"') break;
        if (char === '\\') {
          const escaped = rest[at];
          at += 1;
          value += escaped === 'n' ? '\n' : (escaped ?? '');
        } else value += char;
      }
      labels[label] = value;
      if (rest[at] === ',') at += 1;
    }
  }
  const fields = rest.slice(at).trim().split(/\s+/);
  const raw = fields[0];
  if (raw === undefined || raw === '') return null;
  const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
  return Number.isNaN(value) && raw !== 'NaN' ? null : { labels, value };
}

/** The sum of a family's samples whose labels include `where`; null when the family has none. */
export function sumOf(samples: readonly Sample[], name: string, where: Readonly<Record<string, string>> = {}): number | null {
  let total: number | null = null;
  for (const sample of samples) {
    if (sample.name !== name || !Object.entries(where).every(([key, value]) => sample.labels[key] === value)) continue;
    total = (total ?? 0) + sample.value;
  }
  return total;
}
