/**
 * Reads one command-line input (a FILE, or `-` for stdin) with a byte bound, so an oversized or endless input
 * is refused from its size alone and never held in memory whole. Shared by every command that reads documents.
 */
import { open } from 'node:fs/promises';

import type { CommandIo } from './command-io';

export type BoundedInput = { bytes: Uint8Array; tooLarge: false } | { tooLarge: true } | { unreadable: string };

/** Reads at most `maxBytes + 1` bytes of `file` (`-`: stdin); `unreadable` says why, without internal detail. */
export async function readBoundedInput(file: string, maxBytes: number, io: CommandIo): Promise<BoundedInput> {
  if (file === '-') {
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of io.stdin) {
        const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
        chunks.push(buffer);
        total += buffer.length;
        if (total > maxBytes) {
          io.stdin.destroy();
          return { tooLarge: true };
        }
      }
    } catch {
      return { unreadable: 'cannot read stdin' };
    }
    return { bytes: Buffer.concat(chunks), tooLarge: false };
  }
  let handle;
  try {
    handle = await open(file, 'r');
    const stats = await handle.stat();
    if (!stats.isFile()) return { unreadable: `${file} is not a regular file` };
    if (stats.size > maxBytes) return { tooLarge: true };
    const buffer = Buffer.alloc(maxBytes + 1);
    const { bytesRead } = await handle.read(buffer, 0, maxBytes + 1, 0);
    if (bytesRead > maxBytes) return { tooLarge: true };
    return { bytes: buffer.subarray(0, bytesRead), tooLarge: false };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { unreadable: `cannot read ${file}${code ? ` (${code})` : ''}` };
  } finally {
    await handle?.close();
  }
}
