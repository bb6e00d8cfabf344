/**
 * What the core reports for logs and metrics. Codes, method names and numbers only: never frame
 * content, Runtime data or error text, so a host can log every diagnostic as it is.
 */
export type CompanionDiagnosticEvent =
  /** An inbound frame was dropped (invalid, stale generation, unusable envelope); `code` says why. */
  | 'inbound-dropped'
  /** A Runtime event could not be projected or sent (`code`: issue code or FRAME_TOO_LARGE). */
  | 'event-dropped'
  /** A Runtime server request was refused and never published. */
  | 'interaction-refused'
  /** A result failed projection or its result schema; the browser got COMPANION_ERROR. */
  | 'projection-failed'
  /** A connection generation ended (`code`: superseded, disconnected, send-failed, send-backlog, encode-failed, shutdown). */
  | 'generation-ended'
  /** A Runtime call made by the broker (resolve/cancel) failed. */
  | 'runtime-call-failed';

export interface CompanionDiagnostic {
  event: CompanionDiagnosticEvent;
  code?: string;
  method?: string;
  generation?: number;
}

export type DiagnosticSink = (diagnostic: CompanionDiagnostic) => void;
