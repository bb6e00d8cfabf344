/**
 * Upcasting on read (ARCHITECTURE.md "Events"): stored events keep the schema version they were written
 * with; consumers lift old payloads to the current shape, one version at a time, as they read them.
 */
import type { EventEnvelope } from './event-envelope';

/** Lifts `data` of `eventType` from `fromVersion` to `fromVersion + 1`. */
export type Upcaster = (data: unknown) => unknown;

export class UpcastError extends Error {
  constructor(
    readonly eventType: string,
    readonly schemaVersion: number,
    readonly code: 'UPCAST_MISSING_STEP' | 'UPCAST_FROM_THE_FUTURE',
    message: string,
  ) {
    super(message);
    this.name = 'UpcastError';
  }
}

export class UpcasterRegistry {
  private readonly versions = new Map<string, number>();
  private readonly steps = new Map<string, Upcaster>();

  /** Declares the current schema version of an event type; events without a registration pass as is. */
  current(eventType: string, version: number): this {
    this.versions.set(eventType, version);
    return this;
  }

  /** Registers the step from `fromVersion` to `fromVersion + 1`. */
  step(eventType: string, fromVersion: number, upcaster: Upcaster): this {
    this.steps.set(`${eventType}@${fromVersion}`, upcaster);
    return this;
  }

  /** Returns the envelope at the current version of its type (a new object when anything changed). */
  upcast<T = unknown>(envelope: EventEnvelope): EventEnvelope<T> {
    const target = this.versions.get(envelope.eventType);
    if (target === undefined || envelope.schemaVersion === target) return envelope as EventEnvelope<T>;
    if (envelope.schemaVersion > target) {
      throw new UpcastError(
        envelope.eventType,
        envelope.schemaVersion,
        'UPCAST_FROM_THE_FUTURE',
        `${envelope.eventType} v${envelope.schemaVersion} is newer than this reader's v${target}; deploy the newer reader first.`,
      );
    }
    let data = envelope.data;
    for (let version = envelope.schemaVersion; version < target; version += 1) {
      const step = this.steps.get(`${envelope.eventType}@${version}`);
      if (!step) {
        throw new UpcastError(envelope.eventType, version, 'UPCAST_MISSING_STEP', `No upcaster from ${envelope.eventType} v${version} to v${version + 1}.`);
      }
      data = step(data);
    }
    return { ...envelope, schemaVersion: target, data: data as T };
  }
}
