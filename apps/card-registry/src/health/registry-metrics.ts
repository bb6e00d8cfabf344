/**
 * The registry's Prometheus counters (text format 0.0.4), served on the operator port only: requests by
 * route template and status. Labels are route templates and statuses: never identifiers or content.
 */
export class RegistryMetrics {
  private readonly requests = new Map<string, number>();

  request(method: string, route: string, status: number): void {
    const key = `method="${method}",route="${route}",status="${status}"`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
  }

  text(): string {
    const lines = ['# HELP registry_http_requests_total HTTP requests answered.', '# TYPE registry_http_requests_total counter'];
    for (const [labels, value] of this.requests) lines.push(`registry_http_requests_total{${labels}} ${value}`);
    return `${lines.join('\n')}\n`;
  }
}
