/**
 * @trustmesh/platform-logging/nest: NestJS's logger and HTTP request lines through nestjs-pino, over the
 * app's pino logger. A separate entry point so the libraries that only log (the bus, the event store) never
 * load Nest.
 */
export { httpLogModule, nestLogger, type HttpLogOptions } from './nest-pino.logger';
