/**
 * Plants the configured sentinel in every secret-bearing raw Runtime field (BEHAVIOUR.md §9, the
 * sentinel technique): tool input and output, approval previews and reasons, user-input results and
 * reasons, display payloads and outcome reasons, turn messages and error texts. Downstream leak tests
 * then prove that no frame reaching the relay or a browser contains it. With no sentinel configured
 * the raw fields stay as the script wrote them.
 *
 * Fields that cross the relay on purpose (transcript text, titles, tool names, approval explanations,
 * form labels) never get the sentinel.
 */
import type { JsonValue } from './turn-script';

export class SecretMarker {
  constructor(readonly sentinel: string | undefined) {}

  /** Raw text with the sentinel appended. */
  text(base: string): string {
    return this.sentinel === undefined ? base : `${base} [${this.sentinel}]`;
  }

  /** A raw JSON value that also carries the sentinel as a credential-like field. */
  value(base: JsonValue): JsonValue {
    if (this.sentinel === undefined) return base;
    if (base !== null && typeof base === 'object' && !Array.isArray(base)) return { ...base, credential: this.sentinel };
    return { value: base, credential: this.sentinel };
  }

  /** Raw fields that exist only to carry the sentinel (for runtimes that hold hidden state). */
  fields(): Record<string, string> {
    return this.sentinel === undefined ? {} : { secret: this.sentinel };
  }
}
