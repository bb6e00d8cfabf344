/**
 * The built-in "demo" scenario: a coding thread whose turn fails a test run, asks to apply a patch
 * (waiting for the person, answered at the machine after two minutes otherwise) and reports an app
 * result; a research thread that asks for a form; a dropped connection in the middle of a turn.
 * Kept as YAML text, the format people write, and loaded through the same checks as any file.
 */
import type { Scenario } from './scenario.types';
import { parseScenario } from './scenario-loader';

export const DEMO_SCENARIO_YAML = `# The simulated runtime's demo scenario.
version: 1
name: demo
description: A coding turn with a failing test, a patch that needs approval and a form; a dropped connection mid-turn.
runtime:
  seed: 42
  model: sim-agent-1
threads:
  - key: build
    title: Fix the failing build
    history:
      - kind: user
        text: The CI build is red since yesterday.
      - kind: assistant
        text: I will look at the test output first.
  - key: research
    title: Choose a deployment region
steps:
  - kind: turn
    thread: build
    input: Please fix the failing test.
    steps:
      - kind: reasoning
        text: The failure is in the math module; run the tests to see which case breaks.
      - kind: tool
        agent: assistant
        tool: shell
        input: { command: npm test -- math }
        output:
          stdout: "FAIL src/math.spec.ts\\n  ✕ adds negative numbers (3 ms)\\n"
          stderr: "Expected -1, received 1\\n"
        outcome: tool_failed
        outcomeReason: exit code 1
        durationMs: 400
      - kind: message
        text: One case fails because the sign is dropped. I will patch src/math.ts.
      - kind: tool
        agent: assistant
        tool: apply_patch
        input: { patch: "--- a/src/math.ts\\n+++ b/src/math.ts\\n-  return Math.abs(a) + b;\\n+  return a + b;\\n" }
        output: patched 1 file
        approval:
          explanation: Apply a one-line fix to src/math.ts
          preview: { files: [src/math.ts] }
          reason: apply_patch writes to the workspace
          autoRespond: { afterMs: 120000, decision: approve }
      - kind: tool
        agent: assistant
        tool: run_tests
        input: { filter: math }
        output: "PASS src/math.spec.ts\\n"
        appOutput:
          status: available
          schemaId: trustmesh.sim/test-report
          schemaVersion: 1
          remoteReadable: true
          data: { passed: 12, failed: 0 }
          fallbackText: 12 tests passed
      - kind: message
        text: The fix is in and all 12 tests pass.
  - kind: delay
    ms: 1000
  - kind: turn
    thread: research
    input: Where should we deploy the relay?
    steps:
      - kind: userInput
        form:
          title: Deployment preferences
          controls:
            - { type: choice, id: region, label: Region, required: true, multiple: false, options: [{ id: eu, label: Europe }, { id: us, label: United States }] }
            - { type: number, id: replicas, label: Replicas, required: true, min: 1, max: 9, integer: true }
            - { type: boolean, id: ha, label: High availability, required: false }
            - { type: text, id: notes, label: Notes, required: false, maxLength: 500 }
        autoRespond: { afterMs: 120000, values: [{ id: region, value: eu }, { id: replicas, value: 3 }] }
      - kind: tool
        agent: researcher
        tool: web_search
        input: { query: relay latency by region }
        output: 3 results
      - kind: message
        text: Streaming the comparison now; the connection drops for a few seconds in the middle.
      - kind: disconnect
        forMs: 3000
      - kind: message
        text: Europe has the lowest latency for your users; three replicas give you headroom.
`;

export function demoScenario(): Scenario {
  return parseScenario(DEMO_SCENARIO_YAML, { source: 'demo.scenario.yaml' });
}
