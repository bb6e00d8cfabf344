import type { LogFields, Logger, LogLevel } from '@trustmesh/platform-logging';

import { CleanupStack } from './cleanup-stack';

function recordingLogger(): Logger & { lines: Array<{ level: LogLevel; message: string; fields?: LogFields }> } {
  const lines: Array<{ level: LogLevel; message: string; fields?: LogFields }> = [];
  return { lines, log: (level, message, fields) => lines.push({ level, message, ...(fields ? { fields } : {}) }) };
}

describe('CleanupStack', () => {
  it('closes the newest part first', async () => {
    const closed: string[] = [];
    const stack = new CleanupStack(recordingLogger());
    for (const part of ['database', 'bus', 'store', 'publisher']) stack.push(async () => closed.push(part));
    await stack.close();
    expect(closed).toEqual(['publisher', 'store', 'bus', 'database']);
  });

  it('keeps closing after a step fails, and logs the error name without its message', async () => {
    const logger = recordingLogger();
    const closed: string[] = [];
    const stack = new CleanupStack(logger);
    stack.push(async () => closed.push('database'));
    stack.push(async () => {
      throw new TypeError('connect to postgres://admin:secret@db failed');
    });
    stack.push(async () => closed.push('publisher'));
    await expect(stack.close()).resolves.toBeUndefined();
    expect(closed).toEqual(['publisher', 'database']);
    expect(logger.lines).toEqual([{ level: 'warn', message: 'shutdown step failed', fields: { errorName: 'TypeError' } }]);
    expect(JSON.stringify(logger.lines)).not.toContain('secret');
  });

  it('runs each step once however often it is closed', async () => {
    let closes = 0;
    const stack = new CleanupStack(recordingLogger());
    stack.push(async () => closes++);
    await Promise.all([stack.close(), stack.close()]);
    await stack.close();
    expect(closes).toBe(1);
  });
});
