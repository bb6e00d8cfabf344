/**
 * Loads every `scenarios/<domain>/<name>.json` file and validates it (`scenario.validator.ts`). Loading fails
 * loudly: one error listing every problem of every file, each with the file, the JSON pointer and the fix, so a
 * malformed scenario can never be scored silently. The file's path must match its `id` and `domain`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

import type { LoadedScenario, Scenario } from './scenario.types';
import { validateScenario, type ScenarioError } from './scenario.validator';

export const SCENARIOS_DIR = join(__dirname, 'scenarios');

export interface ScenarioFileProblem extends ScenarioError {
  file: string;
}

export class ScenarioLoadError extends Error {
  override readonly name = 'ScenarioLoadError';

  constructor(readonly problems: ScenarioFileProblem[]) {
    super(
      `${problems.length} problem(s) in the Shield scenarios:\n` +
        problems.map((problem) => `  ${problem.file} ${problem.pointer}: ${problem.message} [${problem.code}]`).join('\n'),
    );
  }
}

function jsonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return jsonFiles(path);
      return entry.name.endsWith('.json') ? [path] : [];
    });
}

/** Reads, parses and validates every scenario under `dir`; throws `ScenarioLoadError` naming each bad file and field. */
export function loadScenarios(dir: string = SCENARIOS_DIR): LoadedScenario[] {
  const problems: ScenarioFileProblem[] = [];
  const loaded: LoadedScenario[] = [];
  const ids = new Map<string, string>();
  for (const path of jsonFiles(dir)) {
    const file = relative(dir, path).split(sep).join('/');
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      problems.push({ file, code: 'wrong_type', pointer: '/', message: `not valid JSON: ${(error as Error).message}` });
      continue;
    }
    const errors = validateScenario(parsed);
    problems.push(...errors.map((error) => ({ file, ...error })));
    if (errors.length > 0) continue;
    const scenario = parsed as Scenario;
    if (`${scenario.id}.json` !== file) {
      problems.push({ file, code: 'inconsistent', pointer: '/id', message: `id "${scenario.id}" must match the path: save it as ${scenario.id}.json` });
      continue;
    }
    const other = ids.get(scenario.id);
    if (other) problems.push({ file, code: 'duplicate', pointer: '/id', message: `same id as ${other}` });
    ids.set(scenario.id, file);
    loaded.push({ ...scenario, file });
  }
  if (loaded.length === 0 && problems.length === 0) {
    problems.push({ file: '.', code: 'missing_key', pointer: '/', message: `no scenario files under ${dir}` });
  }
  if (problems.length > 0) throw new ScenarioLoadError(problems);
  return loaded;
}
