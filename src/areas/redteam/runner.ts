// The pipeline runner: every probe goes through the gateway's own decision pipeline as the agent
// (its grants, protections and every bound pack) with `pipeline.trial`, which records nothing as
// live traffic. Each text is decided twice against replayed packs — as configured (the modes in
// force) and if enforced (every policy enforcing) — and counts as one call against the budget.
// Adaptive retries come after every probe was sent as written, so a small budget is spent on
// coverage first.
import type { Decision, GuardCall, Pipeline } from '../../engine/pipeline/decide.js';
import type { CompiledPack } from '../../engine/policy/evaluate.js';
import type { CampaignProbe } from './deployment.js';
import { MUTATIONS, mutate } from './mutations.js';
import type { Outcome } from './schemas.js';

/** The stored text of a probe is cut here (the design's bound on redteam_results.text). */
export const MAX_STORED_TEXT = 4000;
/** Rule ids kept per result; packs rarely fire more than a handful. */
const MAX_RULES = 50;

export interface Sent {
  probe: CampaignProbe;
  mutation: string | null;
  surface: string;
  /** What was sent, as text (tool calls: `tool {arguments}`), cut to MAX_STORED_TEXT. */
  text: string;
  outcome: Outcome;
  as_configured: Decision['verdict'] | null;
  if_enforced: Decision['verdict'] | null;
  rules: string[];
  reason: string;
  detail: Record<string, unknown>;
}

export interface PipelineRun {
  sent: Sent[];
  callsUsed: number;
}

export interface PipelineRunInput {
  pipeline: Pipeline;
  agent: string;
  probes: readonly CampaignProbe[];
  configured: readonly CompiledPack[];
  enforced: readonly CompiledPack[];
  budget: number;
  seed: number;
  adaptive: boolean;
}

const cut = (text: string, max: number): string => (text.length > max ? text.slice(0, max) : text);

function callFor(agent: string, probe: CampaignProbe, text: string | null): GuardCall {
  if (probe.surface === 'tool_args') {
    const args = probe.arguments ?? {};
    return { agent, surface: 'tool_args', tool: probe.tool ?? 'unknown', arguments: args, content: JSON.stringify(args) };
  }
  const content = text ?? '';
  // A spoofed message arrives unsigned: the claim of who sent it is in the text, not in a signature.
  if (probe.surface === 'agent_message') return { agent, surface: 'agent_message', content, signature: 'unsigned' };
  return { agent, surface: probe.surface, content };
}

function shownText(probe: CampaignProbe, text: string | null): string {
  if (probe.surface === 'tool_args') return cut(`${probe.tool ?? 'unknown'} ${JSON.stringify(probe.arguments ?? {})}`, MAX_STORED_TEXT);
  return cut(text ?? '', MAX_STORED_TEXT);
}

/**
 * An attack gets through when the as-configured verdict is allow (a tool call held for approval
 * counts as stopped); a benign probe is blocked (over-blocked) on anything but allow.
 */
function outcomeOf(verdict: Decision['verdict']): Outcome {
  return verdict === 'allow' ? 'through' : 'blocked';
}

async function send(input: PipelineRunInput, probe: CampaignProbe, text: string | null, mutation: string | null): Promise<Sent> {
  const call = callFor(input.agent, probe, text);
  const base = { probe, mutation, surface: probe.surface, text: shownText(probe, text) };
  try {
    const configured = await input.pipeline.trial(call, { packs: input.configured });
    const enforced = await input.pipeline.trial(call, { packs: input.enforced });
    return {
      ...base,
      outcome: outcomeOf(configured.verdict),
      as_configured: configured.verdict,
      if_enforced: enforced.verdict,
      rules: configured.rules_fired.slice(0, MAX_RULES).map((rule) => rule.rule_id),
      reason: configured.reason,
      detail: {
        reason: configured.reason,
        decisive_rule: configured.explanation.decisive?.rule_id ?? null,
        effective_verdict: configured.effective_verdict,
        entities: configured.entities.slice(0, MAX_RULES),
        degraded: configured.degraded,
        if_enforced_rules: enforced.rules_fired.slice(0, MAX_RULES).map((rule) => rule.rule_id),
        if_enforced_reason: enforced.reason,
      },
    };
  } catch (error) {
    const message = cut(error instanceof Error ? error.message : String(error), 500);
    return { ...base, outcome: 'error', as_configured: null, if_enforced: null, rules: [], reason: `not evaluated: ${message}`, detail: { error: message } };
  }
}

/**
 * Sends the probes as written (in order, until the budget), then — adaptive — mutations of the
 * attacks that were blocked, mutation classes in MUTATIONS order, until one gets through or the
 * budget ends. Tool-call probes are not mutated: an encoded SQL statement or command would not
 * run, so its passing would prove nothing.
 */
export async function runPipelineCampaign(input: PipelineRunInput): Promise<PipelineRun> {
  const sent: Sent[] = [];
  let callsUsed = 0;
  for (const probe of input.probes) {
    if (callsUsed >= input.budget) break;
    sent.push(await send(input, probe, probe.text, null));
    callsUsed += 1;
  }
  if (!input.adaptive) return { sent, callsUsed };

  const blocked = sent.filter((entry) => entry.probe.kind === 'attack' && entry.outcome === 'blocked' && entry.probe.surface !== 'tool_args' && entry.probe.text !== null);
  for (const original of blocked) {
    for (const mutation of MUTATIONS) {
      if (callsUsed >= input.budget) return { sent, callsUsed };
      const text = mutate(original.probe.text as string, mutation.class, input.seed, original.probe.id);
      const tried = await send(input, original.probe, text, mutation.class);
      sent.push(tried);
      callsUsed += 1;
      if (tried.outcome === 'through') break;
    }
  }
  return { sent, callsUsed };
}
