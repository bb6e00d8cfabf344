/**
 * Puts each issue of a refused request (`issues[].path`, a JSON pointer into the body) at its form field:
 * a field owns its pointer and everything under it. Issues no field owns are listed above the form, so none
 * is ever dropped.
 */
import type { ApiError, ApiIssue } from '../api/api-client';

export class FieldIssues {
  private readonly claimed = new Set<ApiIssue>();

  constructor(
    private readonly issues: readonly ApiIssue[],
    /** The pointer the form's fields are relative to (e.g. `/card` when the body wraps the document). */
    private readonly base = '',
  ) {}

  static of(error: ApiError | null | undefined, base = ''): FieldIssues {
    return new FieldIssues(error?.issues ?? [], base);
  }

  /** The messages for the field at `pointer` (and below it), one line each; undefined when none. */
  at(pointer: string): string | undefined {
    const messages = this.owned(pointer).map((issue) => (issue.path.length > this.base.length + pointer.length ? `${issue.path.slice(this.base.length + pointer.length)}: ${issue.message}` : issue.message));
    return messages.length ? messages.join(' · ') : undefined;
  }

  /** Marks the issues of these pointers as shown (for fields rendered later in the tree). */
  claim(pointers: readonly string[]): this {
    for (const pointer of pointers) this.owned(pointer);
    return this;
  }

  unclaimed(): ApiIssue[] {
    return this.issues.filter((issue) => !this.claimed.has(issue));
  }

  private owned(pointer: string): ApiIssue[] {
    const full = `${this.base}${pointer}`;
    const found = this.issues.filter((issue) => issue.path === full || issue.path.startsWith(`${full}/`));
    for (const issue of found) this.claimed.add(issue);
    return found;
  }
}
