// Targets: what answers one case of a run. guard: the gateway's own pipeline as a trial (no side
// effect), with a candidate pack or a mode applied through policies.replay(); model: a chat
// completion through the proxy's governed flow (ctx.model); http: an agent's own OpenAI-compatible
// endpoint on a URL the operator listed in eval_http_targets. Everything a run will refuse is
// refused when the target is prepared, before anything is stored.
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { SURFACES, type Surface } from '../../../engine/detectors/types.js';
import type { CompiledPack } from '../../../engine/policy/evaluate.js';
import { PackInvalid, parsePack } from '../../../engine/policy/parse.js';
import { orgPolicy, type BoundPolicy } from '../../../engine/policy/registry.js';
import type { Mode, Pack } from '../../../engine/policy/schema.js';
import { problem } from '../../../infra/http/problems.js';
import { PriceTable } from '../../usage/prices.js';
import type { EvalContext } from '../context.js';
import type { GuardTarget, HttpTarget, ModelTarget, ScoreSubject, Target } from '../types.js';
import type { TargetBody } from './schemas.js';
import { agentScope } from './store.js';

export const DEFAULT_AGENT = 'eval';
export const DEFAULT_TIMEOUT_MS = 30_000;
/** An answer text is kept up to this many characters. */
export const MAX_OUTPUT_CHARS = 65_536;
/** An http target's answer may be at most this many bytes. */
const MAX_HTTP_ANSWER_BYTES = 1_048_576;

/** Which fields each target type takes; any other is refused rather than ignored. */
const FIELDS: Record<Target['type'], ReadonlySet<string>> = {
  guard: new Set(['type', 'surface', 'agent', 'policy', 'mode', 'candidate']),
  model: new Set(['type', 'model', 'agent', 'system', 'temperature', 'max_tokens', 'timeout_ms']),
  http: new Set(['type', 'url', 'model', 'agent', 'system', 'timeout_ms']),
};

/** What a target made of one case: everything of a ScoreSubject but the case's own expectations. */
export type Answer = Pick<ScoreSubject, 'output' | 'decision' | 'outputEntities' | 'blockedByGateway' | 'latencyMs' | 'costUsd' | 'error'> & {
  /** What else the target reported (rules fired, blocked_by_gateway, usage), stored with the output. */
  detail: Record<string, unknown>;
};

export interface PreparedTarget {
  target: Target;
  answer(input: Record<string, unknown>, signal: AbortSignal): Promise<Answer>;
}

const refused = (field: string, detail: string) => problem('refused', detail, [{ field: `/body/target/${field}`, message: detail }]);

/** The target as given, checked against its type, with defaults filled in. Throws 422 naming the bad field. */
export function normalizeTarget(raw: TargetBody | undefined): Target {
  const body: TargetBody = raw ?? { type: 'guard' };
  for (const field of Object.keys(body)) {
    if (!FIELDS[body.type].has(field)) throw refused(field, `a ${body.type} target takes no ${field}`);
  }
  const agent = body.agent ?? DEFAULT_AGENT;
  if (body.type === 'guard') {
    const target: GuardTarget = { type: 'guard', agent, surface: body.surface ?? 'input' };
    if (body.policy !== undefined) target.policy = body.policy;
    if (body.mode !== undefined) target.mode = body.mode;
    if (body.candidate !== undefined) target.candidate = body.candidate;
    if (body.policy !== undefined && body.mode === undefined && body.candidate === undefined) throw refused('policy', 'policy names whose mode to change: give mode (or a candidate) with it');
    return target;
  }
  const timeout = body.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  if (body.type === 'model') {
    if (body.model === undefined) throw refused('model', 'a model target needs model');
    const target: ModelTarget = { type: 'model', model: body.model, agent, timeout_ms: timeout };
    if (body.system !== undefined) target.system = body.system;
    if (body.temperature !== undefined) target.temperature = body.temperature;
    if (body.max_tokens !== undefined) target.max_tokens = body.max_tokens;
    return target;
  }
  if (body.url === undefined) throw refused('url', 'an http target needs url');
  const target: HttpTarget = { type: 'http', url: body.url, agent, timeout_ms: timeout };
  if (body.model !== undefined) target.model = body.model;
  if (body.system !== undefined) target.system = body.system;
  return target;
}

