/**
 * Plays a checked scenario against a simulated runtime: seeds its threads, then runs its steps in
 * document order on the runtime's clock. Turns are started at the machine (`turn`) or wait for a person
 * (`awaitTurn`); delays wait; disconnects and restarts become directives for the host.
 *
 * A counterparty request asks the host's assessor first (while it answers, the step waits), then plays
 * its turn with the assessment as the approval's explanation, and tells the assessment how the approval
 * ended. An assessor that rejects is treated as absent; one that answers after the run moved on (stopped)
 * is ignored.
 *
 * A restart replaces the Companion and, with it, the runtime: the host builds a new runtime and calls
 * `attach(runtime)`; the run seeds the scenario's threads again (same ids) and goes on with the next
 * step. A turn cut short by the restart counts as done.
 *
 * The status mirrors SimulatorControl's ScenarioStatus: state, steps completed out of the step count,
 * and a stable error code with a message when the run fails.
 */
import type { SimClock, TimerId } from '../clock/sim-clock';
import type { ExpectationRecord, SimulatedRuntime, TurnObserver } from '../runtime/simulated-runtime';
import {
  counterpartyTurnInput,
  counterpartyTurnScript,
  resolveCounterpartyRequest,
  UNASSESSED_EXPLANATION,
  type CounterpartyAssessment,
  type CounterpartyAssessor,
} from './counterparty-request';
import { scenarioStepCount, turnStepCount, type Scenario, type ScenarioCounterpartyRequestStep, type ScenarioStep, type ScenarioThreadStep } from './scenario.types';

export type ScenarioRunState = 'running' | 'completed' | 'failed';
export type ScenarioRunErrorCode = 'SCENARIO_STEP_FAILED' | 'SCENARIO_TIMEOUT' | 'SCENARIO_EXPECTATION_UNMET' | 'SCENARIO_STOPPED';

export interface ScenarioRunStatus {
  state: ScenarioRunState;
  name: string;
  stepsCompleted: number;
  stepCount: number;
  errorCode?: ScenarioRunErrorCode;
  errorMessage?: string;
}

export interface ScenarioRunOptions {
  /** How long a top-level `restart` waits for the host's `attach` before going on with the same runtime (default 30 s). */
  restartWaitMs?: number;
  /** Called on every change of the status. */
  onStatus?: (status: ScenarioRunStatus) => void;
  /** Assesses counterparty requests before their approval is raised (the simulator consults the Shield). */
  assessCounterparty?: CounterpartyAssessor;
}

export interface ScenarioRun {
  status(): ScenarioRunStatus;
  /** Settles when the run completes, fails or is stopped. */
  readonly finished: Promise<ScenarioRunStatus>;
  /** The runtime id of a scenario thread. */
  threadId(key: string): string;
  /** Continues on a new runtime after a restart. */
  attach(runtime: SimulatedRuntime): void;
  /** Ends the run (state failed, SCENARIO_STOPPED). */
  stop(): void;
}

/** Seeds the scenario's threads into `runtime` and starts playing its steps. */
export function startScenario(scenario: Scenario, runtime: SimulatedRuntime, options: ScenarioRunOptions = {}): ScenarioRun {
  return new ScenarioPlayer(scenario, runtime, options).begin();
}

class ScenarioPlayer implements ScenarioRun {
  readonly finished: Promise<ScenarioRunStatus>;
  private resolveFinished!: (status: ScenarioRunStatus) => void;
  private readonly state: ScenarioRunStatus;
  private readonly threadIds = new Map<string, string>();
  private index = -1;
  private timer: TimerId | undefined;
  private timerClock: SimClock | undefined;
  /** Bumped whenever the current step is abandoned, so late callbacks of an old step are ignored. */
  private epoch = 0;
  private stepsInCurrentTurn = 0;
  private waitingForAttach = false;
  /** The first unmet expectation of the current turn step. */
  private unmet: ExpectationRecord | undefined;

