/**
 * Renders a score report as the plain-text table `score.ts` prints: counts, disposition accuracy, tactic
 * precision/recall, claim-status accuracy, the worst tactics, the disposition confusion and (verbose) what each
 * scenario missed. Pure formatting; the numbers come from `scenario.scorer.ts`.
 */
import type { Ratio, ScoreReport, ScenarioResult } from './scenario.scorer';

function percent(value: number | null): string {
  return value === null ? '  n/a' : `${(value * 100).toFixed(1).padStart(5)}%`;
}

function ratioText(ratio: Ratio): string {
  return `${percent(ratio.value)}  (${ratio.correct}/${ratio.total})`;
}

function missText(result: ScenarioResult): string[] {
  const lines: string[] = [];
  if (result.error) lines.push(`    analyzer threw: ${result.error}`);
  if (!result.dispositionCorrect && !result.error) {
    const accepted = [result.expectedDisposition, ...result.acceptableDispositions].join(' | ');
    lines.push(`    disposition: got ${result.producedDisposition}, expected ${accepted}`);
  }
  if (result.missingTactics.length > 0) lines.push(`    missed tactics: ${result.missingTactics.join(', ')}`);
  if (result.extraTactics.length > 0) lines.push(`    extra tactics: ${result.extraTactics.join(', ')}`);
  for (const miss of result.claimMisses) {
    const produced = miss.produced.length === 0 ? 'no matching claim' : `got ${miss.produced.join(', ')}`;
    lines.push(`    claim [${miss.about.join(' + ')}]: expected ${miss.expected}, ${produced}`);
  }
  return lines;
}

export function formatReport(report: ScoreReport, options: { verbose?: boolean; worst?: number } = {}): string {
  const lines: string[] = [];
  const withTactics = report.results.filter((result) => result.expectedTactics.length > 0).length;
  lines.push('Shield scenario score');
  lines.push(`  scenarios                ${report.scenarios} (${withTactics} with tactics, ${report.errors} analyzer errors)`);
  lines.push(`  disposition accuracy     ${ratioText(report.disposition)}`);
  const t = report.tactics;
  lines.push(`  tactic precision         ${percent(t.precision)}  (tp ${t.truePositives}, fp ${t.falsePositives})`);
  lines.push(`  tactic recall            ${percent(t.recall)}  (tp ${t.truePositives}, fn ${t.falseNegatives})`);
  lines.push(`  tactic F1                ${percent(t.f1)}`);
  lines.push(`  claim-status accuracy    ${ratioText(report.claims)}`);
  lines.push('');
  lines.push('  tactic                 precision  recall     F1   tp  fp  fn');
  const worst = report.perTactic.slice(0, options.worst ?? report.perTactic.length);
  for (const score of worst) {
    lines.push(
      `  ${score.tactic.padEnd(22)} ${percent(score.precision)}    ${percent(score.recall)} ${percent(score.f1)} ${String(score.truePositives).padStart(4)}${String(score.falsePositives).padStart(4)}${String(score.falseNegatives).padStart(4)}`,
    );
  }
  lines.push('');
  lines.push('  dispositions (expected -> produced: count)');
  for (const [expected, row] of Object.entries(report.confusion).sort()) {
    const cells = Object.entries(row)
      .sort((a, b) => b[1] - a[1])
      .map(([produced, count]) => `${produced} ${count}`)
      .join(', ');
    lines.push(`    ${expected.padEnd(21)} -> ${cells}`);
  }
  if (options.verbose) {
    lines.push('');
    lines.push('  misses by scenario');
    for (const result of report.results) {
      const misses = missText(result);
      if (misses.length > 0) lines.push(`  ${result.id}`, ...misses);
    }
  }
  return lines.join('\n');
}
