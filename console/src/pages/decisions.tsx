// Recorded decisions (GET /api/traces) with the filters the API has — agent, verdict, entity type,
// tool, rule, environment, degraded or not, and a time window — kept in the address so a link (from
// a finding, say) opens a filtered list. Each row leads to its decision page.
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'wouter';
import { api, type paths } from '../api/client';
import { Pager } from '../components/ui';
import { Badge, ErrorNote, Loading, PageHeader, When, useLoad } from '../components/ui';

type Query = NonNullable<paths['/api/traces']['get']['parameters']['query']>;
const VERDICTS = ['allow', 'block', 'escalate'] as const;
const WINDOWS = [
  { value: '1', label: 'last day' },
  { value: '7', label: 'last 7 days' },
  { value: '30', label: 'last 30 days' },
];
const TEXT_FILTERS = [
  { key: 'agent', label: 'Agent', hint: 'agent slug' },
  { key: 'entity_type', label: 'Entity type', hint: 'PII.EMAIL or PII.' },
  { key: 'tool', label: 'Tool', hint: 'tool key' },
  { key: 'rule', label: 'Rule', hint: 'rule id' },
  { key: 'environment', label: 'Environment', hint: 'production' },
] as const;

function queryOf(params: URLSearchParams, cursor: string | undefined): Query {
  const value = (key: string) => params.get(key) || undefined;
  const days = Number(params.get('since_days'));
  const errors = params.get('errors');
  return {
    agent: value('agent'),
    verdict: VERDICTS.find((verdict) => verdict === params.get('verdict')),
    entity_type: value('entity_type'),
    tool: value('tool'),
    rule: value('rule'),
    environment: value('environment'),
    errors: errors === 'true' ? true : errors === 'false' ? false : undefined,
    since_days: Number.isInteger(days) && days > 0 ? days : undefined,
    start: value('start'),
    end: value('end'),
    cursor,
  };
}

export default function DecisionsPage() {
  const [params, setParams] = useSearchParams();
  const [cursor, setCursor] = useState<string | undefined>();
  const query = queryOf(params, cursor);
  const traces = useLoad(() => api.GET('/api/traces', { params: { query } }), [params.toString(), cursor]);
  const items = traces.data?.items ?? [];

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [key, value] of new FormData(event.currentTarget)) {
      const trimmed = String(value).trim();
      if (trimmed !== '') next.set(key, trimmed);
    }
    setCursor(undefined);
    setParams(next);
  };

  return (
    <>
      <PageHeader title="Decisions" />
      <form className="filters" aria-label="Filter decisions" onSubmit={apply} key={params.toString()}>
        <div>
          <label htmlFor="d-verdict">Verdict</label>
          <select id="d-verdict" name="verdict" defaultValue={query.verdict ?? ''}>
            <option value="">any verdict</option>
            {VERDICTS.map((verdict) => (
              <option key={verdict} value={verdict}>
                {verdict}
              </option>
            ))}
          </select>
        </div>
        {TEXT_FILTERS.map((filter) => (
          <div key={filter.key}>
            <label htmlFor={`d-${filter.key}`}>{filter.label}</label>
            <input id={`d-${filter.key}`} name={filter.key} defaultValue={params.get(filter.key) ?? ''} placeholder={filter.hint} />
          </div>
        ))}
        <div>
          <label htmlFor="d-errors">Detectors</label>
          <select id="d-errors" name="errors" defaultValue={params.get('errors') ?? ''}>
            <option value="">any</option>
            <option value="true">degraded only</option>
            <option value="false">complete only</option>
          </select>
        </div>
        <div>
          <label htmlFor="d-since">Window</label>
          <select id="d-since" name="since_days" defaultValue={params.get('since_days') ?? ''}>
            <option value="">any time</option>
            {WINDOWS.map((window) => (
              <option key={window.value} value={window.value}>
                {window.label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="d-start">From</label>
          <input id="d-start" name="start" type="date" defaultValue={params.get('start') ?? ''} />
        </div>
        <div>
          <label htmlFor="d-end">To</label>
          <input id="d-end" name="end" type="date" defaultValue={params.get('end') ?? ''} />
        </div>
        <button type="submit">Apply</button>
      </form>

      <ErrorNote error={traces.error} />
      {traces.loading && traces.data === undefined ? (
        <Loading what="Loading decisions" />
      ) : items.length === 0 ? (
        traces.error === null && <p>No recorded decisions match these filters.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">At</th>
                <th scope="col">Agent</th>
                <th scope="col">Surface</th>
                <th scope="col">Verdict</th>
                <th scope="col">Detected</th>
                <th scope="col">Rules</th>
                <th scope="col">Latency</th>
              </tr>
            </thead>
            <tbody>
              {items.map((trace) => (
                <tr key={trace.id}>
                  <td>
                    <Link href={`/decisions/${trace.id}`}>
                      <When at={trace.at} />
                    </Link>
                  </td>
                  <td>{trace.agent}</td>
                  <td>
                    {trace.surface}
                    {trace.tool !== null && <div className="muted">{trace.tool}</div>}
                  </td>
                  <td>
                    <Badge value={trace.verdict} />
                    {trace.effective_verdict !== trace.verdict && <div className="muted">would {trace.effective_verdict} (observe)</div>}
                    {trace.degraded.length > 0 && <div className="muted">degraded: {trace.degraded.join(', ')}</div>}
                  </td>
                  <td>{trace.entities.length === 0 ? '—' : trace.entities.join(', ')}</td>
                  <td>{trace.rules.length === 0 ? '—' : trace.rules.map((rule) => rule.rule_id).join(', ')}</td>
                  <td>{Math.round(trace.latency_ms)} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager cursor={cursor} next={traces.data?.next_cursor} onChange={setCursor} />
    </>
  );
}
