/**
 * The operator's list of federation sources (stream `registry-federation-sources`, CARDS.md §5 "Federation and
 * crawling"). Pure: `decideAdd` / `decideRemove` return events or a refusal, `evolveSourceList` folds one. Adding a
 * URL that is already a source answers that source (idempotent); the list is bounded so the stream stays small.
 */
import type { Refusal } from '../domain/registry-namespace.aggregate';
import type { SourceListEvent } from './federation.stream';

export const MAX_SOURCES = 1000;

export interface SourceEntry {
  sourceId: string;
  url: string;
  intervalSeconds: number;
  addedBy: string;
  addedAt: string;
}

export interface SourceListState {
  sources: Map<string, SourceEntry>;
}

export const emptySourceList = (): SourceListState => ({ sources: new Map() });

export type SourceListDecision = { ok: true; events: SourceListEvent[]; source: SourceEntry } | { ok: false; refusal: Refusal };

export function decideAdd(state: SourceListState, command: { sourceId: string; url: string; intervalSeconds: number; by: string; now: string }): SourceListDecision {
  const existing = [...state.sources.values()].find((source) => source.url === command.url);
  if (existing) return { ok: true, events: [], source: existing };
  if (state.sources.size >= MAX_SOURCES) return { ok: false, refusal: { kind: 'conflict', code: 'SOURCES_LIMIT', message: `At most ${MAX_SOURCES} sources can be crawled; remove one first`, path: '/url' } };
  const source: SourceEntry = { sourceId: command.sourceId, url: command.url, intervalSeconds: command.intervalSeconds, addedBy: command.by, addedAt: command.now };
  return { ok: true, events: [{ type: 'SourceAdded', data: source }], source };
}

export function decideRemove(state: SourceListState, command: { sourceId: string; by: string; now: string }): SourceListDecision {
  const source = state.sources.get(command.sourceId);
  if (!source) return { ok: false, refusal: { kind: 'not_found', code: 'SOURCE_NOT_FOUND', message: 'No source has this id', path: '/sourceId' } };
  return { ok: true, events: [{ type: 'SourceRemoved', data: { sourceId: source.sourceId, url: source.url, removedBy: command.by, removedAt: command.now } }], source };
}

/** Folds one event into the state, in place; returns it. */
export function evolveSourceList(state: SourceListState, event: SourceListEvent): SourceListState {
  if (event.type === 'SourceAdded') state.sources.set(event.data.sourceId, { ...event.data });
  else state.sources.delete(event.data.sourceId);
  return state;
}
