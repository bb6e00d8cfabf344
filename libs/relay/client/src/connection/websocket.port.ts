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

/**
 * Handlers are declared bivariantly (the usual DOM-typings technique) so that both the DOM's `WebSocket`
 * and `ws`'s, whose handler parameters are richer event types, are assignable without casts.
 */
type Handler<E> = { bivarianceHack(event: E): void }['bivarianceHack'];

export interface WebSocketLike {
  readonly readyState: number;
  onopen: Handler<unknown> | null;
  onmessage: Handler<WebSocketMessageEventLike> | null;
  onclose: Handler<WebSocketCloseEventLike> | null;
  onerror: Handler<unknown> | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type WebSocketConstructorLike = new (url: string) => WebSocketLike;

/** `readyState` of an open socket (the same constant in browsers and `ws`). */
export const WEBSOCKET_OPEN = 1;
