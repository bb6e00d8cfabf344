/**
 * One app of this repository run as a child process of the command line (an app never imports another):
 * `node --import tsx <entry point>`, stdout and stderr appended to a log file, stdout's first lines kept for
 * the launcher to read (the app's "listening" line), each stderr line handed to the launcher to show or keep.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

export const ROOT = join(__dirname, '..', '..', '..');
const STOP_GRACE_MS = 30_000;
const KEPT_LINES = 200;

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildAppOptions {
  /** The app's name in messages (`relay-gateway`). */
  name: string;
  /** Arguments to this Node (`['--import', 'tsx', entryPoint, ...]`). */
  args: string[];
  env: Record<string, string | undefined>;
  /** Where stdout and stderr go, appended, 0600. */
  logFile: string;
  /** Each complete stderr line. */
  onStderrLine: (line: string) => void;
}

export class ChildApp {
  readonly name: string;
  readonly process: ChildProcess;
  readonly lines: string[] = [];
  readonly exited: Promise<ChildExit>;
  exit: ChildExit | null = null;
  private readonly log: WriteStream;

  constructor(options: ChildAppOptions) {
    this.name = options.name;
    this.log = createWriteStream(options.logFile, { flags: 'a', mode: 0o600 });
    this.process = spawn(process.execPath, options.args, { cwd: ROOT, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    // A log file that cannot be written (disk full, removed directory) must not crash the launcher.
    this.log.on('error', () => undefined);
    this.exited = new Promise((resolveExit) => {
      this.process.once('exit', (code, signal) => {
        this.exit ??= { code, signal };
        resolveExit(this.exit);
      });
      // A spawn failure (no such executable) emits no 'exit': report it as one, so stop() never waits forever.
      this.process.once('error', () => {
        if (this.exit) return;
        this.exit = { code: 127, signal: null };
        resolveExit(this.exit);
      });
    });
    // The raw output goes to the log file; each complete line is handed on.
    const eachLine = (stream: Readable | null, onLine: (line: string) => void) => {
      let pending = '';
      stream?.on('data', (chunk: Buffer) => {
        this.log.write(chunk);
        pending += chunk.toString('utf8');
        const parts = pending.split('\n');
        pending = parts.pop() ?? '';
        for (const line of parts) onLine(line);
      });
    };
    // Keep only what the launcher reads: the start-up lines, not the whole log.
    eachLine(this.process.stdout, (line) => {
      if (this.lines.length < KEPT_LINES) this.lines.push(line);
    });
    eachLine(this.process.stderr, options.onStderrLine);
  }

  get running(): boolean {
    return this.exit === null;
  }

  /** The first stdout line that is a JSON log record with this `msg`, parsed. */
  logRecord(msg: string): Record<string, unknown> | null {
    return this.lines.map(parseJsonLine).find((line) => line?.['msg'] === msg) ?? null;
  }

  /** SIGTERM, then SIGKILL after the grace period; resolves with the exit once the log is flushed. */
  async stop(): Promise<ChildExit> {
    if (this.running) this.process.kill('SIGTERM');
    const timer = setTimeout(() => this.running && this.process.kill('SIGKILL'), STOP_GRACE_MS);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
      await new Promise<void>((done) => this.log.end(() => done()));
    }
  }
}

export function describeExit(exit: ChildExit | null): string {
  if (!exit) return 'running';
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
}

export function parseJsonLine(line: string): Record<string, unknown> | null {
  if (!line.startsWith('{')) return null;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
}
