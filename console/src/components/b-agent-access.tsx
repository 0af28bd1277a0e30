// An agent's grants and the grants proposed from its observed tool calls (GET /api/agents/{slug}/access).
// A proposal carries the exact body that grants it, so approving is one click; an operator can also
// remove a grant.
import { useId, useState } from 'react';
import { api } from '../api/client';
import { useAuth } from '../auth';
import { ActionButton, names, outcome, TableWrap } from './ui';
import { ErrorNote, Loading, useLoad, When } from './ui';

const DAY_CHOICES = [1, 7, 30] as const;

export function AgentAccess({ slug, onChange }: { slug: string; onChange(): void }) {
  const { can } = useAuth();
  const [days, setDays] = useState<number>(7);
  const daysId = useId();
  const access = useLoad(() => api.GET('/api/agents/{slug}/access', { params: { path: { slug }, query: { days } } }), [slug, days]);
  // A grant changes what the agent page shows too (declared tools, posture).
  const changed = () => {
    access.reload();
    onChange();
  };

  return (
    <section aria-labelledby="access-heading">
      <h2 id="access-heading">Access</h2>
      <ErrorNote error={access.error} />
      {access.data === undefined ? (
        access.loading && <Loading what="Loading grants" />
      ) : (
        <>
          <h3>Grants</h3>
          {access.data.grants.length === 0 ? (
            <p className="muted">No tools granted: every tool call of this agent is denied.</p>
          ) : (
            <TableWrap label="Grants">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Tool</th>
                    <th scope="col">Needs approval</th>
                    <th scope="col">Max taint</th>
                    <th scope="col">Actions</th>
                    <th scope="col">Constraints</th>
                    <th scope="col">Granted</th>
                    {can('operator') && <th scope="col">Change</th>}
                  </tr>
                </thead>
                <tbody>
                  {access.data.grants.map((grant) => (
                    <tr key={grant.id}>
                      <td>
                        <code>{grant.tool_key}</code>
                      </td>
                      <td>{grant.requires_approval ? 'yes' : 'no'}</td>
                      <td>{grant.max_taint ?? 'any'}</td>
                      <td>{grant.actions.length === 0 ? 'any' : names(grant.actions)}</td>
                      <td>{Object.keys(grant.constraints).length === 0 ? '—' : <code>{JSON.stringify(grant.constraints)}</code>}</td>
                      <td>
                        <When at={grant.created_at} /> <span className="muted">by {grant.created_by}</span>
                      </td>
                      {can('operator') && (
                        <td>
                          <ActionButton
                            label="Remove"
                            name={`Remove grant ${grant.tool_key}`}
                            onRun={() => outcome(api.DELETE('/api/agents/{slug}/access/{capability_id}', { params: { path: { slug, capability_id: grant.id } } }), changed)}
                          />
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}

          <h3>Proposed from observed traffic</h3>
          <div className="filters">
            <div>
              <label htmlFor={daysId}>Traffic of the last</label>
              <select id={daysId} value={days} onChange={(event) => setDays(Number(event.target.value))}>
                {DAY_CHOICES.map((choice) => (
                  <option key={choice} value={choice}>
                    {choice} day{choice === 1 ? '' : 's'}
                  </option>
                ))}
              </select>
            </div>
          </div>
          {access.data.proposed.length === 0 ? (
            <p className="muted">Nothing to propose: every tool the agent called is granted.</p>
          ) : (
            <TableWrap label="Proposed grants">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Tool</th>
                    <th scope="col">Calls</th>
                    <th scope="col">Blocked</th>
                    <th scope="col">Last seen</th>
                    <th scope="col">Why</th>
                    <th scope="col">Proposed grant</th>
                    {can('operator') && <th scope="col">Approve</th>}
                  </tr>
                </thead>
                <tbody>
                  {access.data.proposed.map((proposal) => (
                    <tr key={proposal.tool_key}>
                      <td>
                        <code>{proposal.tool_key}</code>
                      </td>
                      <td>{proposal.calls}</td>
                      <td>{proposal.blocked_calls}</td>
                      <td>
                        <When at={proposal.last_seen_at} />
                      </td>
                      <td style={{ minWidth: '14rem' }}>{proposal.why}</td>
                      <td>
                        {proposal.grant.requires_approval ? 'each call held for a person' : 'calls allowed'}
                        <div className="muted">max taint {proposal.grant.max_taint ?? 'any'}</div>
                      </td>
                      {can('operator') && (
                        <td>
                          <ActionButton
                            label="Approve grant"
                            name={`Approve grant ${proposal.tool_key}`}
                            className="primary"
                            onRun={() => outcome(api.POST('/api/agents/{slug}/access', { params: { path: { slug } }, body: proposal.grant }), changed)}
                          />
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </>
      )}
    </section>
  );
}
