/**
 * The WebSocket the client needs: the browser's global `WebSocket` and the `ws` package's `WebSocket`
 * both fit. The client never imports one; the caller passes a constructor or a factory.
 */
export interface WebSocketMessageEventLike {
  data: unknown;
}

export interface WebSocketCloseEventLike {
  code: number;
  reason?: string;
}

export interface WebSocketLike {
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: WebSocketMessageEventLike) => void) | null;
  onclose: ((event: WebSocketCloseEventLike) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type WebSocketConstructorLike = new (url: string) => WebSocketLike;

/** `readyState` of an open socket (the same constant in browsers and `ws`). */
export const WEBSOCKET_OPEN = 1;
