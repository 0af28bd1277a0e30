// Sources: the knowledge-source registry with freshness (stale against each source's SLA), validation
// and health problems, assessing an answer against its chunks, and the answerability report. An
// operator registers a source and validates one through its connection.
import { useId, useState, type FormEvent } from 'react';
import { api, problemText, type paths } from '../api/client';
import { useAuth } from '../auth';
import { Badge, ErrorNote, PageHeader, When, useLoad, ActionButton, TableWrap, Listing } from '../components/ui';
import { Figures, percent } from '../components/d-figures';
import { AssessAnswer } from '../components/d-source-assess';

type Tier = NonNullable<paths['/api/sources']['put']['requestBody']>['content']['application/json']['tier'];
const TIERS: Array<NonNullable<Tier>> = ['system_of_record', 'approved', 'unverified', 'external'];

export default function SourcesPage() {
  const { can } = useAuth();
  const sources = useLoad(() => api.GET('/api/sources'), []);
  const health = useLoad(() => api.GET('/api/sources/health'), []);
  const answerability = useLoad(() => api.GET('/api/answerability/report', { params: { query: { days: 30 } } }), []);
  const reload = () => {
    sources.reload();
    health.reload();
  };

  const validate = async (key: string) => {
    const { data, error } = await api.POST('/api/sources/{key}/validate', { params: { path: { key } }, body: {} });
    if (data === undefined) return problemText(error);
    reload();
    return data.ok ? null : `Validation failed: ${data.saw.reason ?? 'unknown reason'}`;
  };

  return (
    <>
      <PageHeader title="Sources" />
      <section aria-labelledby="health-heading">
        <h2 id="health-heading">Health</h2>
        <ErrorNote error={health.error} />
        {health.data !== undefined && (
          <>
            <Figures
              items={[
                ['Sources', health.data.counts.sources],
                ['Healthy', health.data.counts.healthy],
                ['Stale', health.data.counts.stale],
                ['Unvalidated', health.data.counts.unvalidated],
                ['Connection failing', health.data.counts.connection_failing],
                ['Validation failed', health.data.counts.validation_failed],
                ['Deprecated yet cited', health.data.counts.deprecated_cited],
              ]}
            />
            {health.data.items.length > 0 && (
              <ul aria-label="Problems">
                {health.data.items.map((item) => (
                  <li key={item.key}>
                    <code>{item.key}</code>:{' '}
                    {item.problems.map((problem) => (
                      <span key={problem.code}>
                        <Badge value={problem.code} /> {problem.detail}{' '}
                      </span>
                    ))}
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </section>
      <section aria-labelledby="registry-heading">
        <h2 id="registry-heading">Registry</h2>
        {can('operator') && <RegisterSource onSaved={reload} />}
        <Listing loaded={sources} empty="No source registered.">
          {(data) => (
          <TableWrap label="Sources table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Source</th>
                  <th scope="col">Tier</th>
                  <th scope="col">Owner and domain</th>
                  <th scope="col">Freshness</th>
                  <th scope="col">Updated at source</th>
                  <th scope="col">Validation</th>
                  <th scope="col">Last cited</th>
                  {can('operator') && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {data.items.map((source) => (
                  <tr key={source.key}>
                    <td>
                      <strong>{source.title}</strong> <code>{source.key}</code> {source.deprecated && <Badge value="deprecated" />}
                    </td>
                    <td>{source.tier.replaceAll('_', ' ')}</td>
                    <td>{[source.owner, source.domain].filter((part) => part !== null).join(', ') || '—'}</td>
                    <td>
                      {source.freshness_sla_hours === null ? (
                        <span className="muted">no SLA</span>
                      ) : (
                        <>
                          <Badge value={source.stale ? 'stale' : 'fresh'} /> SLA {source.freshness_sla_hours} h
                        </>
                      )}
                    </td>
                    <td>
                      <When at={source.updated_at_source} />
                    </td>
                    <td>
                      {source.validation_ok === null ? <span className="muted">never</span> : <Badge value={source.validation_ok ? 'pass' : 'fail'} />}{' '}
                      {source.connection === null ? <span className="muted">(no connection)</span> : <span className="muted">({source.connection.kind})</span>}
                    </td>
                    <td>
                      <When at={source.last_cited_at} />
                    </td>
                    {can('operator') && <td>{source.connection !== null && <ActionButton label={`Validate ${source.key}`} onRun={() => validate(source.key)} />}</td>}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          )}
        </Listing>
      </section>
      <AssessAnswer sourceKeys={sources.data?.items.map((source) => source.key) ?? []} onAssessed={sources.reload} />
      <section aria-labelledby="answerability-heading">
        <h2 id="answerability-heading">Answerability (last 30 days)</h2>
        <ErrorNote error={answerability.error} />
        {answerability.data !== undefined && (
          <Figures
            items={[
              ['Checks', answerability.data.checks],
              ['Answerable', answerability.data.by_outcome.answerable],
              ['Partial', answerability.data.by_outcome.partial],
              ['Not answerable', answerability.data.by_outcome.not_answerable],
              ['Unanswerable rate', percent(answerability.data.unanswerable_rate)],
              ['Answered anyway', answerability.data.answered_anyway.length],
              ['Stale source reasons', answerability.data.by_reason.source_stale],
            ]}
          />
        )}
      </section>
    </>
  );
}

/** Register a source (PUT /api/sources: a new key is created, a known one updated; title and SLA left empty keep their value). */
function RegisterSource({ onSaved }: { onSaved(): void }) {
  const [key, setKey] = useState('');
  const [title, setTitle] = useState('');
  const [tier, setTier] = useState<NonNullable<Tier>>('unverified');
  const [sla, setSla] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ids = { key: useId(), title: useId(), tier: useId(), sla: useId() };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    const { data, error: refusal } = await api.PUT('/api/sources', {
      body: { key: key.trim(), tier, ...(title.trim() !== '' ? { title: title.trim() } : {}), ...(sla !== '' ? { freshness_sla_hours: Number(sla) } : {}) },
    });
    setBusy(false);
    setError(data === undefined ? problemText(refusal) : null);
    if (data !== undefined) {
      setKey('');
      setTitle('');
      setTier('unverified');
      setSla('');
      onSaved();
    }
  };
  return (
    <form className="filters" aria-label="Register a source" onSubmit={(event) => void submit(event)}>
      <div>
        <label htmlFor={ids.key}>Key</label>
        <input id={ids.key} value={key} onChange={(event) => setKey(event.target.value)} required />
      </div>
      <div>
        <label htmlFor={ids.title}>Title</label>
        <input id={ids.title} value={title} onChange={(event) => setTitle(event.target.value)} />
      </div>
      <div>
        <label htmlFor={ids.tier}>Tier</label>
        <select id={ids.tier} value={tier} onChange={(event) => setTier(event.target.value as NonNullable<Tier>)}>
          {TIERS.map((name) => (
            <option key={name} value={name}>
              {name.replaceAll('_', ' ')}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor={ids.sla}>Freshness SLA (hours)</label>
        <input id={ids.sla} type="number" min={1} max={87600} value={sla} onChange={(event) => setSla(event.target.value)} />
      </div>
      <button type="submit" disabled={busy}>
        Register source
      </button>
      <ErrorNote error={error} />
    </form>
  );
}
