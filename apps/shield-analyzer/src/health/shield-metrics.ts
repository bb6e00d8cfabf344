/**
 * The analyzer's own metric families on its prom-client registry (served on the operator port only, next to
 * the default process metrics and the backbone's lags): requests by route template and status, consultations
 * by generation mode. Labels are route templates, statuses and modes: never ids, never content.
 */
import { Counter, type Registry } from 'prom-client';

export class ShieldMetrics {
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly consultations: Counter<'mode'>;

  constructor(registry: Registry) {
    this.requests = new Counter({ name: 'shield_http_requests_total', help: 'REST requests answered.', labelNames: ['method', 'route', 'status'], registers: [registry] });
    this.consultations = new Counter({ name: 'shield_consultations_total', help: 'Consultations written, by generation mode.', labelNames: ['mode'], registers: [registry] });
  }

  request(method: string, route: string, status: number): void {
    this.requests.inc({ method, route, status: String(status) });
  }

  consultation(mode: string): void {
    this.consultations.inc({ mode });
  }
}
