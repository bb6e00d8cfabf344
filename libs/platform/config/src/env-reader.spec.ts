import { envReader, isHost } from './env-reader';
import type { ConfigProblem } from './platform-config';

describe('envReader', () => {
  const read = (env: Record<string, string>) => {
    const problems: ConfigProblem[] = [];
    return { reader: envReader(env, problems), problems };
  };

  it('reads one of a list in any case, answering in the list spelling, and names the choices when wrong', () => {
    const { reader, problems } = read({ LOG_LEVEL: ' WARN ', OTHER: 'loud' });
    expect(reader.oneOf('LOG_LEVEL', ['debug', 'info', 'warn'], 'info')).toBe('warn');
    expect(reader.oneOf('UNSET', ['debug', 'info'], 'info')).toBe('info');
    expect(reader.oneOf('OTHER', ['debug', 'info'], 'info')).toBe('info');
    expect(problems).toEqual([{ variable: 'OTHER', message: 'must be one of debug, info' }]);
  });

  it('reads host names and IP addresses, refusing anything else', () => {
    const { reader, problems } = read({ A: 'gateway.internal', B: '::1', C: '[2001:db8::1]', D: 'http://x' });
    expect([reader.host('A', 'x'), reader.host('B', 'x'), reader.host('C', 'x'), reader.host('UNSET', '0.0.0.0')]).toEqual(['gateway.internal', '::1', '[2001:db8::1]', '0.0.0.0']);
    reader.host('D', '127.0.0.1');
    expect(problems.map((problem) => problem.variable)).toEqual(['D']);
    expect(isHost('a b')).toBe(false);
  });

  it('names the replica after the variable, or the generated name, refusing names logs cannot carry', () => {
    const { reader, problems } = read({ REPLICA: 'shield-a', BAD: 'has space' });
    expect(reader.replicaId('REPLICA', 'shield-1-x')).toBe('shield-a');
    expect(reader.replicaId('UNSET', 'relay-42-abc')).toBe('relay-42-abc');
    reader.replicaId('BAD', 'relay-42-abc');
    expect(problems).toEqual([{ variable: 'BAD', message: 'must be 1–64 letters, digits, dots, dashes or underscores' }]);
  });
});
