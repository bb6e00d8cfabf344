/**
 * A CompanionSession wired to a ScriptedRuntime, a ManualClock and an in-memory transport, for specs.
 */
import { createRequestPolicy } from '../policy/companion-policies';
import { ManualClock } from '../clock';
import { CompanionSession, type CompanionSessionOptions, type GenerationEnd, type ReceiveResult } from '../session/companion-session';
import type { CompanionDiagnostic } from '../session/diagnostics';
import { ScriptedRuntime, uuid, WORKSPACE } from './scripted-runtime';

export interface SentFrame {
  generation: number;
  text: string;
  frame: Record<string, unknown> & { type: string };
}

export class Harness {
  readonly clock = new ManualClock('2026-11-30T12:00:00.000Z');
  readonly runtime = new ScriptedRuntime();
  readonly sent: SentFrame[] = [];
  readonly ended: GenerationEnd[] = [];
  readonly diagnostics: CompanionDiagnostic[] = [];
  readonly session: CompanionSession;
  /** Make the transport's send fail from now on (per generation). */
  failSends = new Set<number>();
  private requestCounter = 0;
  private ids = 500;
  generation = 0;

  constructor(options: Partial<CompanionSessionOptions> = {}) {
    const { policies, ...rest } = options;
    this.session = new CompanionSession({
      workspaceId: WORKSPACE,
      wireVersion: '1.2',
      runtime: this.runtime,
      clock: this.clock,
      newId: () => uuid(this.ids++),
      onDiagnostic: (diagnostic) => this.diagnostics.push(diagnostic),
      ...rest,
      policies: { request: createRequestPolicy({ allow: 'all', boundWorkspaceOnly: false }), ...policies },
    });
  }

  static async started(options: Partial<CompanionSessionOptions> = {}): Promise<Harness> {
    const harness = new Harness(options);
    await harness.session.start();
    harness.connect();
    return harness;
  }

  connect(): number {
    let generation = 0;
    generation = this.session.connect(
      async (text) => {
        if (this.failSends.has(generation)) throw new Error('socket closed');
        this.sent.push({ generation, text, frame: JSON.parse(text) as SentFrame['frame'] });
      },
      (end) => this.ended.push(end),
    );
    this.generation = generation;
    return generation;
  }

  nextRequestId(): string {
    this.requestCounter += 1;
    return uuid(100 + this.requestCounter);
  }

  requestFrame(method: string, params: unknown, requestId = this.nextRequestId(), workspaceId = WORKSPACE) {
    return { type: 'runtime.request', requestId, workspaceId, method, params };
  }

  /** Sends a request and returns the receive result plus the response frame sent for it (if any). */
  async request(
    method: string,
    params: unknown,
    options: { requestId?: string; workspaceId?: string; generation?: number } = {},
  ): Promise<{ result: ReceiveResult; response: (Record<string, unknown> & { type: string }) | undefined }> {
    const frame = this.requestFrame(method, params, options.requestId, options.workspaceId);
    const before = this.sent.length;
    const result = await this.session.receive(JSON.stringify(frame), options.generation ?? this.generation);
    const response = this.sent.slice(before).find((sent) => sent.frame.type === 'runtime.response' && sent.frame['requestId'] === frame.requestId)?.frame;
    return { result, response };
  }

  async ack(through: number, generation = this.generation, workspaceId = WORKSPACE): Promise<ReceiveResult> {
    return this.session.receive(JSON.stringify({ type: 'runtime.ack', workspaceId, throughRelaySequence: through }), generation);
  }

  async flush(): Promise<void> {
    await this.session.flush();
  }

  /** Frames of `type` sent so far (optionally on one generation). */
  framesOf(type: string, generation?: number): SentFrame['frame'][] {
    return this.sent.filter((sent) => sent.frame.type === type && (generation === undefined || sent.generation === generation)).map((sent) => sent.frame);
  }

  sequencesSent(generation?: number): number[] {
    return this.sent
      .filter((sent) => (generation === undefined || sent.generation === generation) && typeof sent.frame['relaySequence'] === 'number')
      .map((sent) => sent.frame['relaySequence'] as number);
  }
}

/** Lets queued microtasks (policy promises, runtime calls) run. */
export async function settle(rounds = 10): Promise<void> {
  for (let round = 0; round < rounds; round += 1) await Promise.resolve();
}
