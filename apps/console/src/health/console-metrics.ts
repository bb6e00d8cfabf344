/**
 * The console's own metric families on its prom-client registry (served on the operator port only): API
 * requests by route template and status, and sign-ins by outcome. Labels are templates, statuses and
 * outcomes: never usernames, ids or content.
 */
import { Counter, type Registry } from 'prom-client';

export type SignInOutcome = 'signed_in' | 'failed' | 'rate_limited';

export class ConsoleMetrics {
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly signIns: Counter<'outcome'>;

  constructor(registry: Registry) {
    this.requests = new Counter({ name: 'console_http_requests_total', help: 'API requests answered.', labelNames: ['method', 'route', 'status'], registers: [registry] });
    this.signIns = new Counter({ name: 'console_sign_ins_total', help: 'Sign-in attempts, by outcome.', labelNames: ['outcome'], registers: [registry] });
  }

  request(method: string, route: string, status: number): void {
    this.requests.inc({ method, route, status: String(status) });
  }

  signIn(outcome: SignInOutcome): void {
    this.signIns.inc({ outcome });
  }
}
