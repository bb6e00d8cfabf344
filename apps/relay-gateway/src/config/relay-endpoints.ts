/**
 * Where this gateway is reached, known once the HTTP server is listening: the public base URL
 * (RELAY_PUBLIC_BASE_URL, else https://localhost:<bound port> in embedded development) and the URLs derived
 * from it. Browser session descriptors are built here and nowhere else, so every descriptor is a valid
 * `wss://` URL (§13: lowercase scheme, no whitespace).
 */
export class RelayEndpoints {
  private base: URL | undefined;

  /** Called by the bootstrap once the HTTP server listens. */
  resolve(publicBaseUrl: string): void {
    this.base = new URL(publicBaseUrl);
  }

  get publicBaseUrl(): string {
    return this.required().href.replace(/\/+$/, '');
  }

  /** `wss://<host>[:port][/prefix]/v1/browser?ticket=<ticket>` */
  browserConnectUrl(ticket: string): string {
    const url = new URL(`${this.publicBaseUrl}/v1/browser`);
    url.protocol = 'wss:';
    url.searchParams.set('ticket', ticket);
    return url.toString();
  }

  /** `wss://<host>[:port][/prefix]/v1/companion` */
  get companionUrl(): string {
    const url = new URL(`${this.publicBaseUrl}/v1/companion`);
    url.protocol = 'wss:';
    return url.toString();
  }

  /** `https://<host>[:port][/prefix]/v1/device-enrollments/redeem` */
  get redeemUrl(): string {
    return `${this.publicBaseUrl}/v1/device-enrollments/redeem`;
  }

  private required(): URL {
    if (!this.base) throw new Error('RelayEndpoints used before the HTTP server was listening');
    return this.base;
  }
}

/** DI token of the process's `RelayEndpoints`. */
export const RELAY_ENDPOINTS = Symbol.for('trustmesh.relay-gateway.Endpoints');
