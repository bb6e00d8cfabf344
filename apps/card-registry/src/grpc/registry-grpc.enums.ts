/**
 * The proto's `CardKind` and `CardStatus` against the registry's kind and status names, one place for
 * both gRPC services (a name the proto has no value for answers UNSPECIFIED).
 */
import { cardRegistryV1GrpcJs as v1 } from '@trustmesh/contracts';

import type { CardStatus as Status } from '@trustmesh/cards-registry-events';

const KINDS: ReadonlyArray<[v1.CardKind, string]> = [
  [v1.CardKind.AI_CARD, 'ai-card'],
  [v1.CardKind.AI_CATALOG, 'ai-catalog'],
  [v1.CardKind.A2A, 'a2a'],
  [v1.CardKind.MCP_SERVER, 'mcp-server'],
  // An MCP Server Card (§4.2) reads as an MCP server; asked by the proto value, 'mcp-server' (first) answers.
  [v1.CardKind.MCP_SERVER, 'mcp-server-card'],
];
const STATUSES: ReadonlyArray<[v1.CardStatus, Status]> = [
  [v1.CardStatus.ACTIVE, 'active'],
  [v1.CardStatus.DEPRECATED, 'deprecated'],
  [v1.CardStatus.YANKED, 'yanked'],
  [v1.CardStatus.DELETED, 'deleted'],
];
export const kindToProto = (kind: string): v1.CardKind => KINDS.find(([, name]) => name === kind)?.[0] ?? v1.CardKind.UNSPECIFIED;
export const kindFromProto = (kind: v1.CardKind): string | undefined => KINDS.find(([value]) => value === kind)?.[1];
export const statusToProto = (status: string): v1.CardStatus => STATUSES.find(([, name]) => name === status)?.[0] ?? v1.CardStatus.UNSPECIFIED;
export const statusFromProto = (status: v1.CardStatus): Status | undefined => STATUSES.find(([value]) => value === status)?.[1];
