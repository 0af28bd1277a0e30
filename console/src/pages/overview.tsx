// The overview: what needs a person now (GET /api/attention), the install checklist
// (GET /api/onboarding), decisions and block rate per day over the last week (GET
// /api/metrics/summary), detector latency p95 (GET /api/guardrails/latency) and open findings by
// severity (GET /api/board).
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { api, type paths } from '../api/client';
import { DecisionsChart, LatencyChart, SeverityChart, type DayCount } from '../components/a-charts';
import { Badge, ErrorNote, Loading, PageHeader, useLoad, type Loaded } from '../components/ui';

type Attention = paths['/api/attention']['get']['responses'][200]['content']['application/json']['items'][number];
const WEEK = 7;
// Long identifiers (entity types, API paths) in a list wrap instead of widening a narrow card.
const WRAP = { overflowWrap: 'anywhere' } as const;

export default function OverviewPage() {
  return (
    <>
      <PageHeader title="Overview" />
      <div className="cards">
        <NeedsAttention />
        <Checklist />
      </div>
      {/* The charts in a grid of their own, so each gets a third of the width rather than a fifth. */}
      <div className="cards" style={{ marginTop: 16 }}>
        <DecisionsPerDay />
        <DetectorLatency />
        <OpenFindings />
      </div>
    </>
  );
}

/** A card's heading, then its loading or error state until the data is there. */
function Card<T>({ title, loaded, children }: { title: string; loaded: Loaded<T>; children(data: T): ReactNode }) {
  return (
    <section className="card" aria-label={title}>
      <h2>{title}</h2>
      <ErrorNote error={loaded.error} />
      {loaded.data === undefined ? loaded.loading && <Loading /> : children(loaded.data)}
    </section>
  );
}

/** The console page of an attention item's API path (jobs have none). */
function consolePath(item: Attention): string | null {
  if (item.kind === 'approval') return '/approvals';
  const path = item.link.replace(/^\/api/, '');
  return path.startsWith('/findings/') || path.startsWith('/agents/') ? path : null;
}

function NeedsAttention() {
  const attention = useLoad(() => api.GET('/api/attention'), []);
  return (
    <Card title="Needs attention" loaded={attention}>
      {(data) =>
        data.items.length === 0 ? (
          <p>Nothing needs a person right now.</p>
        ) : (
          <ul style={WRAP}>
            {data.items.slice(0, 10).map((item) => {
              const href = consolePath(item);
              return (
                <li key={`${item.kind}:${item.id}`}>
                  <Badge value={item.severity} /> {href === null ? item.title : <Link href={href}>{item.title}</Link>}
                  <div className="muted">{item.why}</div>
                </li>
              );
            })}
          </ul>
        )
      }
    </Card>
  );
}

function Checklist() {
  const onboarding = useLoad(() => api.GET('/api/onboarding'), []);
  return (
    <Card title="Getting started" loaded={onboarding}>
      {(data) => (
        <>
          <p>
            {data.done_count} of {data.total} done.
          </p>
          <ol style={WRAP}>
            {data.items.map((item) => (
              <li key={item.key}>
                <span className={`badge ${item.state === 'done' ? 'ok' : item.state === 'todo' ? 'warn' : 'info'}`}>{item.state}</span> {item.title}
                {item.reason !== null && <div className="muted">{item.reason}.</div>}
                {item.key === data.next?.key && <div>Next: {item.how}</div>}
              </li>
            ))}
          </ol>
        </>
      )}
    </Card>
  );
}

/**
 * Decisions per day from the summary's cumulative ranges: the day k days back is what the range
 * (k + 1)d counts beyond the range kd (the API has no time series; ranges are back from now).
 */
async function loadDays(): Promise<{ data?: DayCount[]; error?: unknown }> {
  const ranges = await Promise.all(Array.from({ length: WEEK }, (_, index) => api.GET('/api/metrics/summary', { params: { query: { range: `${index + 1}d` } } })));
  const failed = ranges.find((answer) => answer.data === undefined);
  if (failed !== undefined) return { error: failed.error };
  const summaries = ranges.map((answer) => answer.data as NonNullable<typeof answer.data>);
  const days = summaries.map((summary, index) => {
    const before = index === 0 ? undefined : summaries[index - 1];
    const decisions = summary.decisions - (before?.decisions ?? 0);
    const blocked = summary.by_verdict.block - (before?.by_verdict.block ?? 0);
    const end = new Date(new Date(summary.to).getTime() - index * 86_400_000);
    return {
      day: index === 0 ? 'last 24 h' : end.toLocaleDateString(undefined, { month: 'short', day: 'numeric' }),
      decisions,
      blocked,
      blockRate: decisions === 0 ? null : (blocked / decisions) * 100,
    };
  });
  return { data: days.reverse() };
}

function DecisionsPerDay() {
  const days = useLoad(loadDays, []);
  return (
    <Card title="Decisions and block rate, last 7 days" loaded={days}>
      {(data) => {
        const decisions = data.reduce((sum, day) => sum + day.decisions, 0);
        const blocked = data.reduce((sum, day) => sum + day.blocked, 0);
        return (
          <>
            <p>
              {decisions} {decisions === 1 ? 'decision' : 'decisions'}, {blocked} blocked{decisions === 0 ? '' : ` (${((blocked / decisions) * 100).toFixed(1)} %)`}. <Link href="/decisions?verdict=block">Blocked decisions</Link>
            </p>
            <DecisionsChart days={data} />
          </>
        );
      }}
    </Card>
  );
}

function DetectorLatency() {
  const latency = useLoad(() => api.GET('/api/guardrails/latency', { params: { query: { days: WEEK } } }), []);
  return (
    <Card title="Detector latency p95, last 7 days" loaded={latency}>
      {(data) =>
        data.detectors.length === 0 ? (
          <p>No detector has run in the last 7 days.</p>
        ) : (
          <LatencyChart detectors={data.detectors.map((detector) => ({ detector: detector.detector_key, p95: detector.p95_ms, runs: detector.runs, degraded: detector.degraded }))} />
        )
      }
    </Card>
  );
}

function OpenFindings() {
  const board = useLoad(() => api.GET('/api/board'), []);
  return (
    <Card title="Open findings by severity" loaded={board}>
      {(data) => (
        <>
          <p>
            {data.findings.open} open. <Link href="/findings">Findings queue</Link>
          </p>
          <SeverityChart counts={data.findings.by_severity.map((row) => ({ severity: row.severity, open: row.open }))} />
        </>
      )}
    </Card>
  );
}
