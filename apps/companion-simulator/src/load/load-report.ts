/** The load mode's report, as text for people and as JSON (--json) for tools and the gateway benchmark. */
export interface LoadReport {
  companions: number;
  browsers: number;
  durationSeconds: number;
  /** Sequenced frames written by the Companions. */
  framesSent: number;
  /** Sequenced frames received by browsers (one frame fanned out to two browsers counts twice). */
  framesDelivered: number;
  deliveredFramesPerSecond: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number; samples: number };
  errors: number;
  gaps: number;
  reconnects: number;
  /** The first few distinct error descriptions (codes and counts; never payload content). */
  errorSamples: string[];
}

export function emptyLoadReport(companions = 0, browsers = 0): LoadReport {
  return {
    companions,
    browsers,
    durationSeconds: 0,
    framesSent: 0,
    framesDelivered: 0,
    deliveredFramesPerSecond: 0,
    latencyMs: { p50: 0, p95: 0, p99: 0, max: 0, samples: 0 },
    errors: 0,
    gaps: 0,
    reconnects: 0,
    errorSamples: [],
  };
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

export function formatLoadReport(report: LoadReport): string {
  const lines = [
    `load: ${report.companions} companions, ${report.browsers} browsers, ${report.durationSeconds.toFixed(1)} s`,
    `  frames sent        ${report.framesSent}`,
    `  frames delivered   ${report.framesDelivered} (${report.deliveredFramesPerSecond.toFixed(1)} frames/s)`,
    `  latency            p50 ${ms(report.latencyMs.p50)}  p95 ${ms(report.latencyMs.p95)}  p99 ${ms(report.latencyMs.p99)}  max ${ms(report.latencyMs.max)}  (${report.latencyMs.samples} samples)`,
    `  errors             ${report.errors}`,
    `  gaps               ${report.gaps}`,
    `  reconnects         ${report.reconnects}`,
  ];
  for (const sample of report.errorSamples) lines.push(`    ${sample}`);
  return `${lines.join('\n')}\n`;
}
