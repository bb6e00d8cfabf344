import { createJsonLineLogger } from './json-line.logger';
import { withContext } from './logger.port';
import { nestLoggerAdapter } from './nest-logger.adapter';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) };
}

describe('the JSON-lines logger', () => {
  it('writes one line shape: time, level, service, replica, msg, context and fields', () => {
    const sink = capture();
    const logger = createJsonLineLogger({ service: 'relay-gateway', replica: 'replica-a', write: sink.write, context: { component: 'platform-bus.kafka' } });
    logger.log('warn', 'kafka consumer: handler failed', { groupId: 'g', attempt: 2 });
    expect(sink.lines).toEqual([
      { time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), level: 'warn', service: 'relay-gateway', replica: 'replica-a', msg: 'kafka consumer: handler failed', component: 'platform-bus.kafka', groupId: 'g', attempt: 2 },
    ]);
  });

  it('drops lines below its level, secret-named fields and undefined values; keeps its own keys', () => {
    const sink = capture();
    const logger = createJsonLineLogger({ service: 's', replica: 'r', level: 'info', write: sink.write });
    logger.log('debug', 'dropped');
    logger.log('info', 'kept', { deviceCredential: 'tmdc_x', ticket: 't', apiKey: 'k', errorCode: 'E', code: 'C', nothing: undefined, service: 'spoofed', msg: 'spoofed' });
    expect(sink.lines).toEqual([{ time: expect.any(String), level: 'info', service: 's', replica: 'r', msg: 'kept', errorCode: 'E', code: 'C' }]);
  });

  it('adds context to every line of a child logger, the line fields winning', () => {
    const sink = capture();
    const child = withContext(createJsonLineLogger({ service: 's', replica: 'r', write: sink.write }), { component: 'a', partition: 1 });
    child.log('error', 'm', { partition: 2 });
    expect(sink.lines[0]).toMatchObject({ component: 'a', partition: 2, level: 'error' });
  });

  it("serves as Nest's LoggerService: context as a field, errors by class name, no stacks", () => {
    const sink = capture();
    const nest = nestLoggerAdapter(createJsonLineLogger({ service: 's', replica: 'r', level: 'debug', write: sink.write }));
    nest.log('Mapped {/healthz, GET} route', 'RouterExplorer');
    nest.error(new TypeError('peer text'), 'Error: peer text\n    at stack', 'ExceptionsHandler');
    nest.verbose('detail', { workspaceId: 'w' });
    expect(sink.lines).toEqual([
      expect.objectContaining({ level: 'debug', msg: 'Mapped {/healthz, GET} route', context: 'RouterExplorer' }),
      expect.objectContaining({ level: 'error', msg: 'TypeError', context: 'ExceptionsHandler' }),
      expect.objectContaining({ level: 'debug', msg: 'detail', workspaceId: 'w' }),
    ]);
    expect(JSON.stringify(sink.lines)).not.toContain('peer text');
  });

  it("keeps Nest's start and stop lines at info and writes its start-up inventory (modules, controllers, routes) at debug only", () => {
    const sink = capture();
    const nest = nestLoggerAdapter(createJsonLineLogger({ service: 's', replica: 'r', level: 'info', write: sink.write }));
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
});
