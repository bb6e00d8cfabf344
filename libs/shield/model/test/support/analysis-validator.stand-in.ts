/**
 * A small stand-in for the records library's analysis validator (SHIELD.md §9), enough to tell a valid
 * analysis from an invalid one in these tests without /work/shared or Ajv. It checks keys, types, enums
 * and the main bounds; the real validator is injected by the service.
 */
import { CLAIM_STATUSES, DISPOSITIONS, RISK_TIERS, TACTICS, type ShieldAnalysis } from '@trustmesh/shield-records';

import type { AnalysisValidation } from '../../src';

type Issue = { code: string; path: string; message: string };

const KEYS = ['reply', 'situationSummary', 'disposition', 'riskTier', 'confidence', 'rationale', 'claims', 'manipulationSignals', 'missingEvidence', 'questionsToAsk', 'nextSteps', 'safeguards', 'suggestedResponse'];

export function validateAnalysisStandIn(value: unknown): AnalysisValidation {
  const issues: Issue[] = [];
  const issue = (path: string, message: string): void => void issues.push({ code: 'ANALYSIS_INVALID', path, message });
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const text = (v: unknown, path: string, max: number): void => {
    if (typeof v !== 'string' || v.trim().length < 1 || v.length > max) issue(path, `must be a string of 1-${max} characters`);
  };
  const oneOf = (v: unknown, path: string, allowed: readonly string[]): void => {
    if (typeof v !== 'string' || !allowed.includes(v)) issue(path, `must be one of ${allowed.join(', ')}`);
  };
  const unit = (v: unknown, path: string): void => {
    if (typeof v !== 'number' || !(v >= 0 && v <= 1)) issue(path, 'must be a number from 0 to 1');
  };
  const list = (v: unknown, path: string, min: number, max: number, each: (item: unknown, path: string) => void): void => {
    if (!Array.isArray(v) || v.length < min || v.length > max) return issue(path, `must be a list of ${min}-${max} items`);
    v.forEach((item, index) => each(item, `${path}/${index}`));
  };
  const strings = (max: number) => (item: unknown, path: string) => text(item, path, max);

  if (!isObject(value)) return { ok: false, issues: [{ code: 'ANALYSIS_INVALID', path: '', message: 'must be an object' }] };
  for (const key of Object.keys(value)) if (!KEYS.includes(key)) issue(`/${key}`, 'is not an analysis key');
  text(value['reply'], '/reply', 5000);
  text(value['situationSummary'], '/situationSummary', 2000);
  oneOf(value['disposition'], '/disposition', DISPOSITIONS);
  oneOf(value['riskTier'], '/riskTier', RISK_TIERS);
  unit(value['confidence'], '/confidence');
  list(value['rationale'], '/rationale', 1, 12, strings(1000));
  list(value['claims'], '/claims', 0, 20, (claim, path) => {
    if (!isObject(claim)) return issue(path, 'must be an object');
    text(claim['claim'], `${path}/claim`, 1000);
    oneOf(claim['status'], `${path}/status`, CLAIM_STATUSES);
    oneOf(claim['significance'], `${path}/significance`, RISK_TIERS);
    list(claim['evidenceReferences'], `${path}/evidenceReferences`, 0, 20, strings(200));
    text(claim['explanation'], `${path}/explanation`, 1000);
  });
  list(value['manipulationSignals'], '/manipulationSignals', 0, 12, (signal, path) => {
    if (!isObject(signal)) return issue(path, 'must be an object');
    oneOf(signal['tactic'], `${path}/tactic`, TACTICS);
    text(signal['observation'], `${path}/observation`, 1000);
    unit(signal['confidence'], `${path}/confidence`);
    oneOf(signal['significance'], `${path}/significance`, RISK_TIERS);
  });
  list(value['missingEvidence'], '/missingEvidence', 0, 12, strings(500));
  list(value['questionsToAsk'], '/questionsToAsk', 0, 12, strings(500));
  list(value['nextSteps'], '/nextSteps', 1, 12, strings(500));
  list(value['safeguards'], '/safeguards', 0, 12, strings(500));
  if (value['suggestedResponse'] !== undefined) text(value['suggestedResponse'], '/suggestedResponse', 3000);
  return issues.length === 0 ? { ok: true, value: value as unknown as ShieldAnalysis } : { ok: false, issues };
}
