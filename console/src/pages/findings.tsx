// The findings queue (GET /api/findings): filters by status, severity, type and agent kept in the
// address (so a link can open a filtered queue), suppress with a reason and resolve with a note per
// row, and the same for the selected rows in bulk. Change controls render for operators only.
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'wouter';
import { api, type paths } from '../api/client';
import { useAuth } from '../auth';
import { FindingActions, moveFindings } from '../components/a-findings';
import { Pager } from '../components/ui';
import { Badge, ErrorNote, Loading, PageHeader, ReasonAction, When, useLoad } from '../components/ui';

type Query = NonNullable<paths['/api/findings']['get']['parameters']['query']>;
const STATUSES = ['open', 'suppressed', 'resolved'] as const;
const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
/** The queue opens on what is still open; `status=any` in the address lists every status. */
const ANY = 'any';

function oneOf<T extends string>(value: string | null, allowed: readonly T[]): T | undefined {
  return allowed.find((item) => item === value);
}

export default function FindingsPage() {
  const { can } = useAuth();
  const [params, setParams] = useSearchParams();
  const [cursor, setCursor] = useState<string | undefined>();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const statusParam = params.get('status');
  const query: Query = {
    status: statusParam === ANY ? undefined : (oneOf(statusParam, STATUSES) ?? 'open'),
    severity: oneOf(params.get('severity'), SEVERITIES),
    // The API checks the type against its catalogue; an unknown one comes back as its refusal.
    type: (params.get('type') || undefined) as Query['type'],
    agent: params.get('agent') || undefined,
    cursor,
  };
  const findings = useLoad(() => api.GET('/api/findings', { params: { query } }), [params.toString(), cursor]);
  const types = useLoad(() => api.GET('/api/findings/types'), []);
  const operator = can('operator');
  const items = findings.data?.items ?? [];
  const chosen = items.filter((item) => selected.has(item.id)).map((item) => item.id);

  const applyFilters = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next = new URLSearchParams();
    for (const key of ['status', 'severity', 'type', 'agent']) {
      const value = String(form.get(key) ?? '').trim();
      if (value !== '') next.set(key, value);
    }
    setCursor(undefined);
    setSelected(new Set());
    setParams(next);
  };
  const toggle = (id: string, on: boolean) =>
    setSelected((previous) => {
      const next = new Set(previous);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const bulk = (status: 'suppressed' | 'resolved') => async (text: string) => {
    const { moved, refusals } = await moveFindings(chosen, status, text);
    setSelected((previous) => new Set([...previous].filter((id) => !moved.includes(id))));
    findings.reload();
    return refusals.length === 0 ? null : refusals.join('; ');
  };

  return (
    <>
      <PageHeader title="Findings" />
      <form className="filters" aria-label="Filter findings" onSubmit={applyFilters} key={params.toString()}>
        <div>
          <label htmlFor="f-status">Status</label>
          <select id="f-status" name="status" defaultValue={statusParam ?? 'open'}>
            {STATUSES.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
            <option value={ANY}>any status</option>
          </select>
        </div>
        <div>
          <label htmlFor="f-severity">Severity</label>
          <select id="f-severity" name="severity" defaultValue={query.severity ?? ''}>
            <option value="">any severity</option>
            {SEVERITIES.map((severity) => (
              <option key={severity} value={severity}>
                {severity}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="f-type">Type</label>
          <select id="f-type" name="type" defaultValue={query.type ?? ''}>
            <option value="">any type</option>
            {(types.data?.items ?? []).map((type) => (
              <option key={type.type} value={type.type}>
                {type.title}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="f-agent">Agent</label>
          <input id="f-agent" name="agent" defaultValue={query.agent ?? ''} placeholder="agent slug" />
        </div>
        <button type="submit">Apply</button>
      </form>

      {operator && chosen.length > 0 && (
        <div className="actions" role="region" aria-label="Bulk actions">
          <span>{chosen.length} selected</span>
          <ReasonAction label="Suppress selected" field="Reason" onSubmit={bulk('suppressed')} />
          <ReasonAction label="Resolve selected" field="Note" onSubmit={bulk('resolved')} />
        </div>
      )}

      <ErrorNote error={findings.error} />
      {findings.loading && findings.data === undefined ? (
        <Loading what="Loading findings" />
      ) : items.length === 0 ? (
        findings.error === null && <p>No findings match these filters.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                {operator && (
                  <th scope="col">
                    <input
                      type="checkbox"
                      aria-label="Select every finding on this page"
                      checked={chosen.length === items.length}
                      onChange={(event) => setSelected(event.target.checked ? new Set(items.map((item) => item.id)) : new Set())}
                    />
                  </th>
                )}
                <th scope="col">Severity</th>
                <th scope="col">Status</th>
                <th scope="col">Finding</th>
                <th scope="col">Agent</th>
                <th scope="col">Seen</th>
                <th scope="col">Last seen</th>
                <th scope="col">Decision</th>
                {operator && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {items.map((finding) => (
                <tr key={finding.id}>
                  {operator && (
                    <td>
                      <input type="checkbox" aria-label={`Select ${finding.title}`} checked={selected.has(finding.id)} onChange={(event) => toggle(finding.id, event.target.checked)} />
                    </td>
                  )}
                  <td>
                    <Badge value={finding.severity} />
                  </td>
                  <td>
                    <Badge value={finding.status} />
                  </td>
                  <td>
                    <Link href={`/findings/${finding.id}`}>{finding.title}</Link>
                    <div className="muted">{finding.type}</div>
                  </td>
                  <td>{finding.agent === null ? <span className="muted">{finding.subject}</span> : <Link href={`/agents/${finding.agent}`}>{finding.agent}</Link>}</td>
                  <td>{finding.occurrences}×</td>
                  <td>
                    <When at={finding.last_seen_at} />
                  </td>
                  <td>{finding.decision_id === null ? '—' : <Link href={`/decisions/${finding.decision_id}`}>decision</Link>}</td>
                  {operator && (
                    <td>
                      <FindingActions finding={finding} onChanged={findings.reload} />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager cursor={cursor} next={findings.data?.next_cursor} onChange={setCursor} />
    </>
  );
}
