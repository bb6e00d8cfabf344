/**
 * The analyzer's Prometheus counters (text format 0.0.4), served on the operator port only: requests by
 * route template and status, consultations by generation mode. Labels are route templates, statuses and
 * modes: never ids, never content.
 */
export class ShieldMetrics {
  private readonly requests = new Map<string, number>();
  private readonly consultations = new Map<string, number>();

  request(method: string, route: string, status: number): void {
    const key = `method="${method}",route="${route}",status="${status}"`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
  }

  consultation(mode: string): void {
    const key = `mode="${mode}"`;
    this.consultations.set(key, (this.consultations.get(key) ?? 0) + 1);
  }

  text(): string {
    const lines = ['# HELP shield_http_requests_total REST requests answered.', '# TYPE shield_http_requests_total counter'];
    for (const [labels, value] of this.requests) lines.push(`shield_http_requests_total{${labels}} ${value}`);
    lines.push('# HELP shield_consultations_total Consultations written, by generation mode.', '# TYPE shield_consultations_total counter');
    for (const [labels, value] of this.consultations) lines.push(`shield_consultations_total{${labels}} ${value}`);
    return `${lines.join('\n')}\n`;
  }
}
