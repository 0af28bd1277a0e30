// One red-team campaign as GET /api/redteam/campaigns answers it: attack success per class, over-
// blocking of benign probes, what got through, and the comparison with the agent's previous campaign.
import type { paths } from '../api/client';
import { Badge, When, TableWrap } from './ui';
import { Figures, percent } from './d-figures';

export type Campaign = paths['/api/redteam/campaigns']['get']['responses'][200]['content']['application/json']['items'][number];

export function CampaignDetail({ campaign }: { campaign: Campaign }) {
  const { summary, comparison } = campaign;
  return (
    <section className="card" aria-labelledby="campaign-heading">
      <h2 id="campaign-heading">{campaign.name}</h2>
      <Figures
        items={[
          ['Agent', campaign.agent],
          ['Status', <Badge key="status" value={campaign.status} />],
          ['Calls', `${campaign.calls_used} of ${campaign.budget}`],
          ['Attack success (as configured)', percent(summary.attack_success_rate_as_configured)],
          ['Attack success (if enforced)', percent(summary.attack_success_rate_if_enforced)],
          ['Benign over-blocked', percent(summary.benign.over_block_rate_as_configured)],
          ['Finished', <When key="finished" at={campaign.finished_at} />],
        ]}
      />
      {campaign.error !== null && <p className="error">{campaign.error}</p>}
      <TableWrap label="Classes table">
        <table>
          <caption className="muted">Per class (probes as written; mutations not counted)</caption>
          <thead>
            <tr>
              <th scope="col">Class</th>
              <th scope="col">Kind</th>
              <th scope="col">Probes</th>
              <th scope="col">Through as configured</th>
              <th scope="col">Through if enforced</th>
            </tr>
          </thead>
          <tbody>
            {summary.classes.map((row) => (
              <tr key={row.class}>
                <td>{row.class}</td>
                <td>{row.kind}</td>
                <td>{row.probes}</td>
                <td>
                  {row.through_as_configured} ({percent(row.attack_success_rate_as_configured)})
                </td>
                <td>
                  {row.through_if_enforced} ({percent(row.attack_success_rate_if_enforced)})
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <h3>Got through</h3>
      {summary.through.length === 0 ? (
        <p className="muted">Nothing got through as configured.</p>
      ) : (
        <ul>
          {summary.through.map((probe) => (
            <li key={`${probe.probe_id}-${probe.mutation ?? ''}`}>
              <code>{probe.probe_id}</code> ({probe.class}
              {probe.mutation !== null && `, mutated: ${probe.mutation}`}): {probe.reason}
            </li>
          ))}
        </ul>
      )}
      <h3>Compared with the previous campaign</h3>
      {comparison === null ? (
        <p className="muted">The first campaign of this agent and runner.</p>
      ) : (
        <>
          <Figures
            items={[
              ['Attack success before', percent(comparison.asr_before)],
              ['Attack success after', percent(comparison.asr_after)],
              ['Over-block before', percent(comparison.over_block_before)],
              ['Over-block after', percent(comparison.over_block_after)],
              ['Regression', comparison.regression ? 'yes' : 'no'],
            ]}
          />
          {comparison.worse_classes.length > 0 && <p>Worse classes: {comparison.worse_classes.join(', ')}</p>}
          {!comparison.same_probes && <p className="muted">Different probes or seed: the figures compare only roughly.</p>}
        </>
      )}
    </section>
  );
}
