/**
 * A scripted Companion that keeps its replay buffer the way §6 asks: every sequenced frame it sent stays
 * buffered until a `runtime.ack` covers it, and after every (re)connect it re-sends what is still buffered,
 * in order, before anything new. With it a test can kill the gateway and check what a real Companion would
 * have been able to restore.
 */
import { frames } from './frames';
import { companion, type Frame, type TestPeer } from './peers';

export class ReplayingCompanion {
  private socket: TestPeer | undefined;
  private readonly buffer = new Map<number, unknown>();
  /** The highest ACK received (−1: none). */
  acknowledged = -1;
  /** Every ACK cursor received, in order, over every connection. */
  readonly acks: number[] = [];
  private next = 0;

  constructor(
    private readonly device: { workspaceId: string; deviceId: string; credential: string },
    private readonly marker: (sequence: number) => string | undefined = () => undefined,
  ) {}

  get peer(): TestPeer | undefined {
    return this.socket;
  }

  /** The next sequence it would send. */
  get head(): number {
    return this.next - 1;
  }

  /** Connects (`device.connect`) and re-sends everything not yet acknowledged. */
  async connect(wsUrl: string): Promise<void> {
    const peer = await companion(wsUrl, frames.deviceConnect(this.device.deviceId, this.device.credential));
    this.socket = peer;
    peer.ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Frame;
      if (frame.type !== 'runtime.ack') return;
      const through = frame['throughRelaySequence'] as number;
      this.acks.push(through);
      if (through <= this.acknowledged) return;
      this.acknowledged = through;
      for (const sequence of [...this.buffer.keys()]) if (sequence <= through) this.buffer.delete(sequence);
    });
    for (const [, frame] of [...this.buffer.entries()].sort(([a], [b]) => a - b)) peer.send(frame);
  }

  /** Sends the next `count` events (buffered until acknowledged). */
  send(count = 1): void {
    for (let index = 0; index < count; index += 1) {
      const frame = frames.event(this.device.workspaceId, this.next, this.marker(this.next));
      this.buffer.set(this.next, frame);
      this.next += 1;
      if (this.socket?.ws.readyState === this.socket?.ws.OPEN) this.socket?.send(frame);
    }
  }

  close(): void {
    this.socket?.close();
  }
}
