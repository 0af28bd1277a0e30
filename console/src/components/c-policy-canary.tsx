// A pack's canary: the current or last one (cohort steps, thresholds, the last check against the
// baseline) and its course over time from the audit chain (each start, check and rollback).
// Operators start one for a saved version, advance it (which checks the block rates) or roll it back.
import { useId, useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { useAuth } from '../auth';
import { attempt, type Canary, type PolicyVersion } from './c-api';
import { TableWrap } from './ui';
import { Badge, ErrorNote, Loading, When, useLoad } from './ui';

const CANARY_ACTIONS: Record<string, string> = {
  'policy.canary_start': 'started',
  'policy.canary_advance': 'checked',
  'policy.canary_rollback': 'rolled back by hand',
};

function rate(value: number | null): string {
  return value === null ? '—' : `${(value * 100).toFixed(1)}%`;
}

export function CanaryPanel({ policyKey, live, versions, onChanged }: { policyKey: string; live: number | null; versions: PolicyVersion[]; onChanged(): void }) {
  const history = useLoad(() => api.GET('/api/audit/entries', { params: { query: { target: policyKey, limit: 200 } } }), [policyKey]);
  const events = (history.data?.items ?? []).filter((entry) => entry.action in CANARY_ACTIONS).reverse();
  // GET …/canary answers 404 until a first canary, which the browser would log: ask only once one ran.
  const hasCanary = events.length > 0;
  const canary = useLoad(
    () => (hasCanary ? api.GET('/api/policies/{key}/canary', { params: { path: { key: policyKey } } }) : Promise.resolve({ data: null })),
    [policyKey, hasCanary, events.length],
  );
  const changed = () => {
    history.reload();
    onChanged();
  };
  if (history.data === undefined) return history.error === null ? <Loading /> : <ErrorNote error={history.error} />;
  return (
    <>
      {canary.data === undefined ? (
        canary.error === null ? <Loading /> : <ErrorNote error={canary.error} />
      ) : canary.data === null ? (
        <p className="muted">No canary has run for this pack.</p>
      ) : (
        <CanaryState canary={canary.data} />
      )}
      <CanaryActions policyKey={policyKey} live={live} versions={versions} running={canary.data?.state === 'running'} onChanged={changed} />
      {events.length > 0 && (
        <TableWrap label="Canary over time table">
          <table>
            <caption>The canary over time</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">Outcome</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {events.map((entry) => (
                <tr key={entry.id}>
                  <td>
                    <When at={entry.at} />
                  </td>
                  <td>
                    {CANARY_ACTIONS[entry.action]} by {entry.actor}
                  </td>
                  <td>{typeof entry.detail.outcome === 'string' ? <Badge value={entry.detail.outcome} /> : '—'}</td>
                  <td>{typeof entry.detail.why === 'string' ? entry.detail.why : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </>
  );
}

function CanaryState({ canary }: { canary: Canary }) {
  const check = canary.last_check;
  return (
    <>
      <p>
        <Badge value={canary.state} /> v{canary.candidate_version} against live v{canary.baseline_version}
        {canary.state === 'running' && `, ${canary.percent}% of calls`} · steps{' '}
        {canary.steps.map((step, index) => (index === canary.step_index && canary.state === 'running' ? `[${step}%]` : `${step}%`)).join(' → ')} · rolls back above +
        {rate(canary.max_block_rate_delta)} or below −{rate(canary.max_block_rate_drop)} block rate · dwell {canary.min_dwell_seconds} s, sample {canary.min_sample} · started{' '}
        <When at={canary.started_at} />
        {canary.ended_at !== null && (
          <>
            , ended <When at={canary.ended_at} />
          </>
        )}
      </p>
      {check !== null && (
        <TableWrap label="Last check by cohort table">
          <table>
            <caption>
              Last check (<When at={check.at} />): {check.outcome}, {check.why}
            </caption>
            <thead>
              <tr>
                <th scope="col">Cohort</th>
                <th scope="col">Calls</th>
                <th scope="col">Blocked</th>
                <th scope="col">Block rate</th>
              </tr>
            </thead>
            <tbody>
              {(['candidate', 'baseline'] as const).map((cohort) => (
                <tr key={cohort}>
                  <th scope="row">{cohort}</th>
                  <td>{check[cohort].calls}</td>
                  <td>{check[cohort].blocked}</td>
                  <td>{rate(check[cohort].block_rate)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </>
  );
}

function CanaryActions({ policyKey, live, versions, running, onChanged }: { policyKey: string; live: number | null; versions: PolicyVersion[]; running: boolean; onChanged(): void }) {
  const { can } = useAuth();
  const id = useId();
  const candidates = versions.filter((version) => version.version !== live && version.status !== 'rejected');
  const [candidate, setCandidate] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!can('operator')) return null;
  const path = { params: { path: { key: policyKey } } };
  const run = async (call: () => Promise<{ error?: unknown; response: Response }>) => {
    setBusy(true);
    const failed = await attempt(call());
    setBusy(false);
    setError(failed);
    if (failed === null) onChanged();
  };
  const start = (event: FormEvent) => {
    event.preventDefault();
    void run(() => api.POST('/api/policies/{key}/canary/start', { ...path, body: { candidate_version: Number(candidate || candidates[0]?.version) } }));
  };
  return (
    <>
      {running ? (
        <div className="actions">
          <button type="button" className="primary" disabled={busy} onClick={() => void run(() => api.POST('/api/policies/{key}/canary/advance', { ...path, body: {} }))}>
            Check and advance
          </button>
          <button type="button" className="danger" disabled={busy} onClick={() => void run(() => api.POST('/api/policies/{key}/canary/rollback', { ...path, body: {} }))}>
            Roll back canary
          </button>
        </div>
      ) : (
        candidates.length > 0 &&
        live !== null && (
          <form className="filters" onSubmit={start} aria-label="Start a canary">
            <div>
              <label htmlFor={id}>Candidate version</label>
              <select id={id} value={candidate || String(candidates[0]?.version ?? '')} onChange={(event) => setCandidate(event.target.value)}>
                {candidates.map((version) => (
                  <option key={version.version} value={version.version}>
                    v{version.version} ({version.status})
                  </option>
                ))}
              </select>
            </div>
            <button type="submit" disabled={busy}>
              Start canary
            </button>
          </form>
        )
      )}
      <ErrorNote error={error} />
    </>
  );
}
