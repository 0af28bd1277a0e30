// The posture score of one agent: a pure function of facts the service gathers, so that the
// formula lives in one place and reads as a table.

export interface PostureFacts {
  registered: boolean;
  control: 'active' | 'quarantined' | 'killed';
  owner: string | null;
  wildcardGrants: number;
  /** Grants on high-impact tools (registry impact high or critical, or a name that acts) without max_taint. */
  highImpactWithoutMaxTaint: string[];
  openCritical: number;
  openHigh: number;
  signingKey: boolean;
  sendsMessages: boolean;
}

export interface PostureScore {
  score: number;
  grade: 'A' | 'B' | 'C' | 'D' | 'F';
  gaps: string[];
}

/**
 * Score = 100, minus:
 * - 30 when the agent holds a `*` grant (every tool, present and future);
 * - 15 when it has no owner (owner_email or owner_team);
 * - 20 per open critical finding, at most 40;
 * - 10 per open high finding, at most 30;
 * - 5 per grant on a high-impact tool without max_taint (arguments from any source, even content
 *   that carried an injection, may drive the call);
 * - 10 when it sent agent messages in the last 30 days and has no signing key (recipients cannot
 *   tell its messages from forged ones);
 * floored at 0. Quarantined, killed or unregistered agents are named in `gaps` without a
 * deduction: stopping an agent is a response, not a weakness. Grade: A ≥ 90, B ≥ 80, C ≥ 70,
 * D ≥ 60, F below.
 */
export function scorePosture(facts: PostureFacts): PostureScore {
  const gaps: string[] = [];
  let score = 100;
  const deduct = (points: number, gap: string) => {
    if (points <= 0) return;
    score -= points;
    gaps.push(`${gap} (-${points})`);
  };
  if (facts.wildcardGrants > 0) deduct(30, 'holds a * grant: every tool is allowed, including tools added later');
  if (facts.owner === null) deduct(15, 'no owner: set owner_email or owner_team');
  if (facts.openCritical > 0) deduct(Math.min(40, 20 * facts.openCritical), `${facts.openCritical} open critical finding(s)`);
  if (facts.openHigh > 0) deduct(Math.min(30, 10 * facts.openHigh), `${facts.openHigh} open high finding(s)`);
  for (const tool of facts.highImpactWithoutMaxTaint) deduct(5, `grant on high-impact tool ${tool} without max_taint`);
  if (facts.sendsMessages && !facts.signingKey) deduct(10, 'sends agent messages without a signing key');
  if (facts.control !== 'active') gaps.push(`${facts.control} (no deduction)`);
  if (!facts.registered) gaps.push('not registered (no deduction)');
  score = Math.max(0, score);
  const grade = score >= 90 ? 'A' : score >= 80 ? 'B' : score >= 70 ? 'C' : score >= 60 ? 'D' : 'F';
  return { score, grade, gaps };
}
