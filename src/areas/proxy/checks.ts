// The checks a proxied model call goes through, free of any wire format: each wire adapter cuts
// its bodies into texts and tool calls, and this module puts each through the one decision
// pipeline and says what to forward, release or remove. No HTTP here.
import type { Decided, Decision, GuardCall, Pipeline, Replacement } from '../../engine/pipeline/decide.js';
import type { Verdict } from '../../engine/policy/schema.js';
import type { RequestBudget } from '../../engine/pipeline/request-budget.js';
import type { TraceSpan } from '../../infra/lib/trace-span.js';

/** What the proxy did with one checked part of the call. */
export type PartOutcome = 'passed' | 'transformed' | 'blocked' | 'held' | 'removed';

/** One check of a proxied call, as the `parapet.decisions` list shows it. */
export interface CheckedPart {
  surface: GuardCall['surface'];
  outcome: PartOutcome;
  tool?: string;
  tool_call_id?: string;
  /** Why the proxy removed a part the Decision alone would not have (unparsable arguments). */
  note?: string;
  decision: Decision;
}

/**
 * The `parapet` field of a proxied answer: the decisive Decision's fields at the top level (so that
 * `parapet.verdict`, `parapet.reason` and `parapet.decision_id` read as for a guard call), with every
 * check of the call in `decisions`. `verdict` is the strongest enforcing verdict of all checks.
 */
export type ParapetField = Decision & { forwarded: boolean; decisions: CheckedPart[] };

const RANK: Record<Verdict, number> = { allow: 0, escalate: 1, block: 2 };

/** The proxy stops what an enforcing pack blocks or holds for a person (escalate). */
export const stops = (decision: Decision): boolean => decision.verdict !== 'allow';

export function outcomeOf(decided: Decided): PartOutcome {
  const { decision } = decided;
  if (decision.verdict === 'block') return 'blocked';
  if (decision.verdict === 'escalate') return 'held';
  return decision.transformed_content === undefined ? 'passed' : 'transformed';
}

/** A part the proxy removed although the pipeline allowed it counts as blocked. */
const partVerdict = (part: CheckedPart): Verdict => (part.outcome === 'removed' && part.decision.verdict === 'allow' ? 'block' : part.decision.verdict);

/** Order of checks for the decisive one: enforcing verdict first, then what observe packs would have done. */
const weight = (part: CheckedPart): number => RANK[partVerdict(part)] * 3 + RANK[part.decision.effective_verdict];

/**
 * The field for an answer: the decisive check is the first with the strongest enforcing verdict
 * (among equals, the strongest effective verdict, so that what an observing pack would have
 * stopped shows at the top).
 */
export function parapetField(parts: readonly CheckedPart[], forwarded: boolean): ParapetField | null {
  let decisive: CheckedPart | undefined;
  for (const part of parts) {
    if (decisive === undefined || weight(part) > weight(decisive)) decisive = part;
  }
  if (decisive === undefined) return null;
  const byProxy = decisive.note !== undefined && decisive.decision.verdict === 'allow';
  return { ...decisive.decision, verdict: partVerdict(decisive), reason: byProxy ? (decisive.note as string) : decisive.decision.reason, forwarded, decisions: [...parts] };
}

/**
 * Tokens the pipeline put in place of personal data on the way in, and the values they stand for:
 * kept for one proxied call, so that the caller sees its own data back in the answer while the
 * upstream only ever saw tokens.
 */
export class TokenVault {
  private readonly values = new Map<string, string>();
  private pattern: RegExp | null = null;

  add(replacements: readonly Replacement[], content: string): void {
    for (const { start, end, replacement } of replacements) {
      // Masks (`[PII.EMAIL]`) are not reversible by design; tokens are `<PII.TYPE:hex>`.
      if (!replacement.startsWith('<')) continue;
      this.values.set(replacement, content.slice(start, end));
      this.pattern = null;
    }
  }

  get size(): number {
    return this.values.size;
  }

  restore(text: string): string {
    if (this.values.size === 0 || !text.includes('<')) return text;
    this.pattern ??= /<[A-Z][A-Z0-9_.]*:[0-9a-f]{12}>/g;
    return text.replace(this.pattern, (token) => this.values.get(token) ?? token);
  }

  /**
   * Where released text may end so that no token is cut in two: before an opening `<` that has no
   * closing `>` after it.
   */
  safeEnd(text: string, end: number): number {
    if (this.values.size === 0) return end;
    const open = text.lastIndexOf('<', end - 1);
    if (open === -1 || end - open > 64) return end;
    return text.indexOf('>', open) !== -1 && text.indexOf('>', open) < end ? end : open;
  }
}

/** Applies replacements (offsets into `content`) that fall inside [from, to), shifted to the slice. */
export function applyReplacements(content: string, replacements: readonly Replacement[], from: number, to: number): string {
  let output = '';
  let cursor = from;
  for (const r of replacements) {
    if (r.start < from || r.end > to) continue;
    output += content.slice(cursor, r.start) + r.replacement;
    cursor = r.end;
  }
  return output + content.slice(cursor, to);
}

