import { loadPlatformConfig } from './platform-config';
import { variablesRead } from './variables-read';

describe('variablesRead', () => {
  it('names the variables the platform reader looks at, including those it refuses', () => {
    const read = variablesRead(loadPlatformConfig, { TRUSTMESH_BUS: 'kafka' });
    expect(read).toEqual(expect.arrayContaining(['TRUSTMESH_BUS', 'KAFKA_BROKERS', 'DATABASE_URL', 'TRUSTMESH_TOPIC_PREFIX']));
    expect(read).not.toContain('RELAY_HTTP_PORT');
  });

  it('lets any other error of the reader through', () => {
    expect(() =>
      variablesRead(() => {
        throw new TypeError('broken reader');
      }),
    ).toThrow('broken reader');
  });
});
