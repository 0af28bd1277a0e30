// The judgment posture (spec 02 "Detectors and guardrail feedback", spec 01 §7.5): which tiers the
// judgment detectors ask, what personal data may leave the machine, and what a failed judgment
// means. The operator stores it through PUT /api/judgment/posture (src/areas/judgment); until then
// it follows the settings (`judgment_tiers`). `JudgmentState` is the copy in memory the detectors
// read: no I/O on the hot path.
import { explicitTiers, parseTier, type JudgmentTier } from './tiers.js';

export const PII_EGRESS = ['block', 'redact', 'allow'] as const;
export type PiiEgress = (typeof PII_EGRESS)[number];
export const BACKENDS = ['local', 'remote', 'auto'] as const;
export type Backend = (typeof BACKENDS)[number];

export interface JudgmentPosture {
  /** Tier strings in the order they are asked (see tiers.ts); `deterministic` is implicit. */
  tiers: string[];
  /** Personal data found by pii.native in text bound for a hosted tier: block (never sent), redact (masked first), allow. */
  pii_egress: PiiEgress;
  /** When no tier answers: true reports the detector as failed (degraded check); false lets the deterministic tier stand. */
  fail_closed: boolean;
  /** local: local tiers only; remote: hosted tiers only; auto: every tier, in order. */
  backend: Backend;
}

/** What the deployment allows, from the settings. */
export interface JudgmentDeployment {
  allowEgress: boolean;
}

/** The posture a deployment starts with, before an operator stores one. */
export function defaultPosture(judgmentTiers: readonly string[]): JudgmentPosture {
  return { tiers: explicitTiers(judgmentTiers), pii_egress: 'block', fail_closed: true, backend: 'auto' };
}

/** Why the deployment does not permit this posture; empty when it does. */
export function postureRefusals(posture: JudgmentPosture, deployment: JudgmentDeployment): string[] {
  const refusals: string[] = [];
  for (const spec of explicitTiers(posture.tiers)) {
    const tier = parseTier(spec);
    if ('error' in tier) refusals.push(tier.error);
    else if (tier.kind === 'hosted' && !deployment.allowEgress) refusals.push(`tier ${tier.name} is hosted and allow_egress is false`);
  }
  if (posture.backend === 'remote' && !deployment.allowEgress) refusals.push('backend remote sends payloads off the machine and allow_egress is false');
  return refusals;
}

/** The tiers a judgment asks, in order, or why there is none. */
export function usableTiers(posture: JudgmentPosture, deployment: JudgmentDeployment): { tiers: JudgmentTier[]; reason: string | null } {
  const specs = explicitTiers(posture.tiers);
  if (specs.length === 0) {
    return { tiers: [], reason: 'needs a judgment tier in judgment_tiers or the judgment posture (hosted tiers also need allow_egress); none configured' };
  }
  const tiers: JudgmentTier[] = [];
  const skipped: string[] = [];
  for (const spec of specs) {
    const tier = parseTier(spec);
    if ('error' in tier) skipped.push(tier.error);
    else if (posture.backend === 'local' && tier.kind === 'hosted') skipped.push(`tier ${tier.name} is hosted and the backend is local`);
    else if (posture.backend === 'remote' && tier.kind === 'local') skipped.push(`tier ${tier.name} is local and the backend is remote`);
    else if (tier.kind === 'hosted' && !deployment.allowEgress) skipped.push(`tier ${tier.name} is hosted and needs allow_egress`);
    else tiers.push(tier);
  }
  return { tiers, reason: tiers.length > 0 ? null : `no usable judgment tier: ${skipped.join('; ')}` };
}

/** Whether a posture sends payloads off the machine: a hosted tier it would ask. */
export function sendsOffMachine(posture: JudgmentPosture): boolean {
  if (posture.backend === 'local') return false;
  return explicitTiers(posture.tiers).some((spec) => {
    const tier = parseTier(spec);
    return !('error' in tier) && tier.kind === 'hosted';
  });
}

/** Whether `after` handles personal data more loosely than `before` (block → redact → allow). */
export function loosensPii(before: JudgmentPosture, after: JudgmentPosture): boolean {
  return PII_EGRESS.indexOf(after.pii_egress) > PII_EGRESS.indexOf(before.pii_egress);
}

export interface JudgmentStats {
  calls: number;
  answered: number;
  /** Tier calls that failed (error status, timeout, unreadable answer). */
  tier_failures: number;
  /** Judgments no tier answered. */
  unanswered: number;
  last_error: string | null;
}

/** The posture in force in this process, and what the judgment detectors saw. */
export class JudgmentState {
  private current: JudgmentPosture;
  private usable: { tiers: JudgmentTier[]; reason: string | null };
  readonly stats: JudgmentStats = { calls: 0, answered: 0, tier_failures: 0, unanswered: 0, last_error: null };

  constructor(
    posture: JudgmentPosture,
    readonly deployment: JudgmentDeployment,
    /** Reads a tier's key from the environment variable it names (given by the composition root). */
    readonly apiKey: (envName: string) => string | undefined = () => undefined,
  ) {
    this.current = posture;
    this.usable = usableTiers(posture, deployment);
  }

  get posture(): JudgmentPosture {
    return this.current;
  }

  set(posture: JudgmentPosture): void {
    this.current = posture;
    this.usable = usableTiers(posture, this.deployment);
  }

  tiers(): { tiers: readonly JudgmentTier[]; reason: string | null } {
    return this.usable;
  }

  failed(message: string): void {
    this.stats.tier_failures += 1;
    this.stats.last_error = message;
  }
}
