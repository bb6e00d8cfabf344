/**
 * Documents written for this library's specs (never copied from the shared reference material): one valid
 * document per kind, and `edit` to derive a broken one from it, so each spec states only the rule it breaks.
 */
import { validateDocument, type ValidateOptions, type ValidationResult } from './index';

type Json = Record<string, unknown>;

export function edit<T>(base: T, change: (copy: T) => void): T {
  const copy = structuredClone(base);
  change(copy);
  return copy;
}

export function check(document: unknown, options?: ValidateOptions): ValidationResult {
  return validateDocument(JSON.stringify(document), options);
}

/** The `code@path` of every error, for assertions that read like the report a user gets. */
export function errorsOf(document: unknown, options?: ValidateOptions): string[] {
  return check(document, options).errors.map((issue) => `${issue.code}@${issue.path}`);
}

export function warningsOf(document: unknown, options?: ValidateOptions): string[] {
  return check(document, options).warnings.map((issue) => `${issue.code}@${issue.path}`);
}

export const AI_CARD: Json = {
  $schema: 'https://schemas.trustmesh.example/ai-card/v1.json',
  specVersion: '1.0',
  id: 'did:web:orbit.example',
  identityType: 'did',
  name: 'Orbit Weather',
  description: 'Forecasts and severe-weather alerts for logistics planners.',
  logoUrl: 'data:image/png;base64,iVBORw0KGgo=',
  tags: ['weather', 'logistics'],
  maturity: 'preview',
  publisher: {
    id: 'did:web:orbit.example',
    identityType: 'did',
    name: 'Orbit Labs',
    attestation: { type: 'IdentityProof', credentialUrl: 'https://orbit.example/identity.jwt' },
  },
  trust: {
    attestations: [{ type: 'ISO27001', credentialValue: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' }],
    privacyPolicyUrl: 'https://orbit.example/privacy',
  },
  services: {
    a2a: {
      type: 'a2a',
      name: 'Forecast agent',
      protocolSpecific: {
        protocolVersion: '0.3.0',
        url: 'https://orbit.example/a2a',
        skills: [{ id: 'forecast', name: 'Seven-day forecast', description: 'Forecast for a route.', tags: ['forecast'] }],
      },
    },
    mcp: {
      type: 'mcp',
      name: 'Weather tools',
      protocolSpecific: {
        transport: { type: 'streamable-http', endpoint: 'https://orbit.example/mcp' },
        tools: [{ name: 'get_alerts', description: 'Active alerts for a region.' }],
      },
    },
  },
  createdAt: '2026-01-05T08:00:00Z',
  updatedAt: '2026-02-10T09:30:00+01:00',
  metadata: { region: 'eu-west' },
};

export const SEED_CATALOG: Json = {
  $schema: 'https://schemas.trustmesh.example/ai-catalog/v1.json',
  host: { name: 'Orbit Labs', id: 'did:web:orbit.example', documentationUrl: 'https://orbit.example/docs' },
  aiCards: [
    {
      id: 'did:web:orbit.example',
      name: 'Orbit Weather',
      description: 'Forecasts for logistics.',
      tags: ['weather'],
      cardUrl: 'https://orbit.example/.well-known/ai-card.json',
      updatedAt: '2026-02-10T08:30:00Z',
    },
  ],
};

const DIGEST = `sha-256:${'ab'.repeat(32)}`;

export const FINAL_CATALOG: Json = {
  specVersion: '1.0',
  host: { displayName: 'Orbit Labs', identifier: 'did:web:orbit.example' },
  entries: [
    {
      identifier: 'urn:air:orbit.example:agent:weather',
      type: 'application/a2a-agent-card+json',
      url: 'https://orbit.example/.well-known/agent-card.json',
      version: '2.1.0',
      digest: DIGEST,
      tags: ['weather'],
      updatedAt: '2026-03-01T12:00:00Z',
      publisher: { identifier: 'did:web:orbit.example', displayName: 'Orbit Labs' },
      extensions: { 'https://ai-catalog.org/extensions/policy-urls': { privacyPolicyUrl: 'https://orbit.example/privacy' } },
      trustManifests: [
        {
          contributor: 'did:web:orbit.example',
          subject: { identifier: 'urn:air:orbit.example:agent:weather', type: 'application/a2a-agent-card+json', version: '2.1.0', digest: DIGEST },
          signature: { signer: 'did:web:orbit.example', profile: 'did-web-v1', issuedAt: '2026-03-01T12:00:00Z', jws: 'eyJhbGciOiJFUzI1NiJ9..c2ln' },
        },
        { contributor: 'https://audits.example/', attestations: [{ type: 'SOC2-Type2', uri: 'https://audits.example/orbit.pdf', size: 1024 }] },
      ],
    },
    {
      identifier: 'urn:air:orbit.example:bundle:weather',
      type: 'application/ai-catalog+json',
      data: {
        specVersion: '1.0',
        entries: [{ identifier: 'urn:air:orbit.example:mcp:weather', type: 'application/mcp-server-card+json', url: 'https://orbit.example/mcp/server-card.json' }],
      },
    },
  ],
};

export const A2A_V03: Json = {
  name: 'Orbit Weather',
  description: 'Forecasts for logistics.',
  url: 'https://orbit.example/a2a',
  version: '2.1.0',
  protocolVersion: '0.3.0',
  preferredTransport: 'JSONRPC',
  provider: { organization: 'Orbit Labs', url: 'https://orbit.example' },
  capabilities: { streaming: true, pushNotifications: false },
  securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
  security: [{ bearer: [] }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['application/json'],
  skills: [{ id: 'forecast', name: 'Forecast', description: 'Seven-day forecast.', tags: ['weather', 'forecast'] }],
};

export const A2A_V10: Json = {
  name: 'Orbit Weather',
  description: 'Forecasts for logistics.',
  version: '3.0.0',
  supportedInterfaces: [{ url: 'https://orbit.example/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true, extendedAgentCard: false },
  securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'bearer' } } },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['application/json'],
  skills: [{ id: 'alerts', name: 'Alerts', description: 'Severe-weather alerts.', tags: ['alerts'] }],
};

export const MCP_SERVER: Json = {
  $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
  name: 'io.github.orbit/weather',
  title: 'Orbit Weather',
  description: 'Weather forecasts and alerts as MCP tools.',
  version: '1.4.2',
  repository: { url: 'https://github.com/orbit/weather-mcp', source: 'github' },
  icons: [{ src: 'https://orbit.example/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
  packages: [{ registryType: 'npm', identifier: '@orbit/weather-mcp', version: '1.4.2', transport: { type: 'stdio' } }],
  remotes: [{ type: 'streamable-http', url: 'https://orbit.example/mcp' }],
  _meta: { 'io.modelcontextprotocol.registry/publisher-provided': { tier: 'free' } },
};
