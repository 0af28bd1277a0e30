// The contracts the parts of evaluations share: targets (what answers a case), scorer specs and
// the scorer interface, and what the composition root hands the area (a model caller that goes
// through the proxy, so policy applies to model-target runs as to any agent traffic).
import type { RubricJudge } from '../../engine/detectors/judgment/rubric.js';
import type { Surface } from '../../engine/detectors/types.js';

/** The gateway's own pipeline on a surface; `candidate` (pack YAML) or `mode` change what policy it runs with. */
export interface GuardTarget {
  type: 'guard';
  /** Default `input`. */
  surface?: Surface;
  /** The agent the calls are decided for (its grants, scope and protections); default `eval`. */
  agent?: string;
  /** A bound policy key whose mode `mode` overrides (default: every bound policy keeps its own mode). */
  policy?: string;
  mode?: 'observe' | 'enforce';
  /** A candidate pack (policy YAML) evaluated in place of the bound policy of the same key. */
  candidate?: string;
}

/** A chat completion through the gateway's configured upstream, via the proxy. */
export interface ModelTarget {
  type: 'model';
  model: string;
  /** The agent the proxied calls speak for; default `eval`. */
  agent?: string;
  system?: string;
  temperature?: number;
  max_tokens?: number;
  /** Per-case timeout; default 30000, at most 120000. */
  timeout_ms?: number;
}

/** An agent's own OpenAI-compatible chat-completions endpoint, on a URL listed in `eval_http_targets`. */
export interface HttpTarget {
  type: 'http';
  url: string;
  model?: string;
  agent?: string;
  system?: string;
  timeout_ms?: number;
}

export type Target = GuardTarget | ModelTarget | HttpTarget;
export type TargetType = Target['type'];

/** A scorer as a run names it: a name, or a name with params and a threshold. */
export interface ScorerSpec {
  name: string;
  params?: Record<string, unknown>;
  /** Overrides the scorer's default threshold. */
  threshold?: number;
}

/** Everything a scorer may look at for one case (offline) or one recorded decision (online). */
export interface ScoreSubject {
  /** offline targets or `online` (recorded traffic). */
  source: TargetType | 'online';
  /** The text sent: a case's `input.text`, or its messages' contents joined by newlines; online: the recorded input content if kept. */
  input: string | null;
  /** The answer text (model/http; online: the recorded output content); guard: null. */
  output: string | null;
  /** The gateway's decision on the call (guard target; model target: the strongest of its checks; online: the recorded one). */
  decision: { verdict: string; effective_verdict: string; entities: string[]; rules: string[] } | null;
  /** Entity types the detectors found in the output (model/http: a trial on the output surface; online: the recorded output decision). */
  outputEntities: string[] | null;
  /** The gateway's policy stopped the call (the caller got the gateway's refusal). */
  blockedByGateway: boolean;
  latencyMs: number | null;
  costUsd: number | null;
  /** The target gave no answer (timeout, upstream error): every scorer fails the case with this reason. */
  error: string | null;
  expected: Record<string, unknown>;
  labels: readonly string[];
  context: Record<string, unknown>;
}

export interface ScoreOutcome {
  /** 0..1 for rates and judgments; milliseconds or dollars for latency and cost. */
  score: number | null;
  passed: boolean;
  threshold: number | null;
  reason: string;
}

export interface ScorerParam {
  name: string;
  type: 'string' | 'number' | 'boolean' | 'object' | 'array';
  required: boolean;
  description: string;
  default?: unknown;
}

/** What scorers may call on: the judgment tier for `judge`. */
export interface ScorerHelpers {
  /** Null when no judgment tier is configured; else asks the tier to score `output` against `rubric`, 0..1. */
  judge: RubricJudge | null;
}

export interface Scorer {
  name: string;
  description: string;
  params: readonly ScorerParam[];
  /** The targets whose subjects it can score. */
  appliesTo: ReadonlyArray<TargetType | 'online'>;
  /** What `threshold` means: a score at or above passes (`min`) or at or below (`max`); null: pass/fail only. */
  thresholdKind: 'min' | 'max' | null;
  defaultThreshold: number | null;
  /** Null: not applicable to this subject (e.g. over_refusal on a case not labelled benign); not counted. */
  score(subject: ScoreSubject, spec: ScorerSpec, helpers: ScorerHelpers): Promise<ScoreOutcome | null>;
}

/** One whole chat completion through the proxy's governed flow (src/areas/proxy), as an agent's call. */
export interface ModelCaller {
  complete(input: {
    agent: string;
    body: { model: string; messages: Array<{ role: string; content: string }>; temperature?: number; max_tokens?: number };
    traceId: string;
    signal?: AbortSignal;
  }): Promise<{ status: number; answer: Record<string, unknown> }>;
}