  constructor(
    private readonly scenario: Scenario,
    private runtime: SimulatedRuntime,
    private readonly options: ScenarioRunOptions,
  ) {
    this.state = { state: 'running', name: scenario.name, stepsCompleted: 0, stepCount: scenarioStepCount(scenario) };
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve));
  }

  begin(): this {
    this.seedThreads();
    this.publish();
    this.schedule(0, () => this.next());
    return this;
  }

  status(): ScenarioRunStatus {
    return { ...this.state };
  }

  threadId(key: string): string {
    const id = this.threadIds.get(key);
    if (id === undefined) throw new Error(`The scenario has no thread with key ${JSON.stringify(key)}.`);
    return id;
  }

  attach(runtime: SimulatedRuntime): void {
    this.runtime = runtime;
    this.seedThreads();
    if (this.state.state !== 'running') return;
    const step = this.scenario.steps[this.index];
    if (this.waitingForAttach) {
      this.waitingForAttach = false;
      this.finishStep();
    } else if (step && (step.kind === 'turn' || step.kind === 'awaitTurn' || step.kind === 'counterpartyRequest')) {
      // The turn died with the old runtime.
      this.finishTurn(step);
    }
  }

  stop(): void {
    this.fail('SCENARIO_STOPPED', 'The scenario was stopped before it finished.');
  }

  private seedThreads(): void {
    for (const thread of this.scenario.threads ?? []) {
      const seeded = this.runtime.seedThread({
        ...(this.threadIds.has(thread.key) ? { id: this.threadIds.get(thread.key) } : thread.id !== undefined ? { id: thread.id } : {}),
        ...(thread.title !== undefined ? { title: thread.title } : {}),
        ...(thread.model !== undefined ? { model: thread.model } : {}),
        history: (thread.history ?? []).map((entry) => (entry.kind === 'tool' ? entry : { role: entry.kind, text: entry.text })),
      });
      this.threadIds.set(thread.key, seeded.id);
    }
  }

  private next(): void {
    if (this.state.state !== 'running') return;
    this.index++;
    const step = this.scenario.steps[this.index];
    if (!step) {
      this.state.state = 'completed';
      this.publish();
      this.resolveFinished(this.status());
      return;
    }
    try {
      this.play(step);
    } catch (error) {
      this.fail('SCENARIO_STEP_FAILED', `/steps/${this.index} (${step.kind}) failed: ${describe(error)}`);
    }
  }

  private play(step: ScenarioStep): void {
    const epoch = ++this.epoch;
    switch (step.kind) {
      case 'delay':
        this.schedule(step.ms, () => this.finishStep());
        return;
      case 'disconnect':
        this.runtime.emitDirective({ kind: 'disconnect', forMs: step.forMs });
        this.schedule(0, () => this.finishStep());
        return;
      case 'restart':
        this.waitingForAttach = true;
        this.runtime.emitDirective({ kind: 'restart', downMs: step.downMs ?? 0 });
        if (this.waitingForAttach) {
          this.schedule((step.downMs ?? 0) + (this.options.restartWaitMs ?? 30_000), () => {
            this.waitingForAttach = false;
            this.finishStep();
          });
        }
        return;
      case 'turn':
      case 'awaitTurn': {
        const observer = this.turnObserver(step, epoch);
        const script = { ...(step.startDelayMs !== undefined ? { startDelayMs: step.startDelayMs } : {}), steps: step.steps };
        const threadId = this.threadId(step.thread);
        if (step.kind === 'turn') {
          this.runtime.startLocalTurn({ threadId, input: step.input, script, observer });
        } else {
          this.runtime.queueTurnScript(threadId, script, { ...(step.match !== undefined ? { match: new RegExp(step.match) } : {}), observer });
          if (step.timeoutMs !== undefined) {
            this.schedule(step.timeoutMs, () => {
              if (epoch === this.epoch && this.runtime.activeTurn(threadId) === undefined) {
                this.fail('SCENARIO_TIMEOUT', `/steps/${this.index} (awaitTurn): nobody started a turn on thread ${JSON.stringify(step.thread)} within ${step.timeoutMs} ms.`);
              }
            });
          }
        }
        return;
      }
      case 'counterpartyRequest':
        void this.assess(step).then((assessment) => {
          if (epoch !== this.epoch || this.state.state !== 'running') return assessment.settled('aborted');
          try {
            this.playCounterpartyTurn(step, assessment, epoch);
          } catch (error) {
            assessment.settled('aborted');
            this.fail('SCENARIO_STEP_FAILED', `/steps/${this.index} (${step.kind}) failed: ${describe(error)}`);
          }
        });
        return;
    }
  }

  /** The host's assessment, or the unassessed explanation when there is no assessor or it failed. */
  private async assess(step: ScenarioCounterpartyRequestStep): Promise<CounterpartyAssessment> {
    const unassessed: CounterpartyAssessment = { explanation: UNASSESSED_EXPLANATION, settled: () => undefined };
    if (!this.options.assessCounterparty) return unassessed;
    try {
      return await this.options.assessCounterparty(resolveCounterpartyRequest(step.request));
    } catch {
      return unassessed;
    }
  }

  private playCounterpartyTurn(step: ScenarioCounterpartyRequestStep, assessment: CounterpartyAssessment, epoch: number): void {
    const request = resolveCounterpartyRequest(step.request);
    const script = counterpartyTurnScript(request, assessment.explanation, {
      ...(step.expiresInMs !== undefined ? { expiresInMs: step.expiresInMs } : {}),
      ...(step.expect !== undefined ? { expect: step.expect } : {}),
    });
    const observer = this.turnObserver(step, epoch, {
      requestSettled: ({ method, actual }) => {
        if (method === 'approval.request' && (actual === 'approve' || actual === 'reject' || actual === 'expire' || actual === 'aborted')) assessment.settled(actual);
      },
    });
    this.runtime.startLocalTurn({ threadId: this.threadId(step.thread), input: counterpartyTurnInput(request), script, observer });
  }

  /** Follows a step's turn: progress, the first unmet expectation, its end; `extra` adds hooks. */
  private turnObserver(step: ScenarioThreadStep, epoch: number, extra: Partial<TurnObserver> = {}): TurnObserver {
    this.stepsInCurrentTurn = 0;
    this.unmet = undefined;
    return {
      ...extra,
      expectation: (record) => {
        if (epoch === this.epoch && !record.met) this.unmet ??= record;
      },
      stepDone: () => {
        if (epoch !== this.epoch) return;
        this.stepsInCurrentTurn++;
        this.state.stepsCompleted++;
        this.publish();
      },
      ended: () => {
        if (epoch === this.epoch) this.schedule(0, () => this.finishTurn(step));
      },
    };
  }

  private finishTurn(step: ScenarioThreadStep): void {
    if (this.state.state !== 'running') return;
    // Steps a turn never reached (it failed, was cancelled or died in a restart) count as done.
    this.state.stepsCompleted += Math.max(0, turnStepCount(step) - this.stepsInCurrentTurn);
    this.stepsInCurrentTurn = 0;
    const unmet = this.unmet;
    this.unmet = undefined;
    if (unmet) {
      this.fail('SCENARIO_EXPECTATION_UNMET', `/steps/${this.index} (${step.kind}): the scenario expected ${unmet.method} to end as ${unmet.expected}, but it ended as ${unmet.actual}.`);
      return;
    }
    this.finishStep();
  }

  private finishStep(): void {
    if (this.state.state !== 'running') return;
    this.epoch++;
    this.clearTimer();
    this.state.stepsCompleted++;
    this.publish();
    this.next();
  }

  private fail(code: ScenarioRunErrorCode, message: string): void {
    if (this.state.state !== 'running') return;
    this.epoch++;
    this.clearTimer();
    this.state.state = 'failed';
    this.state.errorCode = code;
    this.state.errorMessage = message;
    this.publish();
    this.resolveFinished(this.status());
  }

  private schedule(ms: number, callback: () => void): void {
    this.clearTimer();
    const clock = this.runtime.clock;
    this.timerClock = clock;
    this.timer = clock.setTimer(ms, () => {
      this.timer = undefined;
      callback();
    });
  }

  private clearTimer(): void {
    if (this.timer !== undefined) this.timerClock?.clearTimer(this.timer);
    this.timer = undefined;
  }

  private publish(): void {
    this.options.onStatus?.(this.status());
  }
}

function describe(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error) return `the runtime refused it (${String((error as { code: unknown }).code)})`;
  return error instanceof Error ? error.message : 'unknown error';
}