export interface CallScope {
  agent: string;
  sessionId: string;
  traceId?: string;
  /** The call's `parapet_context`: the answer's checks read it as the guard output call's `context`. */
  evidence?: readonly unknown[];
  /** The request's server span (tracing on): each check is a decision span under it. */
  span?: TraceSpan;
}

/** The request's texts checked as one `input`: each segment's own text back, transformed where needed. */
export interface InputCheck {
  part: CheckedPart;
  /** The segments to forward, in order (tokenized where an enforcing rule said so). */
  segments: string[];
}

const SEPARATOR = '\n\n';

/**
 * The checks of one proxied call. Every method calls the pipeline once and returns the Decision
 * with what the proxy should do; tokens made on the way in are kept for the answer.
 */
export class ProxyChecks {
  readonly tokens = new TokenVault();

  constructor(
    private readonly pipeline: Pipeline,
    private readonly scope: CallScope,
    /** Shared by every check of the call (request_budget_ms); absent: each check has enforcement_budget_ms. */
    private readonly budget?: RequestBudget,
  ) {}

  private base(): Pick<GuardCall, 'agent' | 'sessionId' | 'traceId' | 'requestBudget' | 'span'> {
    return {
      agent: this.scope.agent,
      sessionId: this.scope.sessionId,
      ...(this.scope.traceId === undefined ? {} : { traceId: this.scope.traceId }),
      ...(this.budget === undefined ? {} : { requestBudget: this.budget }),
      ...(this.scope.span === undefined ? {} : { span: this.scope.span }),
    };
  }

  /**
   * The system prompt and the conversation's new user texts, checked together as one `input`
   * (joined by blank lines), so that an injection split over two messages is still one text.
   */
  async input(texts: readonly string[]): Promise<InputCheck> {
    const content = texts.join(SEPARATOR);
    const decided = await this.pipeline.decideAndRecord({ ...this.base(), surface: 'input', content });
    const part: CheckedPart = { surface: 'input', outcome: outcomeOf(decided), decision: decided.decision };
    const replacements = decided.replacements;
    if (replacements === undefined || decided.decision.verdict !== 'allow') return { part, segments: [...texts] };
    this.tokens.add(replacements, content);
    const segments: string[] = [];
    let offset = 0;
    for (const text of texts) {
      segments.push(applyReplacements(content, replacements, offset, offset + text.length));
      offset += text.length + SEPARATOR.length;
    }
    return { part, segments };
  }

  /** A tool's result handed back to the model: untrusted, and remembered in the session for taint. */
  async toolResult(content: string, toolCallId?: string): Promise<CheckedPart> {
    const decided = await this.pipeline.decideAndRecord({ ...this.base(), surface: 'tool_result', content, taintSource: 'tool_result' });
    return { surface: 'tool_result', outcome: outcomeOf(decided), ...(toolCallId === undefined ? {} : { tool_call_id: toolCallId }), decision: decided.decision };
  }

  /** The model's text (or a window of it while streaming). */
  async output(content: string): Promise<{ part: CheckedPart; replacements: readonly Replacement[] }> {
    const evidence = this.scope.evidence;
    const decided = await this.pipeline.decideAndRecord({ ...this.base(), surface: 'output', content, ...(evidence === undefined ? {} : { context: evidence }) });
    return {
      part: { surface: 'output', outcome: outcomeOf(decided), decision: decided.decision },
      replacements: decided.decision.verdict === 'allow' ? (decided.replacements ?? []) : [],
    };
  }

  /**
   * A tool call the model proposes, against the agent's grants. Arguments that are not a JSON
   * object are checked as text (detectors, taint and action analysis read them under the key
   * `arguments`) and removed whatever the verdict: no client can run them as they are, and what
   * cannot be read cannot be authorised.
   */
  async toolCall(name: string, rawArguments: string, toolCallId?: string): Promise<CheckedPart> {
    const parsed = parseArguments(rawArguments);
    const args = parsed ?? { arguments: rawArguments };
    const decided = await this.pipeline.decideAndRecord({
      ...this.base(),
      surface: 'tool_args',
      tool: name,
      content: parsed === null ? rawArguments : JSON.stringify(parsed),
      arguments: args,
    });
    const part: CheckedPart = {
      surface: 'tool_args',
      outcome: outcomeOf(decided),
      tool: name,
      ...(toolCallId === undefined ? {} : { tool_call_id: toolCallId }),
      decision: decided.decision,
    };
    if (parsed === null) {
      part.outcome = stops(decided.decision) ? part.outcome : 'removed';
      part.note = `The arguments of tool call ${name} are not a JSON object; the call was removed.`;
    }
    return part;
  }
}

/** A tool call's arguments: empty means none; anything but a JSON object is null. */
export function parseArguments(raw: string): Record<string, unknown> | null {
  if (raw.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Whether a part stops the call or is taken out of the answer. */
export const removed = (part: CheckedPart): boolean => part.outcome === 'blocked' || part.outcome === 'held' || part.outcome === 'removed';
