// Evaluations: suites with their last run, runs with pass rates and their baseline comparison, an
// agent's drift (online pass rates, recent against baseline) and the SLOs. An operator starts a run
// of a suite against the gateway's own pipeline, compared with the suite's last completed run.
import { useId, useState, type FormEvent } from 'react';
import { api, problemText } from '../api/client';
import { useAuth } from '../auth';
import { Badge, ErrorNote, Loading, PageHeader, When, useLoad, ActionButton, TableWrap, Listing } from '../components/ui';
import { figure, percent } from '../components/d-figures';
import { EvalRun } from '../components/d-eval-run';

export default function EvaluationsPage() {
  const { can } = useAuth();
  const suites = useLoad(() => api.GET('/api/eval/suites'), []);
  const runs = useLoad(() => api.GET('/api/eval/runs', { params: { query: { limit: 50 } } }), []);
  const slos = useLoad(() => api.GET('/api/eval/slos'), []);
  const [selectedRun, setSelectedRun] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const startRun = async (suite: string, baseline: string | undefined) => {
    const { data, error } = await api.POST('/api/eval/runs', { body: { suite, ...(baseline !== undefined ? { baseline_run_id: baseline } : {}) } });
    if (data === undefined) return problemText(error);
    // Small suites answer the run at once (201); larger ones are queued as a job (202).
    setNotice('pass_rate' in data ? `Run of ${suite} completed: pass rate ${percent(data.pass_rate)}.` : `Run of ${suite} queued (${data.total} cases).`);
    setSelectedRun(data.id);
    suites.reload();
    runs.reload();
    return null;
  };

  return (
    <>
      <PageHeader title="Evaluations" />
      {notice !== null && (
        <p role="status" className="muted">
          {notice}
        </p>
      )}
      <section aria-labelledby="suites-heading">
        <h2 id="suites-heading">Suites</h2>
        <ErrorNote error={suites.error} />
        {suites.data === undefined ? (
          suites.loading && <Loading />
        ) : suites.data.items.length === 0 ? (
          <p className="muted">No suite yet: push one with <code>parapet eval push</code> or POST /api/eval/suites.</p>
        ) : (
          <TableWrap label="Suites table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Suite</th>
                  <th scope="col">Cases</th>
                  <th scope="col">Version</th>
                  <th scope="col">Last run</th>
                  {can('operator') && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {suites.data.items.map((suite) => {
                  const baseline = suite.last_run?.status === 'completed' ? suite.last_run.id : undefined;
                  return (
                    <tr key={suite.key}>
                      <td>
                        <strong>{suite.name}</strong> <code>{suite.key}</code>
                        {suite.description !== null && <div className="muted">{suite.description}</div>}
                      </td>
                      <td>{suite.cases}</td>
                      <td>{suite.version}</td>
                      <td>
                        {suite.last_run === null ? (
                          <span className="muted">never run</span>
                        ) : (
                          <>
                            <Badge value={suite.last_run.status} /> {percent(suite.last_run.pass_rate)}
                          </>
                        )}
                      </td>
                      {can('operator') && (
                        <td>
                          <ActionButton label={`Run ${suite.key}`} onRun={() => startRun(suite.key, baseline)} />
                          {baseline !== undefined && <div className="hint">compared with the last run</div>}
                        </td>
                      )}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
        )}
      </section>
      <section aria-labelledby="runs-heading">
        <h2 id="runs-heading">Runs</h2>
        <Listing loaded={runs} empty="No run yet.">
          {(data) => (
          <TableWrap label="Runs table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Suite or agent</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Status</th>
                  <th scope="col">Pass rate</th>
                  <th scope="col">Baseline</th>
                  <th scope="col">Started</th>
                </tr>
              </thead>
              <tbody>
                {data.items.map((run) => (
                  <tr key={run.id}>
                    <td>
                      <button type="button" className="link" aria-pressed={selectedRun === run.id} onClick={() => setSelectedRun(run.id)}>
                        {run.id}
                      </button>
                    </td>
                    <td>{run.suite ?? run.agent ?? '—'}</td>
                    <td>{run.kind}</td>
                    <td>
                      <Badge value={run.status} />
                    </td>
                    <td>{percent(run.pass_rate)}</td>
                    <td>{run.baseline_run_id === null ? '—' : <code>{run.baseline_run_id}</code>}</td>
                    <td>
                      <When at={run.started_at ?? run.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          )}
        </Listing>
      </section>
      {selectedRun !== null && <EvalRun runId={selectedRun} />}
      <Drift />
      <section aria-labelledby="slos-heading">
        <h2 id="slos-heading">SLOs</h2>
        <Listing loaded={slos} empty="No SLO set: POST /api/eval/slos sets one over an agent's online results.">
          {(data) => (
          <TableWrap label="SLOs table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Agent</th>
                  <th scope="col">Scorer</th>
                  <th scope="col">Window</th>
                  <th scope="col">Target</th>
                  <th scope="col">Attainment</th>
                  <th scope="col">Budget consumed</th>
                  <th scope="col">Burn rate (1 day)</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {data.items.map((slo) => (
                  <tr key={slo.id}>
                    <td>{slo.agent}</td>
                    <td>{slo.scorer}</td>
                    <td>{slo.window}</td>
                    <td>{percent(slo.target)}</td>
                    <td>
                      {percent(slo.attainment)} <span className="muted">({slo.n})</span>
                    </td>
                    <td>{percent(slo.budget_consumed)}</td>
                    <td>{figure(slo.burn_rate_1d, 2)}</td>
                    <td>
                      <Badge value={slo.status} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          )}
        </Listing>
      </section>
    </>
  );
}

/** Drift is asked per agent: the API needs one. */
function Drift() {
  const [draft, setDraft] = useState('');
  const [agent, setAgent] = useState<string | null>(null);
  const inputId = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setAgent(draft.trim());
  };
  return (
    <section aria-labelledby="drift-heading">
      <h2 id="drift-heading">Drift</h2>
      <form className="filters" onSubmit={submit}>
        <div>
          <label htmlFor={inputId}>Agent</label>
          <input id={inputId} value={draft} onChange={(event) => setDraft(event.target.value)} required />
        </div>
        <button type="submit">Show drift</button>
      </form>
      {agent !== null && <DriftTable agent={agent} />}
    </section>
  );
}

function DriftTable({ agent }: { agent: string }) {
  const drift = useLoad(() => api.GET('/api/eval/drift', { params: { query: { agent } } }), [agent]);
  if (drift.data === undefined) return drift.loading ? <Loading /> : <ErrorNote error={drift.error} />;
  const { windows, items } = drift.data;
  return (
    <TableWrap label="Drift table">
      <table>
        <caption className="muted">
          {agent}: recent <When at={windows.recent.from} /> to <When at={windows.recent.to} />, against the {Math.round((Date.parse(windows.baseline.to) - Date.parse(windows.baseline.from)) / 86_400_000)} days before
        </caption>
        <thead>
          <tr>
            <th scope="col">Scorer</th>
            <th scope="col">Recent pass rate</th>
            <th scope="col">Baseline pass rate</th>
            <th scope="col">Change</th>
            <th scope="col">Drift</th>
          </tr>
        </thead>
        <tbody>
          {items.length === 0 && (
            <tr>
              <td colSpan={5} className="muted">
                No online results for this agent.
              </td>
            </tr>
          )}
          {items.map((item) => (
            <tr key={item.scorer}>
              <td>{item.scorer}</td>
              <td>
                {percent(item.recent.pass_rate)} <span className="muted">({item.recent.n})</span>
              </td>
              <td>
                {percent(item.baseline.pass_rate)} <span className="muted">({item.baseline.n})</span>
              </td>
              <td>{item.delta === null ? '—' : `${item.delta > 0 ? '+' : ''}${(item.delta * 100).toFixed(1)} pts`}</td>
              <td>
                {item.significant ? <Badge value={item.direction} /> : <span className="muted">none</span>} <span className="muted">{item.reason}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
