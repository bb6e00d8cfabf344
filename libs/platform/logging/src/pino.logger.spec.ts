import { context, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';

import { withContext } from './logger.port';
import { createPinoLogger } from './pino.logger';
import { nestLogger } from './nest';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) };
}

describe('the pino logger', () => {
  it('writes one line shape: level name, ISO time, service, replica, context, fields and msg', () => {
    const sink = capture();
    const logger = createPinoLogger({ service: 'relay-gateway', replica: 'replica-a', write: sink.write, context: { component: 'platform-bus.kafka' } });
    logger.log('warn', 'kafka consumer: handler failed', { groupId: 'g', attempt: 2 });
    expect(sink.lines).toEqual([
      { level: 'warn', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), service: 'relay-gateway', replica: 'replica-a', component: 'platform-bus.kafka', groupId: 'g', attempt: 2, msg: 'kafka consumer: handler failed' },
    ]);
  });

  it('drops lines below its level, secret-named fields and undefined values; keeps its own keys', () => {
    const sink = capture();
    const logger = createPinoLogger({ service: 's', replica: 'r', level: 'info', write: sink.write });
    logger.log('debug', 'dropped');
    logger.log('info', 'kept', { deviceCredential: 'tmdc_x', ticket: 't', apiKey: 'k', authorization: 'Bearer x', errorCode: 'E', code: 'C', nothing: undefined, service: 'spoofed', msg: 'spoofed', traceId: 'spoofed' });
    expect(sink.lines).toEqual([{ level: 'info', time: expect.any(String), service: 's', replica: 'r', errorCode: 'E', code: 'C', msg: 'kept' }]);
  });

  it('writes every level of the port under its own name, and error lines from level warn up', () => {
    const sink = capture();
    const logger = createPinoLogger({ service: 's', replica: 'r', level: 'warn', write: sink.write });
    for (const level of ['debug', 'info', 'warn', 'error'] as const) logger.log(level, level);
    expect(sink.lines.map((line) => [line['level'], line['msg']])).toEqual([
      ['warn', 'warn'],
      ['error', 'error'],
    ]);
  });

  it('adds context to every line of a child logger, the line fields winning', () => {
    const sink = capture();
    const child = withContext(createPinoLogger({ service: 's', replica: 'r', write: sink.write }), { component: 'a', partition: 1 });
    child.log('error', 'm', { partition: 2 });
    expect(sink.lines[0]).toMatchObject({ component: 'a', partition: 2, level: 'error' });
  });

  describe('with a tracer running', () => {
    const manager = new AsyncLocalStorageContextManager();
    beforeAll(() => context.setGlobalContextManager(manager.enable()));
    afterAll(() => {
      manager.disable();
      context.disable();
    });

    it("carries the active span's trace id, and none outside a span", () => {
      const sink = capture();
      const logger = createPinoLogger({ service: 's', replica: 'r', write: sink.write });
      const spanContext = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED };
      context.with(trace.setSpanContext(context.active(), spanContext), () => logger.log('info', 'inside'));
      logger.log('info', 'outside');
      expect(sink.lines[0]).toMatchObject({ msg: 'inside', traceId: '4bf92f3577b34da6a3ce929d0e0e4736' });
      expect(sink.lines[1]).not.toHaveProperty('traceId');
    });
  });
});

describe("Nest's logger through nestjs-pino", () => {
  it('names the context, logs errors by class name without message or stack, verbose at debug', () => {
    const sink = capture();
    const nest = nestLogger(createPinoLogger({ service: 's', replica: 'r', level: 'debug', write: sink.write }));
    nest.log('Nest application successfully started', 'NestApplication');
    nest.error(new TypeError('peer text'), 'ExceptionsHandler');
    nest.error('peer text', 'Error: peer text\n    at stack', 'ExceptionsHandler');
    nest.verbose?.('detail', 'Detail');
    nest.warn('control call refused', { method: 'ListWorkspaces', credential: 'tmsc_x' });
    expect(sink.lines).toEqual([
      expect.objectContaining({ level: 'info', service: 's', msg: 'Nest application successfully started', context: 'NestApplication' }),
      expect.objectContaining({ level: 'error', msg: 'TypeError', context: 'ExceptionsHandler' }),
      expect.objectContaining({ level: 'error', msg: 'Error', context: 'ExceptionsHandler' }),
      expect.objectContaining({ level: 'debug', msg: 'detail', context: 'Detail' }),
      expect.objectContaining({ level: 'warn', msg: 'control call refused', method: 'ListWorkspaces' }),
    ]);
    expect(JSON.stringify(sink.lines)).not.toContain('peer text');
    expect(JSON.stringify(sink.lines)).not.toContain('tmsc_x');
  });

  it("keeps Nest's start and stop lines at info and writes its start-up inventory at debug only", () => {
    const sink = capture();
    const nest = nestLogger(createPinoLogger({ service: 's', replica: 'r', level: 'info', write: sink.write }));
    nest.log('Starting Nest application...', 'NestFactory');
    nest.log('AppModule dependencies initialized', 'InstanceLoader');
    nest.log('CardsController {/v1}:', 'RoutesResolver');
    nest.log('Mapped {/v1/cards, POST} route', 'RouterExplorer');
    nest.warn('Unsupported route path', 'RouterExplorer');
    nest.log('Nest application successfully started', 'NestApplication');
    expect(sink.lines.map((line) => [line['level'], line['msg']])).toEqual([
      ['info', 'Starting Nest application...'],
      ['warn', 'Unsupported route path'],
      ['info', 'Nest application successfully started'],
    ]);
  });

  it('writes each app to its own logger when two share a process', () => {
    const first = capture();
    const second = capture();
    const a = nestLogger(createPinoLogger({ service: 'a', replica: 'r', write: first.write }));
    const b = nestLogger(createPinoLogger({ service: 'b', replica: 'r', write: second.write }));
    a.log('from a', 'NestApplication');
    b.log('from b', 'NestApplication');
    expect(first.lines).toEqual([expect.objectContaining({ service: 'a', msg: 'from a' })]);
    expect(second.lines).toEqual([expect.objectContaining({ service: 'b', msg: 'from b' })]);
  });
});
