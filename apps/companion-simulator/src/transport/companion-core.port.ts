/**
 * The seam between the WebSocket transport and the Companion's protocol core (`@trustmesh/relay-companion`).
 * The transport owns sockets, `device.connect`, reconnects and heartbeats; the core owns everything the
 * protocol says about frames. Each socket is one connection generation (§6): the core numbers it, sends
 * through it (replay gap first, then unacked frames, then live frames) and forgets it on disconnect.
 */

/** Writes one text frame on the generation's socket; rejects when the socket is gone (ending the generation). */
export type FrameSender = (frameText: string) => Promise<void>;

export interface CompanionCore {
  /**
   * A transport opened and `device.connect` was written: start a generation that sends through `send`.
   * `onEnded` hears when the core gives the generation up on its own (`send-backlog`: the relay stopped
   * reading), so the transport closes that socket.
   */
  connect(send: FrameSender, onEnded?: (end: { generation: number; reason: string }) => void): number;
  /** A text frame arrived on generation `generation`'s socket; the transport does not await the result. */
  receive(frameText: string, generation: number): unknown;
  /** Generation `generation`'s socket is gone; its sends and candidate attempts end. */
  disconnect(generation: number): void;
  /** The Companion stops for good (SIGTERM, restart). */
  shutdown(): Promise<void>;
}
