/**
 * The card registry's deployment files (docker/) against its configuration reader: every overlay's and the
 * compose file's environment loads without a problem, sets only variables the app reads, and the ports the
 * containers, Services and probes name are the ones it listens on (`describeServerAppDeployment`).
 */
import { describeServerAppDeployment, PLACEHOLDER_DIGEST } from '@trustmesh/platform-testing';

import { cardRegistryVariables, loadCardRegistryConfig } from './card-registry.config';

describeServerAppDeployment({
  app: 'card-registry',
  load: loadCardRegistryConfig,
  variables: cardRegistryVariables,
  secrets: { DATABASE_URL: 'postgres://app:placeholder@db:5432/app', REGISTRY_OPERATOR_CREDENTIALS: `ops:${PLACEHOLDER_DIGEST}`, REGISTRY_SERVICE_CREDENTIALS: `console:${PLACEHOLDER_DIGEST}` },
});
