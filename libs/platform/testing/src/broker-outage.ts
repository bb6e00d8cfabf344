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
  const stats: BrokerGateStats = { opened: 0, reset: 0, refused: 0, open: 0 };

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
  };
}
