// Red team: campaigns against agents' configurations and probe targets (newest first, with attack
// success and over-blocking), one campaign's detail, the probe targets with their opt-in state and
// the probe library. An operator starts a campaign, or a run of an opted-in probe target.
import { useId, useState, type FormEvent } from 'react';
import { api, problemText } from '../api/client';
import { useAuth } from '../auth';
import { Badge, ErrorNote, PageHeader, When, useLoad, ActionButton, TableWrap, Listing } from '../components/ui';
import { percent } from '../components/d-figures';
import { CampaignDetail, type Campaign } from '../components/d-redteam-campaign';

export default function RedteamPage() {
  const { can } = useAuth();
  const campaigns = useLoad(() => api.GET('/api/redteam/campaigns', { params: { query: { limit: 50 } } }), []);
  const targets = useLoad(() => api.GET('/api/probes/targets'), []);
  const library = useLoad(() => api.GET('/api/redteam/probes'), []);
  const [selected, setSelected] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const shown = campaigns.data?.items.find((campaign) => campaign.id === selected);

  const started = (campaign: Campaign) => {
    setSelected(campaign.id);
    campaigns.reload();
  };

  const runTarget = async (targetId: string, name: string) => {
    const { data, error } = await api.POST('/api/probes/targets/{target_id}/run', { params: { path: { target_id: targetId } }, body: {} });
    if (data === undefined) return problemText(error);
    setNotice(`Run of ${name} queued: at most ${data.max_probes} probes, up to ${Math.ceil(data.max_seconds / 60)} minutes. Its campaign appears below when done.`);
    targets.reload();
    return null;
  };

  return (
    <>
      <PageHeader title="Red team" />
      {can('operator') && <StartCampaign classes={library.data?.classes.map((entry) => entry.class) ?? []} onStarted={started} />}
      {notice !== null && (
        <p role="status" className="muted">
          {notice}
        </p>
      )}
      <section aria-labelledby="campaigns-heading">
        <h2 id="campaigns-heading">Campaigns</h2>
        <Listing loaded={campaigns} empty="No campaign yet.">
          {(data) => (
          <TableWrap label="Campaigns table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Campaign</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Runner</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attack success</th>
                  <th scope="col">If enforced</th>
                  <th scope="col">Benign over-blocked</th>
                  <th scope="col">Regression</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {data.items.map((campaign) => (
                  <tr key={campaign.id}>
                    <td>
                      <button type="button" className="link" aria-pressed={selected === campaign.id} onClick={() => setSelected(campaign.id)}>
                        {campaign.name}
                      </button>
                    </td>
                    <td>{campaign.agent}</td>
                    <td>{campaign.runner}</td>
                    <td>
                      <Badge value={campaign.status} />
                    </td>
                    <td>{percent(campaign.summary.attack_success_rate_as_configured)}</td>
                    <td>{percent(campaign.summary.attack_success_rate_if_enforced)}</td>
                    <td>{percent(campaign.summary.benign.over_block_rate_as_configured)}</td>
                    <td>{campaign.comparison === null ? '—' : campaign.comparison.regression ? <Badge value="worse" /> : 'no'}</td>
                    <td>
                      <When at={campaign.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          )}
        </Listing>
      </section>
      {shown !== undefined && <CampaignDetail campaign={shown} />}
      <section aria-labelledby="targets-heading">
        <h2 id="targets-heading">Probe targets</h2>
        <Listing loaded={targets} empty="No probe target: POST /api/probes/targets registers a deployed agent (created disabled until opted in).">
          {(data) => (
          <TableWrap label="Probe targets table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Target</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Adapter and URL</th>
                  <th scope="col">State</th>
                  <th scope="col">Caps</th>
                  <th scope="col">Last run</th>
                  <th scope="col">Next run</th>
                  {can('operator') && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {data.items.map((target) => (
                  <tr key={target.id}>
                    <td>{target.name}</td>
                    <td>{target.agent}</td>
                    <td>
                      {target.adapter} <code>{target.url}</code>
                    </td>
                    <td>{target.enabled ? <Badge value="opted in" /> : <Badge value="disabled" />}</td>
                    <td>
                      {target.max_probes_per_run} probes a run, {target.rate_limit_per_minute} a minute
                    </td>
                    <td>
                      <When at={target.last_run_at} />
                    </td>
                    <td>
                      <When at={target.next_run_at} />
                    </td>
                    {can('operator') && <td>{target.enabled ? <ActionButton label={`Run ${target.name} now`} onRun={() => runTarget(target.id, target.name)} /> : <span className="muted">opt in first</span>}</td>}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          )}
        </Listing>
      </section>
      <section aria-labelledby="library-heading">
        <h2 id="library-heading">Probe library</h2>
        <ErrorNote error={library.error} />
        {library.data !== undefined && (
          <>
            <p className="muted">
              Version {library.data.version}: {library.data.items.length} probes in {library.data.classes.length} classes, {library.data.mutations.length} mutation classes.
            </p>
            <TableWrap label="Probe library table">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Class</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Probes</th>
                    <th scope="col">What it tries</th>
                  </tr>
                </thead>
                <tbody>
                  {library.data.classes.map((entry) => (
                    <tr key={entry.class}>
                      <td>{entry.class}</td>
                      <td>{entry.kind}</td>
                      <td>{entry.probes}</td>
                      <td>{entry.description}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          </>
        )}
      </section>
    </>
  );
}

/** A pipeline campaign: the agent's configuration attacked inside the request, nothing recorded as traffic. */
function StartCampaign({ classes, onStarted }: { classes: string[]; onStarted(campaign: Campaign): void }) {
  const [agent, setAgent] = useState('');
  const [probes, setProbes] = useState('');
  const [budget, setBudget] = useState('50');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ids = { agent: useId(), probes: useId(), budget: useId() };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    const { data, error: refusal } = await api.POST('/api/redteam/campaigns', {
      body: { agent: agent.trim(), budget: Number(budget), ...(probes !== '' ? { probes: [probes] } : {}) },
    });
    setBusy(false);
    setError(data === undefined ? problemText(refusal) : null);
    if (data !== undefined) onStarted(data);
  };
  return (
    <form className="filters" aria-label="Start a campaign" onSubmit={(event) => void submit(event)}>
      <div>
        <label htmlFor={ids.agent}>Agent</label>
        <input id={ids.agent} value={agent} onChange={(event) => setAgent(event.target.value)} required />
      </div>
      <div>
        <label htmlFor={ids.probes}>Probes</label>
        <select id={ids.probes} value={probes} onChange={(event) => setProbes(event.target.value)}>
          <option value="">Whole library</option>
          {classes.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor={ids.budget}>Budget (probe calls)</label>
        <input id={ids.budget} type="number" min={1} max={2000} value={budget} onChange={(event) => setBudget(event.target.value)} required />
      </div>
      <button type="submit" className="primary" disabled={busy}>
        {busy ? 'Running the campaign…' : 'Start campaign'}
      </button>
      <ErrorNote error={error} />
    </form>
  );
}
