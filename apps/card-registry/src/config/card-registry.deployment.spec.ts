/**
 * The card registry's deployment files (docker/) against its configuration reader: every overlay's and the
 * compose file's environment loads without a problem, sets only variables the app reads, and the ports the
 * containers, Services and probes name are the ones it listens on (`describeServerAppDeployment`); in compose
 * it believes x-forwarded-for from the console alone, so its per-source limits count people.
 */
import { COMPOSE_TEST_VARIABLES, composeEnvironment, describeServerAppDeployment, PLACEHOLDER_DIGEST, renderCompose } from '@trustmesh/platform-testing';

import { cardRegistryVariables, loadCardRegistryConfig } from './card-registry.config';

describeServerAppDeployment({
  app: 'card-registry',
  load: loadCardRegistryConfig,
  variables: cardRegistryVariables,
  secrets: { DATABASE_URL: 'postgres://app:placeholder@db:5432/app', REGISTRY_OPERATOR_CREDENTIALS: `ops:${PLACEHOLDER_DIGEST}`, REGISTRY_SERVICE_CREDENTIALS: `console:${PLACEHOLDER_DIGEST}` },
});

describe('card-registry in the compose file', () => {
  const services = renderCompose(COMPOSE_TEST_VARIABLES).services;

  it('believes x-forwarded-for from the console\'s fixed address on the compose network and from nothing else', () => {
    const consoleAddress = (services['console']!['networks'] as { default: { ipv4_address: string } }).default.ipv4_address;
    const { trustedProxies } = loadCardRegistryConfig(composeEnvironment(services['card-registry']!)).limits;
    expect(trustedProxies.trusts(consoleAddress)).toBe(true);
    // The network's gateway (where published ports arrive from the host) and any other container are not proxies.
    const [a, b, c, d] = consoleAddress.split('.').map(Number);
    expect([`${a}.${b}.${c}.1`, `${a}.${b}.${c}.${d! + 1}`, '127.0.0.1'].filter((other) => trustedProxies.trusts(other))).toEqual([]);
  });
});
