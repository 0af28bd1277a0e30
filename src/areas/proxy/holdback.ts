// Streaming output under a hold-back window, free of any wire format: text deltas go in, text that
// has been checked comes out. The last `holdback` characters stay behind until more text (or the
// end) arrives, so that a match split across chunks is caught before its first character leaves.
// Linear: each check reads the text not yet released plus `holdback` characters of context, and
// checks run only once `holdback` new characters arrived (and at the end).
import type { Replacement } from '../../engine/pipeline/decide.js';
import { applyReplacements, stops, type CheckedPart, type TokenVault } from './checks.js';

/** What the hold-back needs of the call's checks (ProxyChecks; tests pass a fake). */
export interface OutputChecker {
  readonly tokens: Pick<TokenVault, 'restore' | 'safeEnd'>;
  output(content: string): Promise<{ part: CheckedPart; replacements: readonly Replacement[] }>;
}

export interface HoldbackStep {
  /** Checked text to send now (masked where an enforcing rule said so, tokens restored). */
  text: string;
  /** The check that stopped the stream; nothing more may be sent of this text. */
  blocked: CheckedPart | null;
}

export class OutputHoldback {
  private text = '';
  private released = 0;
  private checkedLength = 0;
  /** The latest check, for the answer's `parapet` field. */
  last: CheckedPart | null = null;
  /** How many window checks ran (each is a recorded decision). */
  checks = 0;

  constructor(
    private readonly checker: OutputChecker,
    private readonly holdback: number,
  ) {}

  /** All text the model produced so far. */
  get assembled(): string {
    return this.text;
  }

  async push(delta: string): Promise<HoldbackStep> {
    this.text += delta;
    if (this.text.length - this.checkedLength < this.holdback) return { text: '', blocked: null };
    return this.check(false);
  }

  /** The end of the text: one last check over what was not released, then everything goes out. */
  async finish(): Promise<HoldbackStep> {
    if (this.released === this.text.length && this.checks > 0) return { text: '', blocked: null };
    if (this.text.length === 0) return { text: '', blocked: null };
    return this.check(true);
  }

  private async check(final: boolean): Promise<HoldbackStep> {
    // Context before the unreleased text, so that patterns needing a keyword before a value
    // (password = ...) still see it.
    const from = Math.max(0, this.released - this.holdback);
    const { part, replacements } = await this.checker.output(this.text.slice(from));
    this.checks += 1;
    this.last = part;
    this.checkedLength = this.text.length;
    if (stops(part.decision)) return { text: '', blocked: part };
    const shifted: Replacement[] = replacements.map((r) => ({ start: r.start + from, end: r.end + from, replacement: r.replacement }));
    let end = final ? this.text.length : this.text.length - this.holdback;
    // Never cut a masked span or a token in two: the rest waits for the next check.
    for (const r of shifted) if (r.start < end && r.end > end) end = r.start;
    if (!final) end = this.checker.tokens.safeEnd(this.text, end);
    if (end <= this.released) return { text: '', blocked: null };
    const out = applyReplacements(this.text, shifted, this.released, end);
    this.released = end;
    return { text: this.checker.tokens.restore(out), blocked: null };
  }
}