/** A target ready to answer cases. Throws 422 for what would make every case fail (a bad candidate, an unlisted URL, no model upstream). */
export async function prepareTarget(target: Target, ctx: EvalContext): Promise<PreparedTarget> {
  if (target.type === 'guard') return prepareGuard(target, ctx);
  if (target.type === 'model') {
    const model = ctx.model;
    if (model === null || ctx.config.upstream_openai_api_key === null) throw refused('type', 'a model target needs upstream_openai_api_key: the gateway has no chat-completions upstream to send cases to');
    const prices = new PriceTable(ctx.config.model_prices);
    return {
      target,
      answer: (input, signal) =>
        timed(target.timeout_ms ?? DEFAULT_TIMEOUT_MS, signal, async (bounded) => {
          const started = performance.now();
          const { status, answer } = await model.complete({
            agent: target.agent ?? DEFAULT_AGENT,
            body: {
              model: target.model,
              messages: messagesOf(input, target.system),
              ...(target.temperature === undefined ? {} : { temperature: target.temperature }),
              ...(target.max_tokens === undefined ? {} : { max_tokens: target.max_tokens }),
            },
            traceId: randomBytes(16).toString('hex'),
            signal: bounded,
          });
          return completionAnswer(ctx, target, { status, answer, latencyMs: performance.now() - started }, prices, bounded, true);
        }),
    };
  }
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    throw refused('url', `${target.url} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refused('url', 'an http target URL is http or https');
  if (!ctx.config.eval_http_targets.some((prefix) => listedUnder(url, target.url, prefix))) {
    throw refused('url', `${target.url} does not start with any URL listed in the setting eval_http_targets`);
  }
  const prices = new PriceTable(ctx.config.model_prices);
  return {
    target,
    answer: (input, signal) =>
      timed(target.timeout_ms ?? DEFAULT_TIMEOUT_MS, signal, async (bounded) => {
        const started = performance.now();
        const { status, answer } = await postChat(url, { model: target.model ?? 'default', messages: messagesOf(input, target.system) }, bounded);
        return completionAnswer(ctx, target, { status, answer, latencyMs: performance.now() - started }, prices, bounded, false);
      }),
  };
}

async function prepareGuard(target: GuardTarget, ctx: EvalContext): Promise<PreparedTarget> {
  const agent = target.agent ?? DEFAULT_AGENT;
  const packs = await guardPacks(target, agent, ctx);
  const defaultSurface = target.surface ?? 'input';
  return {
    target,
    async answer(input) {
      const surface = input.surface ?? defaultSurface;
      if (typeof surface !== 'string' || !(SURFACES as readonly string[]).includes(surface)) {
        return failed(`input.surface ${JSON.stringify(surface)} is not one of ${SURFACES.join(', ')}`);
      }
      const args = isObject(input.arguments) ? input.arguments : undefined;
      const text = textOf(input);
      const content = text ?? (args === undefined ? '' : JSON.stringify(args));
      const started = performance.now();
      const decision = await ctx.pipeline.trial(
        {
          agent,
          surface: surface as Surface,
          content,
          ...(typeof input.tool === 'string' ? { tool: input.tool } : {}),
          ...(args === undefined ? {} : { arguments: args }),
        },
        packs === null ? {} : { packs },
      );
      const rules = decision.rules_fired.map((rule) => rule.rule_id);
      return {
        output: null,
        decision: { verdict: decision.verdict, effective_verdict: decision.effective_verdict, entities: decision.entities, rules },
        outputEntities: null,
        blockedByGateway: decision.verdict === 'block',
        latencyMs: performance.now() - started,
        costUsd: null,
        error: null,
        detail: { rules, effective_verdict: decision.effective_verdict, mode: decision.mode, reason: decision.reason },
      };
    },
  };
}

/**
 * The compiled packs a guard target runs with, or null for the live set. A candidate replaces the
 * bound policy of its key (or is added at org level); `mode` applies to `policy`, or without one to
 * every bound policy and the candidate.
 */
async function guardPacks(target: GuardTarget, agent: string, ctx: EvalContext): Promise<CompiledPack[] | null> {
  if (target.candidate === undefined && target.mode === undefined) return null;
  const replacements = new Map<string, BoundPolicy>();
  if (target.candidate !== undefined) {
    let pack: Pack;
    try {
      pack = parsePack(target.candidate);
    } catch (error) {
      if (!(error instanceof PackInvalid)) throw error;
      throw problem(
        'refused',
        `the candidate policy is not valid: ${error.message}`,
        error.errors.map((item) => ({ field: '/body/target/candidate', message: `${item.line === undefined ? '' : `line ${item.line}: `}${item.path || '/'} ${item.message}` })),
      );
    }
    const existing = ctx.policies.policy(pack.key);
    // A candidate that does not say its mode keeps the bound policy's, as a new version of it would.
    const mode: Mode = /^mode\s*:/m.test(target.candidate) ? pack.mode : (existing?.mode ?? pack.mode);
    replacements.set(pack.key, existing === undefined ? orgPolicy(pack, 'eval', mode) : { ...existing, pack, mode });
  }
  if (target.mode !== undefined) {
    if (target.policy !== undefined) {
      const named = replacements.get(target.policy) ?? ctx.policies.policy(target.policy);
      if (named === undefined) throw refused('policy', `no bound policy with key ${target.policy}`);
      replacements.set(named.key, { ...named, mode: target.mode });
    } else {
      for (const policy of ctx.policies.list()) if (!replacements.has(policy.key)) replacements.set(policy.key, { ...policy, mode: target.mode });
      for (const [key, policy] of replacements) replacements.set(key, { ...policy, mode: target.mode });
    }
  }
  const scope = (await agentScope(ctx.store.db, agent)) ?? { team: null, environment: null };
  const subject = { agent, ...scope };
  // replay() replaces one policy at a time: take each replaced policy's compiled pack from its own
  // replay, in the order of the live set; new keys come last.
  const base = ctx.policies.replay(subject, null);
  const replaced = new Map<string, CompiledPack>();
  for (const [key, policy] of replacements) {
    const pack = ctx.policies.replay(subject, policy).find((compiled) => compiled.key === key);
    if (pack !== undefined) replaced.set(key, pack);
  }
  const packs = base.map((pack) => replaced.get(pack.key) ?? pack);
  for (const [key, pack] of replaced) if (!base.some((compiled) => compiled.key === key)) packs.push(pack);
  return packs;
}

async function completionAnswer(
  ctx: EvalContext,
  target: ModelTarget | HttpTarget,
  { status, answer, latencyMs }: { status: number; answer: Record<string, unknown>; latencyMs: number },
  prices: PriceTable,
  signal: AbortSignal,
  governed: boolean,
): Promise<Answer> {
  if (status !== 200) {
    const error = answer.error as { message?: unknown } | undefined;
    const message = typeof error?.message === 'string' ? error.message : answer.detail;
    return failed(`the target answered HTTP ${status}${typeof message === 'string' ? `: ${message.slice(0, 500)}` : ''}`);
  }
  const choices = Array.isArray(answer.choices) ? (answer.choices as unknown[]) : [];
  const message = isObject(choices[0]) && isObject(choices[0].message) ? choices[0].message : undefined;
  const content = typeof message?.content === 'string' ? message.content : null;
  const field = governed && isObject(answer.parapet) ? answer.parapet : null;
  const decision = field === null ? null : decisionOf(field);
  const blocked = field !== null && decision !== null && ((field.forwarded === false && decision.verdict !== 'allow') || decision.verdict === 'block');
  let outputEntities: string[] = [];
  if (content !== null && content !== '') {
    if (signal.aborted) throw signal.reason;
    const check = await ctx.pipeline.trial({ agent: target.agent ?? DEFAULT_AGENT, surface: 'output', content });
    outputEntities = check.entities;
  }
  const usage = isObject(answer.usage) ? answer.usage : null;
  const tokens = usage === null ? null : { prompt_tokens: Number(usage.prompt_tokens ?? 0) || 0, completion_tokens: Number(usage.completion_tokens ?? 0) || 0 };
  const model = target.type === 'model' ? target.model : (typeof answer.model === 'string' ? answer.model : (target.model ?? ''));
  const cost = tokens === null ? null : prices.costOf(model, tokens);
  return {
    output: content === null ? null : content.slice(0, MAX_OUTPUT_CHARS),
    decision,
    outputEntities,
    blockedByGateway: blocked,
    latencyMs,
    costUsd: cost,
    error: null,
    detail: { blocked_by_gateway: blocked, usage: tokens, ...(decision === null ? {} : { rules: decision.rules, effective_verdict: decision.effective_verdict }) },
  };
}

function decisionOf(field: Record<string, unknown>): ScoreSubject['decision'] {
  const verdict = typeof field.verdict === 'string' ? field.verdict : 'allow';
  const rules = Array.isArray(field.rules_fired)
    ? field.rules_fired.flatMap((rule) => (isObject(rule) && typeof rule.rule_id === 'string' ? [rule.rule_id] : []))
    : [];
  return {
    verdict,
    effective_verdict: typeof field.effective_verdict === 'string' ? field.effective_verdict : verdict,
    entities: Array.isArray(field.entities) ? field.entities.filter((entity): entity is string => typeof entity === 'string') : [],
    rules,
  };
}

/** POSTs a chat-completions body to an agent's own endpoint: no gateway credential, no redirect, the answer capped. */
async function postChat(url: URL, body: Record<string, unknown>, signal: AbortSignal): Promise<{ status: number; answer: Record<string, unknown> }> {
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ ...body, stream: false }),
    signal,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_HTTP_ANSWER_BYTES) {
      response.body.destroy();
      throw new TargetError(`the target answered more than ${MAX_HTTP_ANSWER_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  if (response.statusCode >= 300 && response.statusCode < 400) throw new TargetError(`the target answered HTTP ${response.statusCode} (redirects are not followed)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    if (response.statusCode !== 200) return { status: response.statusCode, answer: {} };
    throw new TargetError('the target answered something that is not JSON');
  }
  return { status: response.statusCode, answer: isObject(parsed) ? parsed : {} };
}

/** A target failure that is the case's outcome (its error), not the run's. */
class TargetError extends Error {}

/**
 * Runs one answer under the per-case timeout; a timeout or a target failure becomes the case's
 * error. The run's own abort (a lost job lease) is rethrown: the run stops.
 */
async function timed(timeoutMs: number, signal: AbortSignal, work: (bounded: AbortSignal) => Promise<Answer>): Promise<Answer> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const bounded = AbortSignal.any([signal, timeout]);
  try {
    return await work(bounded);
  } catch (error) {
    if (signal.aborted) throw error;
    if (timeout.aborted) return failed(`no answer within ${timeoutMs} ms`);
    return failed(error instanceof TargetError ? error.message : `the target failed: ${(error as Error).message}`);
  }
}

function failed(error: string): Answer {
  return { output: null, decision: null, outputEntities: null, blockedByGateway: false, latencyMs: null, costUsd: null, error, detail: {} };
}

/** A case's input as text: `text`, or its messages' contents joined by newlines. */
export function textOf(input: Record<string, unknown>): string | null {
  if (typeof input.text === 'string') return input.text;
  if (Array.isArray(input.messages)) {
    return input.messages.map((message) => (isObject(message) && typeof message.content === 'string' ? message.content : '')).join('\n');
  }
  return null;
}

function messagesOf(input: Record<string, unknown>, system: string | undefined): Array<{ role: string; content: string }> {
  const messages: Array<{ role: string; content: string }> = system === undefined ? [] : [{ role: 'system', content: system }];
  if (Array.isArray(input.messages)) {
    for (const message of input.messages) {
      if (isObject(message) && typeof message.role === 'string' && typeof message.content === 'string') messages.push({ role: message.role, content: message.content });
    }
  } else {
    messages.push({ role: 'user', content: typeof input.text === 'string' ? input.text : '' });
  }
  return messages;
}

/**
 * Whether a URL is under a listed prefix: the text starts with it, and the parsed URL has the
 * prefix's origin and path — `http://host:1@elsewhere/` starts with `http://host:1` but is not on it.
 */
function listedUnder(url: URL, text: string, prefix: string): boolean {
  if (!text.startsWith(prefix)) return false;
  let listed: URL;
  try {
    listed = new URL(prefix);
  } catch {
    return false;
  }
  return url.username === '' && url.password === '' && url.origin === listed.origin && url.pathname.startsWith(listed.pathname);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
