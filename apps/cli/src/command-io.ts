/**
 * What a command needs from its process, so tests can run commands in-process and the real binary
 * runs them against stdio.
 */
import type { Readable } from 'node:stream';

export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  stdin: Readable;
}

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** A mistake in how the command was called: exit 2 with the usage text. */
export class UsageError extends Error {}
