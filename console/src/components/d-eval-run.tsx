// One evaluation run: its per-scorer pass rates and the comparison with its baseline run (exact
// McNemar on the paired cases), as GET /api/eval/runs/{run_id} answers them.
import { api } from '../api/client';
import { Badge, ErrorNote, Loading, When, useLoad, TableWrap } from './ui';
import { Figures, figure, percent } from './d-figures';

export function EvalRun({ runId }: { runId: string }) {
  const run = useLoad(() => api.GET('/api/eval/runs/{run_id}', { params: { path: { run_id: runId } } }), [runId]);
  if (run.data === undefined) return run.loading ? <Loading what="Loading the run" /> : <ErrorNote error={run.error} />;
  const { data } = run;
  const comparison = data.comparison;
  return (
    <section className="card" aria-labelledby="run-heading">
      <h2 id="run-heading">
        Run <code>{data.id}</code>
      </h2>
      <Figures
        items={[
          ['Suite', data.suite ?? 'online'],
          ['Status', <Badge key="status" value={data.status} />],
          ['Cases', `${data.done} of ${data.total}`],
          ['Pass rate', percent(data.pass_rate)],
          ['Started', <When key="started" at={data.started_at} />],
        ]}
      />
      <ErrorNote error={data.error} />
      <TableWrap label="Scorers table">
        <table>
          <caption className="muted">Pass rate per scorer (a person's annotation counts instead of the scorer)</caption>
          <thead>
            <tr>
              <th scope="col">Scorer</th>
              <th scope="col">Results</th>
              <th scope="col">Passed</th>
              <th scope="col">Pass rate</th>
              <th scope="col">Threshold</th>
            </tr>
          </thead>
          <tbody>
            {data.scorers_summary.map((scorer) => (
              <tr key={scorer.scorer}>
                <td>{scorer.scorer}</td>
                <td>{scorer.results}</td>
                <td>{scorer.passed}</td>
                <td>{percent(scorer.pass_rate)}</td>
                <td>{figure(scorer.threshold, 2)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <h3>Compared with the baseline</h3>
      {comparison === null ? (
        <p className="muted">No baseline: this run was not compared with another.</p>
      ) : (
        <>
          <Figures
            items={[
              ['Baseline run', <code key="baseline">{comparison.baseline_run_id}</code>],
              ['Pass rate before', percent(comparison.pass_rate_before)],
              ['Pass rate after', percent(comparison.pass_rate_after)],
              ['Paired cases', comparison.paired],
              ['Regressed', comparison.regressed.length],
              ['Improved', comparison.improved.length],
              ['McNemar p', figure(comparison.test.p_value, 3)],
            ]}
          />
          <p>{comparison.significant ? 'The change is significant (p < 0.05).' : 'No significant change (p ≥ 0.05).'}</p>
        </>
      )}
    </section>
  );
}
