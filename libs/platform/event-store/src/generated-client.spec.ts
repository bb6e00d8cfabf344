// The committed Prisma client must be what `generate` makes from today's schema (see generated/README.md).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const SCHEMA = join(__dirname, '..', 'prisma', 'schema.prisma');
const GENERATED = join(__dirname, 'generated', 'prisma');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));
}

describe('the generated Prisma client', () => {
  it('was generated from the current schema', () => {
    const classFile = readFileSync(join(GENERATED, 'internal', 'class.ts'), 'utf8');
    const inline = /^ {2}"inlineSchema": (".*"),$/m.exec(classFile)?.[1];
    expect(inline).toBeDefined();
    expect(JSON.parse(inline!)).toBe(readFileSync(SCHEMA, 'utf8'));
  });

  it('records no machine-specific path, so any checkout regenerates the same bytes', () => {
    for (const file of files(GENERATED)) {
      expect(readFileSync(file, 'utf8')).not.toMatch(/"(?:\/|[A-Za-z]:\\\\)[^"]*(?:generated|schema\.prisma)/);
    }
  });
});
