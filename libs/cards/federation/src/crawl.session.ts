/**
 * One crawl's shared machinery: the bounds of CARDS.md §5 crawling made concrete. Every fetch goes through `load`,
 * which (1) fetches a URL at most once per crawl, (2) counts it against `maxDocumentsPerCrawl`, (3) waits for one of
 * `concurrency` slots, (4) sends the conditional validators remembered for it, and (5) races the crawl deadline, so a
 * slow server costs its own documents only. Failures come back as values with a stable code; nothing here throws.
 */
import type { CrawlFetcher, CrawlFetchFailure, CrawlFetchResponse, CrawlLimits, CrawlProblem, CrawlProblemCode, DocumentState } from './crawl.types';

export type LoadResult = { readonly ok: true; readonly response: CrawlFetchResponse } | { readonly ok: false; readonly failure: CrawlFetchFailure };

export interface LoadOptions {
  /** Send the remembered validators (false for discovery pages, whose headers are needed every time). */
  readonly conditional: boolean;
  readonly accept?: string;
}

export class CrawlSession {
  readonly problems: CrawlProblem[] = [];
  private readonly loads = new Map<string, Promise<LoadResult>>();
  private readonly deadline = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private fetchCount = 0;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly fetcher: CrawlFetcher,
    readonly limits: CrawlLimits,
    private readonly previous: Readonly<Record<string, DocumentState>>,
  ) {
    this.timer = setTimeout(() => this.deadline.abort(), limits.deadlineMs);
    this.timer.unref();
  }

  get expired(): boolean {
    return this.deadline.signal.aborted;
  }

  /** Ends the crawl: the timer goes, and any fetch an adapter still runs is told to stop. */
  close(): void {
    clearTimeout(this.timer);
    this.deadline.abort();
  }

  problem(url: string, code: CrawlProblemCode, message: string, pointer = ''): void {
    this.problems.push({ url, code, pointer, message });
  }

  /** What the previous crawl remembered about a URL. */
  remembered(url: string): DocumentState | undefined {
    return Object.prototype.hasOwnProperty.call(this.previous, url) ? this.previous[url] : undefined;
  }

  /**
   * Fetches `url` once per crawl and per set of validators sent: an unconditional answer serves every later caller,
   * while a conditional one serves only callers holding the same validators (a 304 means nothing to the others).
   */
  load(url: string, options: LoadOptions, validators?: DocumentState): Promise<LoadResult> {
    const plain = this.loads.get(`u ${url}`);
    if (plain) return plain;
    const conditional = options.conditional && validators !== undefined && (validators.etag !== undefined || validators.lastModified !== undefined);
    const key = conditional ? `c ${validators?.etag ?? ''} ${validators?.lastModified ?? ''} ${url}` : `u ${url}`;
    const known = this.loads.get(key);
    if (known) return known;
    const started = this.fetchOnce(url, { ...options, conditional }, validators);
    this.loads.set(key, started);
    return started;
  }

  private async fetchOnce(url: string, options: LoadOptions, validators: DocumentState | undefined): Promise<LoadResult> {
    if (this.expired) return deadlineFailure(this.limits.deadlineMs);
    if (this.fetchCount >= this.limits.maxDocumentsPerCrawl) {
      return { ok: false, failure: { error: 'CRAWL_DOCUMENT_LIMIT', message: `the crawl already read ${this.limits.maxDocumentsPerCrawl} documents, its limit` } };
    }
    this.fetchCount++;
    await this.acquire();
    try {
      if (this.expired) return deadlineFailure(this.limits.deadlineMs);
      const signal = this.deadline.signal;
      const request = {
        maxBytes: this.limits.maxBytesPerDocument,
        signal,
        ...(options.accept !== undefined ? { accept: options.accept } : {}),
        ...(options.conditional && validators?.etag !== undefined ? { etag: validators.etag } : {}),
        ...(options.conditional && validators?.lastModified !== undefined ? { lastModified: validators.lastModified } : {}),
      };
      let onAbort = (): void => undefined;
      const aborted = new Promise<'deadline'>((resolve) => {
        onAbort = () => resolve('deadline');
        signal.addEventListener('abort', onAbort, { once: true });
      });
      try {
        const outcome = await Promise.race([this.fetcher.get(url, request).catch(() => ({ error: 'FETCH_NETWORK', message: 'the fetch failed' })), aborted]);
        // Whatever an adapter reports after the deadline fired is a consequence of it: name the cause.
        if (outcome === 'deadline' || this.expired) return deadlineFailure(this.limits.deadlineMs);
        return 'error' in outcome ? { ok: false, failure: outcome } : { ok: true, response: outcome };
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.active < this.limits.concurrency) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

function deadlineFailure(deadlineMs: number): LoadResult {
  return { ok: false, failure: { error: 'CRAWL_DEADLINE', message: `the crawl's deadline (${deadlineMs} ms) passed before this document was read` } };
}
