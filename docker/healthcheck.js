// The container healthcheck: exits 0 when TRUSTMESH_HEALTHCHECK_URL answers, 1 otherwise, within 2 s.
// http://host:port/path must answer 200 (the operator port's /healthz); tcp://host:port must accept a
// connection (the simulator, whose only listener is gRPC). Plain Node: the runtime image has no curl.
'use strict';
const http = require('node:http');
const net = require('node:net');

const done = (healthy) => process.exit(healthy ? 0 : 1);
if (!process.env.TRUSTMESH_HEALTHCHECK_URL) done(false); // built without --build-arg HEALTHCHECK_URL
const target = new URL(process.env.TRUSTMESH_HEALTHCHECK_URL);
setTimeout(() => done(false), 2000).unref();

if (target.protocol === 'tcp:') {
  const socket = net.connect(Number(target.port), target.hostname, () => done(true));
  socket.on('error', () => done(false));
} else {
  http.get(target, (response) => done(response.statusCode === 200)).on('error', () => done(false));
}
