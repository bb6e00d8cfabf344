/**
 * Checks the project's record schemas against the reference documents of the specification, when the
 * shared folder is at hand: `npx tsx libs/shield/records/codegen/compare-reference.ts ../shared/spec/shield`.
 * Each emitted document (without its `$comment`) must equal its reference, keyword for keyword, so it
 * accepts exactly what the reference accepts; the consultation document must be the same bytes.
 * Not a test: the repository's tests never read the shared folder.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { canonicalJson } from '@trustmesh/shared-canonical-json';

import { SCHEMAS_DIR } from '../definitions/shield-records.definition';

const referenceDir = process.argv[2];
if (!referenceDir) {
  console.error('usage: compare-reference.ts <folder of the reference shield_*.schema.json>');
  process.exit(2);
}
let failed = false;
for (const file of ['shield_case.schema.json', 'shield_analysis.schema.json', 'shield_outcome.schema.json', 'shield_consultation.schema.json']) {
  const ours = readFileSync(join(SCHEMAS_DIR, file), 'utf8');
  const reference = readFileSync(join(referenceDir, file), 'utf8');
  const { $comment: _comment, ...document } = JSON.parse(ours) as Record<string, unknown>;
  const same = file === 'shield_consultation.schema.json' ? ours === reference : canonicalJson(document) === canonicalJson(JSON.parse(reference));
  console.log(`${same ? 'same' : 'DIFFERENT'}  ${file}`);
  failed ||= !same;
}
process.exit(failed ? 1 : 0);
