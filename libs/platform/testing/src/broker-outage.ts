/**
 * A broker outage for Kafka tests: every connection a kafkajs client opens goes through a gate that a
 * test closes (`down()`) and opens again (`up()`), as if the cluster crashed and came back.
 *
 * Why a gate in the client and not a proxy in front of the cluster: librdkafka's mock cluster cannot be
 * stopped and restarted with its log kept, and its metadata names each broker's own 127.0.0.1 port, so
 * a proxy on the bootstrap address alone would be bypassed as soon as a client has read the metadata.
 * kafkajs opens every connection (bootstrap, partition leaders, group coordinator) through its
 * `socketFactory` option; the gate is such a factory. Give `gate.socketFactory` to the client under test
 * (the Kafka bus takes it as an option) and leave other clients (topic readers) ungated.
 *
 * What a client sees, as from a broker process that died and restarted on the same ports:
 * - `down()`: every open connection is reset (`ECONNRESET` on the socket, a request in flight is lost
 *   with its response), and each new connection is refused (`ECONNREFUSED`) for as long as it is down.
 * - `up()`: new connections reach the brokers again; nothing is reopened for the client.
 * - `refuseWrites()`: the cluster serves reads but takes no writes, as the client's producers see it: a
 *   connection that sends a Produce request is reset before the request reaches the broker (the send fails
 *   and is retried by kafkajs, until its retries run out), while every other request (metadata, fetches,
 *   group membership, offset commits, admin) goes through. `acceptWrites()` ends it. kafkajs gives each
 *   producer, consumer and admin client connections of its own, so a consumer of the same client keeps
 *   consuming meanwhile: this is how a test fails a bus's dead-letter writes, and only those.
 * The brokers themselves keep running, so their logs, committed offsets and group state survive the
 * "restart" (a real broker keeps its log on disk; a real group coordinator would also reload its groups,
 * and would have dropped members whose session expired meanwhile, which the mock does too). Not
 * modelled: a silent partition, where packets vanish without a reset and only timeouts tell.
 */
import { connect, Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';

import type { ISocketFactory } from 'kafkajs';

export interface BrokerGateStats {
  /** Connections that went through to a broker. */
  opened: number;
  /** Connections `down()` reset. */
  reset: number;
  /** Connections refused while the gate was down. */
  refused: number;
  /** Connections open now. */
  open: number;
  /** Connections reset because they sent a Produce request while writes were refused. */
  writesRefused: number;
}

export interface BrokerGate {
  /** The kafkajs `socketFactory` that opens every connection of the gated client. */
  readonly socketFactory: ISocketFactory;
  readonly isDown: boolean;
  readonly stats: Readonly<BrokerGateStats>;
  /** Resets every open connection and refuses new ones until `up()`; returns how many were reset. */
  down(): number;
  /** Lets new connections through again. */
  up(): void;
  readonly refusingWrites: boolean;
  /** Resets each connection that sends a Produce request, until `acceptWrites()`; other requests go through. */
  refuseWrites(): void;
  acceptWrites(): void;
}

/** Kafka's Produce request (api key 0). */
const PRODUCE_API_KEY = 0;

/** Whether `chunk` is a Produce request as kafkajs writes it: one frame per write, size (int32) then api key (int16). */
function isProduceRequest(chunk: unknown): boolean {
  return Buffer.isBuffer(chunk) && chunk.length >= 6 && chunk.readInt16BE(4) === PRODUCE_API_KEY;
}

/** A socket error as Node reports it for a failed system call, with its `code`. */
function socketError(code: 'ECONNRESET' | 'ECONNREFUSED', syscall: 'read' | 'connect', where?: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${syscall} ${code}${where ? ` ${where}` : ''}`);
  error.code = code;
  error.syscall = syscall;
  return error;
}

export function createBrokerGate(): BrokerGate {
  const live = new Set<Socket>();
  let isDown = false;
  let refusingWrites = false;
  const stats: BrokerGateStats = { opened: 0, reset: 0, refused: 0, open: 0, writesRefused: 0 };

  const socketFactory: ISocketFactory = ({ host, port, ssl, onConnect }) => {
    if (isDown) {
      stats.refused += 1;
      // kafkajs attaches its listeners after the factory returns: fail on the next tick, like a refused connect.
      const refused = new Socket();
      process.nextTick(() => refused.destroy(socketError('ECONNREFUSED', 'connect', `${host}:${port}`)));
      return refused;
    }
    const socket = ssl ? connectTls({ ...ssl, host, port }, onConnect) : connect({ host, port }, onConnect);
    stats.opened += 1;
    live.add(socket);
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
    socket.write = ((...args: unknown[]) => {
      if (!refusingWrites || !isProduceRequest(args[0])) return write(...args);
      // The request never reaches the broker; the client sees its connection reset.
      stats.writesRefused += 1;
      socket.destroy(socketError('ECONNRESET', 'read'));
      return false;
    }) as Socket['write'];
    stats.open = live.size;
    socket.once('close', () => {
      live.delete(socket);
      stats.open = live.size;
    });
    return socket;
  };

  return {
    socketFactory,
    get isDown() {
      return isDown;
    },
    get stats() {
      return { ...stats };
    },
    down() {
      isDown = true;
      const cut = [...live];
      live.clear();
      for (const socket of cut) socket.destroy(socketError('ECONNRESET', 'read'));
      stats.reset += cut.length;
      stats.open = 0;
      return cut.length;
    },
    up() {
      isDown = false;
    },
    get refusingWrites() {
      return refusingWrites;
    },
    refuseWrites() {
      refusingWrites = true;
    },
    acceptWrites() {
      refusingWrites = false;
    },
  };
}
