/**
 * What every console service method answers (apps/console/API.md): a value with its HTTP status, or an error
 * with a stable `CONSOLE_*` code, a message a person can act on and, for invalid input, each issue at its JSON
 * pointer. Services are framework-free; the HTTP edge turns a result into the answer.
 */
export interface ConsoleIssue {
  code: string;
  path: string;
  message: string;
}

export interface ConsoleError {
  code: string;
  message: string;
  issues?: ConsoleIssue[];
  /** The upstream app's own code (a Shield or registry refusal), when one decided. */
  upstreamCode?: string;
}

export type ConsoleResult<T> = { ok: true; status: number; value: T } | { ok: false; status: number; error: ConsoleError };

/** The signed-in person, as the HTTP edge hands it to a service: never taken from the request body. */
export interface ConsoleAccount {
  accountId: string;
  username: string;
}

export const answered = <T>(value: T, status = 200): ConsoleResult<T> => ({ ok: true, status, value });

export const refused = <T>(status: number, code: string, message: string, extra: Omit<ConsoleError, 'code' | 'message'> = {}): ConsoleResult<T> => ({
  ok: false,
  status,
  error: { code, message, ...extra },
});

/** A page of a list (`?limit=`, `?cursor=`). */
export interface ConsolePage<T> {
  items: T[];
  nextCursor: string | null;
}
