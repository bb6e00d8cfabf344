// generated/README.md must state the exact flags buf.gen.yaml passes to ts-proto, so the two cannot drift.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const WORKSPACE_ROOT = join(__dirname, '..', '..', '..');

/** `out` directory (relative to src/generated) -> comma-joined `opt` list, read from buf.gen.yaml. */
function flagsInBufGen(): Record<string, string> {
  const yaml = readFileSync(join(WORKSPACE_ROOT, 'buf.gen.yaml'), 'utf8');
  const flags: Record<string, string> = {};
  for (const plugin of yaml.split(/^ {2}- local:/m).slice(1)) {
    const out = /^ {4}out: libs\/contracts\/src\/generated\/(\S+)$/m.exec(plugin)?.[1];
    if (out === undefined) throw new Error(`buf.gen.yaml: a plugin does not write under src/generated: ${plugin}`);
    flags[out] = [...plugin.matchAll(/^ {6}- (\S+)$/gm)].map((m) => m[1]).join(',');
  }
  return flags;
}

/** `### Flags of the `<dir>/` run` heading -> the flags in the code block under it. */
function flagsInReadme(): Record<string, string> {
  const readme = readFileSync(join(__dirname, 'generated', 'README.md'), 'utf8');
  const flags: Record<string, string> = {};
  for (const m of readme.matchAll(/^### Flags of the `([\w-]+)\/` run\n\n```\n(.+)\n```$/gm)) {
    flags[m[1] as string] = m[2] as string;
  }
  return flags;
}

describe('generated/README.md', () => {
  it('lists, for each ts-proto run, exactly the flags of buf.gen.yaml', () => {
    const expected = flagsInBufGen();
    expect(Object.keys(expected).sort()).toEqual(['grpc-js', 'nestjs']);
    expect(flagsInReadme()).toEqual(expected);
  });
});
