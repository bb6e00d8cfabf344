/**
 * How an adapter checks its own options at construction: every problem is collected, then one
 * `OPTIONS_INVALID` lists them all, so a misconfigured service fails at startup saying everything that
 * is wrong at once.
 */
import { BusError } from './bus.error';

export class OptionProblems {
  private readonly problems: string[] = [];

  /** `value`, when given, must be a whole number from `min` to `max`. */
  whole(name: string, value: number | undefined, min: number, max: number): this {
    if (value !== undefined && (!Number.isInteger(value) || value < min || value > max)) this.problems.push(`${name} must be a whole number from ${min} to ${max}`);
    return this;
  }

  /** Records `problem` when `holds` is false. */
  require(holds: boolean, problem: string): this {
    if (!holds) this.problems.push(problem);
    return this;
  }

  throwIfAny(adapter: 'kafka' | 'local'): void {
    if (this.problems.length > 0) throw new BusError('OPTIONS_INVALID', `Invalid ${adapter} bus options: ${this.problems.join('; ')}.`);
  }
}
