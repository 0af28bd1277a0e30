// Compliance: each framework's roll-up (clauses covered, failing, not evidenced), the clauses of one
// framework with their controls, and every control with its latest result. An operator recomputes
// the controls from live records (POST /api/controls/compute).
import { useId, useState } from 'react';
import { api, problemText } from '../api/client';
import { useAuth } from '../auth';
import { Badge, ErrorNote, Loading, PageHeader, When, useLoad, ActionButton, TableWrap } from '../components/ui';
import { Figures, percent } from '../components/d-figures';

export default function CompliancePage() {
  const { can } = useAuth();
  const status = useLoad(() => api.GET('/api/compliance/status'), []);
  const controls = useLoad(() => api.GET('/api/controls', { params: { query: { history: 1 } } }), []);
  const [computations, setComputations] = useState(0);

  const compute = async () => {
    const { error } = await api.POST('/api/controls/compute', { body: {} });
    if (error !== undefined) return problemText(error);
    status.reload();
    controls.reload();
    setComputations((count) => count + 1);
    return null;
  };

  return (
    <>
      <PageHeader title="Compliance">{can('operator') && <ActionButton label="Compute controls now" primary onRun={compute} />}</PageHeader>
      <section aria-labelledby="frameworks-heading">
        <h2 id="frameworks-heading">Frameworks</h2>
        <ErrorNote error={status.error} />
        {status.data === undefined ? (
          status.loading && <Loading />
        ) : (
          <>
            <p className="muted">
              Last computed: <When at={status.data.computed_at} />
              {status.data.computed_at === null && ' (never: the clauses are not evidenced yet)'}
            </p>
            <div className="cards">
              {status.data.frameworks.map((framework) => (
                <article className="card" key={framework.key} aria-labelledby={`framework-${framework.key}`}>
                  <h3 id={`framework-${framework.key}`}>{framework.title}</h3>
                  <Figures
                    items={[
                      ['Covered', `${framework.covered} of ${framework.clauses}`],
                      ['Failing', framework.failing],
                      ['Not evidenced', framework.not_evidenced],
                      ['Pass rate', percent(framework.pass_rate)],
                    ]}
                  />
                  {framework.failing_controls.length > 0 && <p>Failing controls: {framework.failing_controls.join(', ')}</p>}
                </article>
              ))}
            </div>
          </>
        )}
      </section>
      {status.data !== undefined && status.data.frameworks.length > 0 && <FrameworkClauses keys={status.data.frameworks.map(({ key, title }) => ({ key, title }))} computations={computations} />}
      <section aria-labelledby="controls-heading">
        <h2 id="controls-heading">Controls</h2>
        <ErrorNote error={controls.error} />
        {controls.data === undefined ? (
          controls.loading && <Loading />
        ) : (
          <TableWrap label="Controls table">
            <table>
              <caption className="muted">Catalogue version {controls.data.catalogue_version}</caption>
              <thead>
                <tr>
                  <th scope="col">Control</th>
                  <th scope="col">Checks</th>
                  <th scope="col">Status</th>
                  <th scope="col">Value</th>
                  <th scope="col">Computed</th>
                  <th scope="col">Clauses</th>
                </tr>
              </thead>
              <tbody>
                {controls.data.items.map((control) => (
                  <tr key={control.key}>
                    <td>
                      <strong>{control.title}</strong>
                      <br />
                      <code>{control.key}</code>
                    </td>
                    <td>{control.checks}</td>
                    <td>
                      <Badge value={control.latest?.status ?? 'never_computed'} />
                    </td>
                    <td>{control.latest?.value ?? '—'}</td>
                    <td>
                      <When at={control.latest?.computed_at} />
                    </td>
                    <td>{control.clauses.map((clause) => `${clause.framework} ${clause.ref}`).join(', ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </section>
    </>
  );
}

/** One framework's clauses with their controls' live status and the reviews recorded. */
function FrameworkClauses({ keys, computations }: { keys: Array<{ key: string; title: string }>; computations: number }) {
  const [selected, setSelected] = useState(keys[0]?.key ?? '');
  const selectId = useId();
  // Read again after each compute: the clause statuses follow the controls' results.
  const framework = useLoad(() => api.GET('/api/frameworks/{key}', { params: { path: { key: selected } } }), [selected, computations]);
  return (
    <section aria-labelledby="clauses-heading">
      <h2 id="clauses-heading">Clauses</h2>
      <div className="filters">
        <div>
          <label htmlFor={selectId}>Framework</label>
          <select id={selectId} value={selected} onChange={(event) => setSelected(event.target.value)}>
            {keys.map(({ key, title }) => (
              <option key={key} value={key}>
                {title}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorNote error={framework.error} />
      {framework.data === undefined ? (
        framework.loading && <Loading />
      ) : (
        <>
          <TableWrap label="Clauses table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Clause</th>
                  <th scope="col">Status</th>
                  <th scope="col">Controls</th>
                </tr>
              </thead>
              <tbody>
                {framework.data.clauses.map((clause) => (
                  <tr key={clause.ref}>
                    <td>
                      <strong>{clause.ref}</strong> {clause.title}
                    </td>
                    <td>
                      <Badge value={clause.status} />
                    </td>
                    <td>
                      <ul>
                        {clause.controls.map((control) => (
                          <li key={control.key}>
                            {control.title} <Badge value={control.status} />
                          </li>
                        ))}
                      </ul>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          <h3>Reviews</h3>
          {framework.data.reviews.length === 0 ? (
            <p className="muted">No review recorded for this framework.</p>
          ) : (
            <ul>
              {framework.data.reviews.map((review) => (
                <li key={review.id}>
                  {review.control_key} {review.reference ?? ''} — {review.reviewer}, <When at={review.reviewed_at} />
                  {review.note !== null && `: ${review.note}`}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
