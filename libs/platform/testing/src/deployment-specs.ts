/**
 * What every server app's deployment files (docker/) must agree on with the app's own configuration reader,
 * as Jest specs one call declares: in every Kubernetes overlay the app's container environment (its Secrets
 * filled with placeholders) loads in server mode on Kafka with no problem and sets only variables the reader
 * reads; the app listens on all interfaces on the ports its container, Services and probes name (an app
 * without a gRPC listener, the console, has neither a gRPC port nor a `<app>-grpc` Service, and its liveness
 * probe asks the operator port's /healthz); compose
 * starts it the same way on the ports it publishes, and migrates it with nothing but a database URL through
 * the bundle's `migrate.js`. An app's own flows (who it calls, with which Secret) stay in its own spec.
 */
import { composeEnvironment, composeTargetPorts, containerEnvironment, KUBERNETES_OVERLAYS, manifestObject, renderCompose, renderKustomization } from './deployment-manifests';

/** A SHA-256 hex digest, where the deployment files take digests of credentials rather than credentials. */
export const PLACEHOLDER_DIGEST = 'ab'.repeat(32);

/** The variables compose refuses to start without (docker/.env), with placeholder values. */
export const COMPOSE_TEST_VARIABLES = {
  TRUSTMESH_POSTGRES_PASSWORD: 'placeholder',
  RELAY_SERVICE_CREDENTIAL_SHA256: PLACEHOLDER_DIGEST,
  SHIELD_OPERATOR_CREDENTIALS: `ops:${PLACEHOLDER_DIGEST}`,
  REGISTRY_OPERATOR_CREDENTIALS: `ops:${PLACEHOLDER_DIGEST}`,
  SIMULATOR_CONTROL_CREDENTIAL: 'placeholder-control-credential',
  SIMULATOR_SHIELD_CREDENTIAL: 'placeholder-shield-credential',
  SHIELD_SERVICE_CREDENTIALS: `console:${PLACEHOLDER_DIGEST}`,
  REGISTRY_SERVICE_CREDENTIALS: `console:${PLACEHOLDER_DIGEST}`,
  CONSOLE_RELAY_CONTROL_CREDENTIAL: 'placeholder-console-relay-credential',
  CONSOLE_SHIELD_CREDENTIAL: 'placeholder-console-shield-credential',
  CONSOLE_REGISTRY_CREDENTIAL: 'placeholder-console-registry-credential',
} as const;

interface Listener {
  host: string;
  port: number;
}

/** The part of a server app's configuration these checks read. */
export interface ServerAppConfigShape {
  embedded: boolean;
  platform: { bus: { adapter: string } };
  http: Listener;
  /** Absent for an app that serves no gRPC (the console). */
  grpc?: Listener;
  operator?: Listener | null;
}

export interface ServerAppDeployment {
  /** The app's name: its Deployment and container, Services `<app>` and `<app>-grpc` (with a gRPC listener), compose services `<app>` and `migrate-<app>`. */
  app: string;
  /** The app's configuration reader (throws its `ConfigError` on a problem). */
  load(env: Record<string, string>): ServerAppConfigShape;
  /** Every variable the reader looks up for `env`. */
  variables(env: Record<string, string>): readonly string[];
  /** Placeholder values for the Secrets the manifests reference. */
  secrets: Readonly<Record<string, string>>;
}

export function describeServerAppDeployment({ app, load, variables, secrets }: ServerAppDeployment): void {
  const unread = (env: Record<string, string>) => Object.keys(env).filter((name) => !variables(env).includes(name));

  describe.each(KUBERNETES_OVERLAYS)(`${app} in the %s overlay`, (overlay) => {
    const objects = renderKustomization(`overlays/${overlay}`);
    const deployment = manifestObject(objects, 'Deployment', app);
    const container = deployment['spec'].template.spec.containers[0];
    const env = containerEnvironment(objects, deployment, app, secrets);
    const portOf = (name: string) => container.ports.find((port: { name: string }) => port.name === name)?.containerPort;

    it('starts in server mode on Kafka with no configuration problem, setting only variables the app reads', () => {
      const config = load(env);
      expect(config.embedded).toBe(false);
      expect(config.platform.bus.adapter).toBe('kafka');
      expect(unread(env)).toEqual([]);
    });

    it('names the ports the app listens on, on all interfaces, in its container, Services and probes', () => {
      const config = load(env);
      expect([config.http.host, config.grpc?.host, config.operator?.host]).toEqual(['0.0.0.0', config.grpc ? '0.0.0.0' : undefined, '0.0.0.0']);
      expect([portOf('http'), portOf('grpc'), portOf('operator')]).toEqual([config.http.port, config.grpc?.port, config.operator?.port]);
      if (config.grpc) expect(container.livenessProbe.grpc.port).toBe(config.grpc.port);
      else expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'operator' });
      expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'operator' });
      expect(objects.some((object) => object.kind === 'Service' && object.metadata.name === `${app}-grpc`)).toBe(config.grpc !== undefined);
      const servicePorts = (config.grpc ? [app, `${app}-grpc`] : [app]).flatMap((name) => manifestObject(objects, 'Service', name)['spec'].ports);
      for (const port of servicePorts) expect(port.port).toBe(portOf(port.targetPort));
    });
  });

  describe(`${app} in the compose file`, () => {
    const services = renderCompose(COMPOSE_TEST_VARIABLES).services;
    const service = (name: string) => {
      const found = services[name];
      if (!found) throw new Error(`docker/compose.yaml has no service ${name}`);
      return found;
    };

    it('starts with no configuration problem, setting only variables the app reads, on the ports it publishes', () => {
      const env = composeEnvironment(service(app));
      const config = load(env);
      expect(unread(env)).toEqual([]);
      expect(composeTargetPorts(service(app))).toEqual([config.http.port, ...(config.grpc ? [config.grpc.port] : []), config.operator?.port]);
      expect(service(app).build?.args?.['HEALTHCHECK_URL']).toBe(`http://127.0.0.1:${config.operator?.port}/healthz`);
    });

    it('migrates through the bundle\'s migrate.js with only a database URL', () => {
      expect(Object.keys(composeEnvironment(service(`migrate-${app}`)))).toEqual(['DATABASE_URL']);
      expect(service(`migrate-${app}`).command).toEqual(['migrate.js']);
    });
  });
}
