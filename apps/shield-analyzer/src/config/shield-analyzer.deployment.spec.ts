/**
 * The shield analyzer's deployment files (docker/) against its configuration reader: every overlay's and the
 * compose file's environment loads without a problem, sets only variables the app reads, and the ports the
 * containers, Services and probes name are the ones it listens on (`describeServerAppDeployment`).
 */
import { describeServerAppDeployment, PLACEHOLDER_DIGEST } from '@trustmesh/platform-testing';

import { loadShieldAnalyzerConfig, shieldAnalyzerVariables } from './shield-analyzer.config';

describeServerAppDeployment({
  app: 'shield-analyzer',
  load: loadShieldAnalyzerConfig,
  variables: shieldAnalyzerVariables,
  secrets: { SHIELD_MODEL_API_KEY: 'placeholder-model-key', DATABASE_URL: 'postgres://app:placeholder@db:5432/app', SHIELD_OPERATOR_CREDENTIALS: `ops:${PLACEHOLDER_DIGEST}`, SHIELD_SERVICE_CREDENTIALS: `console:${PLACEHOLDER_DIGEST}` },
});
