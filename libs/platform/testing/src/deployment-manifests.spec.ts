import { composeTargetPorts, containerEnvironment, manifestObject, type ManifestObject } from './deployment-manifests';

const configMap: ManifestObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app' }, data: { PORT: '8080', MODE: 'server' } };
const deployment = (env: unknown[]): ManifestObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'app' },
  spec: { template: { spec: { initContainers: [{ name: 'init', env: [{ name: 'ONLY_INIT', value: 'yes' }] }], containers: [{ name: 'app', envFrom: [{ configMapRef: { name: 'app' } }], env }] } } },
});

describe('containerEnvironment', () => {
  it('starts from the ConfigMaps, then applies literals, field and key references, and Secret placeholders', () => {
    const workload = deployment([
      { name: 'MODE', value: 'override' },
      { name: 'REPLICA', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'COPY', valueFrom: { configMapKeyRef: { name: 'app', key: 'PORT' } } },
      { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'app', key: 'database-url' } } },
      { name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'app', key: 'api-key', optional: true } } },
    ]);
    expect(containerEnvironment([configMap, workload], workload, 'app', { DATABASE_URL: 'postgres://placeholder' })).toEqual({
      PORT: '8080',
      MODE: 'override',
      REPLICA: 'app-pod',
      COPY: '8080',
      DATABASE_URL: 'postgres://placeholder',
    });
    expect(containerEnvironment([configMap, workload], workload, 'init', {})).toEqual({ ONLY_INIT: 'yes' });
  });

  it('refuses a required Secret without a placeholder, and names what is missing', () => {
    const workload = deployment([{ name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'app', key: 'database-url' } } }]);
    expect(() => containerEnvironment([configMap, workload], workload, 'app', {})).toThrow('no placeholder for the Secret behind DATABASE_URL');
    expect(() => containerEnvironment([configMap, workload], workload, 'sidecar', {})).toThrow('has no container sidecar');
    expect(() => manifestObject([configMap], 'ConfigMap', 'other')).toThrow('no ConfigMap other');
  });
});

describe('composeTargetPorts', () => {
  it('reads the container port of the short and the long form', () => {
    expect(composeTargetPorts({ ports: ['127.0.0.1:9464:9464/tcp', '8443:8443', { target: 50051, published: 50051 }] })).toEqual([9464, 8443, 50051]);
  });
});
