// GET /api/attention: one ranked list of what needs a person now, across open findings, held
// calls, stopped and unowned agents and dead jobs. Read-only; each source is a bounded query.
import type { Clock } from '../../infra/lib/clock.js';
import type { Store } from '../../infra/store/db.js';
import type { AttentionItem } from './schemas.js';
import { deadJobs, openFindingsForAttention, pendingApprovals, stoppedAgents, unownedAgents } from './store.js';

/** The longest list answered; each source reads at most this many candidates. */
export const ATTENTION_LIMIT = 100;

/**
 * The score (higher first):
 * - open finding: severity weight (critical 100, high 60, medium 30, low 10)
 *   × (1 + log10(occurrences)), + 25 when last seen within `hours`;
 * - pending approval (not expired): 80, + 20 when it expires within 2 hours (the held call is lost);
 * - agent killed or quarantined: 70;
 * - dead job: 50;
 * - registered agent with neither owner_email nor owner_team: 40.
 * So a critical finding outranks everything; a held call outranks a lone high finding, which a
 * repeated or recent one overtakes; a low finding climbs only by recurring a lot.
 */
export const SEVERITY_WEIGHT = { critical: 100, high: 60, medium: 30, low: 10 } as const;
export const RECENCY_BONUS = 25;
export const APPROVAL_SCORE = 80;
export const APPROVAL_EXPIRING_BONUS = 20;
export const APPROVAL_EXPIRING_MS = 2 * 3_600_000;
export const STOPPED_AGENT_SCORE = 70;
export const DEAD_JOB_SCORE = 50;
export const UNOWNED_AGENT_SCORE = 40;

export function findingScore(severity: keyof typeof SEVERITY_WEIGHT, occurrences: number, recent: boolean): number {
  return SEVERITY_WEIGHT[severity] * (1 + Math.log10(Math.max(1, occurrences))) + (recent ? RECENCY_BONUS : 0);
}

const round = (value: number): number => Math.round(value * 100) / 100;

export class AttentionService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async list(hours: number): Promise<{ items: AttentionItem[]; next_cursor: null; hours: number }> {
    const db = this.store.db;
    const now = this.clock.now();
    const since = new Date(now.getTime() - hours * 3_600_000).toISOString();
    const items: AttentionItem[] = [];

    for (const severity of Object.keys(SEVERITY_WEIGHT) as Array<keyof typeof SEVERITY_WEIGHT>) {
      for (const recent of [true, false]) {
        for (const row of await openFindingsForAttention(db, severity, since, recent, ATTENTION_LIMIT)) {
          const occurrences = Number(row.occurrences);
          items.push({
            kind: 'finding',
            id: row.id,
            title: row.title,
            severity,
            score: round(findingScore(severity, occurrences, recent)),
            why: `open ${severity} ${row.type} finding, ${occurrences} occurrence${occurrences === 1 ? '' : 's'}, last seen ${row.last_seen_at}${recent ? ` (within ${hours} h)` : ''}`,
            link: `/api/findings/${row.id}`,
          });
        }
      }
    }

    for (const row of await pendingApprovals(db, now.toISOString(), ATTENTION_LIMIT)) {
      const leftMs = Date.parse(row.expires_at) - now.getTime();
      const expiring = leftMs <= APPROVAL_EXPIRING_MS;
      items.push({
        kind: 'approval',
        id: row.id,
        title: `Call to ${row.tool} by ${row.agent} held for approval`,
        severity: 'high',
        score: APPROVAL_SCORE + (expiring ? APPROVAL_EXPIRING_BONUS : 0),
        why: `pending approval; it expires at ${row.expires_at}${expiring ? ', within 2 h' : ''}`,
        link: `/api/approvals/${row.id}`,
      });
    }

    for (const row of await stoppedAgents(db, ATTENTION_LIMIT)) {
      items.push({
        kind: 'agent_control',
        id: row.id,
        title: `Agent ${row.slug} is ${row.control}`,
        severity: row.control === 'killed' ? 'critical' : 'high',
        score: STOPPED_AGENT_SCORE,
        why: `${row.control}${row.control_at === null ? '' : ` since ${row.control_at}`}${row.control_reason === null ? '' : `: ${row.control_reason}`}; resume it or retire it`,
        link: `/api/agents/${row.slug}`,
      });
    }

    for (const row of await deadJobs(db, ATTENTION_LIMIT)) {
      items.push({
        kind: 'dead_job',
        id: row.id,
        title: `Job ${row.kind} failed permanently`,
        severity: 'medium',
        score: DEAD_JOB_SCORE,
        why: `dead after ${row.attempts} attempt${row.attempts === 1 ? '' : 's'}${row.last_error === null ? '' : `: ${row.last_error.slice(0, 200)}`}; retry it or look into it`,
        link: `/api/jobs/${row.id}`,
      });
    }

    for (const row of await unownedAgents(db, ATTENTION_LIMIT)) {
      items.push({
        kind: 'unowned_agent',
        id: row.id,
        title: `Agent ${row.slug} has no owner`,
        severity: 'medium',
        score: UNOWNED_AGENT_SCORE,
        why: 'registered without owner_email or owner_team: nobody answers for it',
        link: `/api/agents/${row.slug}`,
      });
    }

    items.sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    return { items: items.slice(0, ATTENTION_LIMIT), next_cursor: null, hours };
  }
}
