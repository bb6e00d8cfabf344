/**
 * Scores the Shield analyzer on the labelled scenarios (issue 9, "Quality: a labelled set of your own"):
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/shield-scenarios/score.ts [--json] [--verbose] [--analyzer <module>]
 *     [--scenarios <dir>]
 *
 * `--scenarios` scores another folder laid out like `scenarios/` (`<domain>/<name>.json`), for example a
 * held-out subset kept apart while the analyzer is being changed, so its score measures generalisation.
 *
 * The analyzer is `analyzeCase` exported by `@trustmesh/shield-analysis`, or by the module named with
 * `--analyzer` (a path, resolved from the working directory). It is imported at run time, so this tool builds
 * and its tests run before the analysis library exports it. Exit 0 after printing, 1 when the scenarios are
 * invalid or no analyzer is found, 2 on a usage error.
 */
import { resolve } from 'node:path';

import { loadScenarios, ScenarioLoadError } from './scenario.loader';
import { type Analyzer, scoreAnalyzer } from './scenario.scorer';
import { formatReport } from './score.report';

const USAGE = 'usage: score.ts [--json] [--verbose] [--analyzer <module exporting analyzeCase>] [--scenarios <dir>]';

interface Options {
  json: boolean;
  verbose: boolean;
  analyzer: string;
  scenarios?: string;
}

function parseArgs(args: string[]): Options | string {
  const options: Options = { json: false, verbose: false, analyzer: '@trustmesh/shield-analysis' };
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    if (arg === '--json') options.json = true;
    else if (arg === '--verbose') options.verbose = true;
    else if (arg === '--analyzer') {
      const specifier = args[(index += 1)];
      if (!specifier) return `--analyzer needs a module path\n${USAGE}`;
      options.analyzer = resolve(specifier);
    } else if (arg === '--scenarios') {
      const dir = args[(index += 1)];
      if (!dir) return `--scenarios needs a folder\n${USAGE}`;
      options.scenarios = resolve(dir);
    } else return `unknown argument ${JSON.stringify(arg)}\n${USAGE}`;
  }
  return options;
}

async function importAnalyzer(specifier: string): Promise<Analyzer> {
  let module: Record<string, unknown>;
  try {
    module = (await import(specifier)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`cannot load ${specifier} (${(error as Error).message}); build the analysis library or pass --analyzer <module exporting analyzeCase>`);
  }
  const analyzeCase = module['analyzeCase'] ?? (module['default'] as Record<string, unknown> | undefined)?.['analyzeCase'];
  if (typeof analyzeCase !== 'function') throw new Error(`${specifier} does not export a function analyzeCase(request)`);
  return analyzeCase as Analyzer;
}

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  if (typeof options === 'string') {
    process.stderr.write(`${options}\n`);
    return 2;
  }
  try {
    const scenarios = loadScenarios(options.scenarios);
    const analyzer = await importAnalyzer(options.analyzer);
    const report = scoreAnalyzer(analyzer, scenarios);
    process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report, { verbose: options.verbose, worst: options.verbose ? undefined : 5 })}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`${error instanceof ScenarioLoadError ? error.message : `score.ts: ${(error as Error).message}`}\n`);
    return 1;
  }
}

void main().then((code) => (process.exitCode = code));
