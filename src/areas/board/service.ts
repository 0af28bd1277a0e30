// GET /api/board: one page for leadership over the last `days` and the same length before it.
// The counts read many decisions, so they run in a report reader thread (boardCounts, through
// report-jobs.ts); the control roll-up comes from the compliance area's latest results.
import type { Clock } from '../../infra/lib/clock.js';
import type { ReadStore, Reports } from '../../infra/store/reader.js';
import type { ComplianceStatus } from '../compliance/schemas.js';
import type { Board } from './schemas.js';
import * as store from './store.js';

const DAY_MS = 86_400_000;
const SEVERITY_ORDER = ['critical', 'high', 'medium', 'low'];
const MAX_SLUGS = 50;

export interface BoardCountsQuery {
  days: number;
}

export type BoardCounts = Omit<Board, 'controls'>;

const trend = (current: number, previous: number) => ({ current, previous, delta: current - previous });

/** Everything on the board but the controls, read in a reader thread. */
export async function boardCounts(readStore: ReadStore, clock: Clock, query: BoardCountsQuery): Promise<BoardCounts> {
  const { db } = readStore;
  const now = clock.now().getTime();
  const iso = (ms: number) => new Date(ms).toISOString();
  const to = iso(now);
  const from = iso(now - query.days * DAY_MS);
  const previousFrom = iso(now - 2 * query.days * DAY_MS);

  const [agents, classes, current, previous, approvals, ages, openedNow, openedBefore] = await Promise.all([
    store.agentsForBoard(db),
    store.latestClasses(db),
    store.verdictCounts(db, from, to),
    store.verdictCounts(db, previousFrom, from),
    store.approvalsRequested(db, from, to),
    store.openFindingAges(db, iso(now - DAY_MS), iso(now - 7 * DAY_MS)),
    store.findingsOpened(db, from, to),
    store.findingsOpened(db, previousFrom, from),
  ]);

  const groups = new Map<string, { class: string; source: 'risk_assessment' | 'risk_tier' | 'none'; count: number; agents: string[] }>();
  for (const agent of agents) {
    const assessed = classes?.get(agent.slug);
    const [klass, source] =
      assessed !== undefined ? [assessed, 'risk_assessment' as const] : agent.risk_tier !== null ? [agent.risk_tier, 'risk_tier' as const] : ['unclassified', 'none' as const];
    const id = `${source}\0${klass}`;
    const group = groups.get(id) ?? { class: klass, source, count: 0, agents: [] };
    group.count += 1;
    if (group.agents.length < MAX_SLUGS) group.agents.push(agent.slug);
    groups.set(id, group);
  }

  const rank = (severity: string) => (SEVERITY_ORDER.includes(severity) ? SEVERITY_ORDER.indexOf(severity) : SEVERITY_ORDER.length);
  const bySeverity = SEVERITY_ORDER.map((severity) => ({ severity, under_1d: 0, days_1_to_7: 0, over_7d: 0, ...ages.find((row) => row.severity === severity) }))
    .concat(ages.filter((row) => !SEVERITY_ORDER.includes(row.severity)))
    .map((row) => ({ severity: row.severity, open: row.under_1d + row.days_1_to_7 + row.over_7d, under_1d: row.under_1d, days_1_to_7: row.days_1_to_7, over_7d: row.over_7d }))
    .sort((a, b) => rank(a.severity) - rank(b.severity));
  const sum = (key: 'under_1d' | 'days_1_to_7' | 'over_7d') => bySeverity.reduce((total, row) => total + row[key], 0);

  return {
    period: { days: query.days, from, to, previous_from: previousFrom },
    agents: {
      total: agents.length,
      by_class: [...groups.values()].sort((a, b) => b.count - a.count || a.class.localeCompare(b.class)),
      assessments_recorded: classes !== null,
    },
    calls: { blocked: current.blocked, held: current.held, approvals_requested: approvals },
    findings: {
      open: bySeverity.reduce((total, row) => total + row.open, 0),
      by_age: { under_1d: sum('under_1d'), days_1_to_7: sum('days_1_to_7'), over_7d: sum('over_7d') },
      by_severity: bySeverity,
      opened_in_period: openedNow,
    },
    trend: { blocked: trend(current.blocked, previous.blocked), held: trend(current.held, previous.held), findings_opened: trend(openedNow, openedBefore) },
  };
}

export interface BoardDeps {
  reports: Reports<{ 'board.counts': typeof boardCounts }>;
  /** The compliance roll-up per framework (latest control results). */
  complianceStatus: () => Promise<ComplianceStatus>;
}

export class BoardService {
  constructor(private readonly deps: BoardDeps) {}

  async board(days: number): Promise<Board> {
    const [counts, status] = await Promise.all([
      this.deps.reports.run('board.counts', { days }),
      // No catalogue or no results yet: the board still answers, with controls not computed.
      this.deps.complianceStatus().catch((): ComplianceStatus => ({ computed_at: null, frameworks: [] })),
    ]);
    const computed = status.computed_at !== null;
    return {
      ...counts,
      controls: {
        computed_at: status.computed_at,
        frameworks: status.frameworks.map((framework) => ({
          key: framework.key,
          title: framework.title,
          status: computed ? ('computed' as const) : ('not_computed' as const),
          pass_rate: computed ? framework.pass_rate : null,
          clauses: framework.clauses,
          covered: framework.covered,
          failing: framework.failing,
          not_evidenced: framework.not_evidenced,
        })),
      },
    };
  }
}
