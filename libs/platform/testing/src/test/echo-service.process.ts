/**
 * The smallest service for `service-child.spec.ts`: with ECHO_FAIL set it fails before it is ready;
 * otherwise it serves a broker gate over IPC, writes each gate state it reaches to stderr, announces
 * itself ready with ECHO_NAME, and on SIGTERM says so and exits 0.
 */
import { createBrokerGate } from '../broker-outage';
import { announceReady, serveBrokerGateOverIpc } from '../service-child';

if (process.env['ECHO_FAIL']) {
  process.stderr.write(`cannot start: ${process.env['ECHO_FAIL']}\n`);
  process.exit(3);
}
const gate = createBrokerGate();
serveBrokerGateOverIpc(gate);
process.on('message', () => setImmediate(() => process.stderr.write(`gate ${gate.isDown ? 'down' : 'up'}\n`)));
process.once('SIGTERM', () => {
  process.stderr.write('stopping\n');
  process.exit(0);
});
// A service is kept alive by its listeners; this timer stands in for them.
setInterval(() => undefined, 60_000);
announceReady({ name: process.env['ECHO_NAME'] ?? '' });
