// Two computed views of an agent: its posture (a 0-100 score with each gap that cost points) and its
// lineage (who delegated to it and to whom it delegated, over 30 days of agent messages).
import { Link } from 'wouter';
import { api } from '../api/client';
import { Facts, TableWrap } from './ui';
import { ErrorNote, Loading, useLoad, When } from './ui';

export function AgentPosture({ slug, round }: { slug: string; round: number }) {
  const posture = useLoad(() => api.GET('/api/agents/{slug}/posture', { params: { path: { slug } } }), [slug, round]);
  const data = posture.data;
  return (
    <section aria-labelledby="posture-heading" className="card">
      <h2 id="posture-heading">Posture</h2>
      <ErrorNote error={posture.error} />
      {data === undefined ? (
        posture.loading && <Loading what="Loading posture" />
      ) : (
        <>
          <p>
            <strong style={{ fontSize: '1.5rem' }}>{data.score}</strong>/100, grade <strong>{data.grade}</strong>
          </p>
          <Facts
            items={[
              ['Grants', `${data.grants.total} (${data.grants.wildcard} wildcard, ${data.grants.requiring_approval} need approval, ${data.grants.without_max_taint} without max taint)`],
              ['Credentials', `${data.credentials.active} active, ${data.credentials.expiring_within_7_days} expiring within 7 days, ${data.credentials.never_used} never used`],
              ['Signing key', data.signing_key ? 'yes' : 'no'],
              ['Decisions, 7 days', `${data.decisions_7d.allow} allowed, ${data.decisions_7d.block} blocked, ${data.decisions_7d.escalate} escalated`],
              ['Open findings', `${data.open_findings.critical} critical, ${data.open_findings.high} high, ${data.open_findings.medium} medium, ${data.open_findings.low} low`],
            ]}
          />
          {data.gaps.length > 0 && (
            <>
              <h3>Gaps</h3>
              <ul>
                {data.gaps.map((gap) => (
                  <li key={gap}>{gap}</li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  );
}

function Chain({ agents }: { agents: string[] }) {
  return (
    <>
      {agents.map((agent, index) => (
        <span key={`${index}-${agent}`}>
          {index > 0 && ' → '}
          <Link href={`/agents/${encodeURIComponent(agent)}`}>{agent}</Link>
        </span>
      ))}
    </>
  );
}

function Chains({ title, chains, empty }: { title: string; chains: string[][]; empty: string }) {
  return (
    <>
      <h3>{title}</h3>
      {chains.length === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <ul>
          {chains.map((chain) => (
            <li key={chain.join('>')}>
              <Chain agents={chain} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

export function AgentLineage({ slug }: { slug: string }) {
  const lineage = useLoad(() => api.GET('/api/agents/{slug}/lineage', { params: { path: { slug } } }), [slug]);
  const data = lineage.data;
  return (
    <section aria-labelledby="lineage-heading" className="card">
      <h2 id="lineage-heading">Lineage</h2>
      <ErrorNote error={lineage.error} />
      {data === undefined ? (
        lineage.loading && <Loading what="Loading lineage" />
      ) : (
        <>
          <p className="muted">
            Agent messages of the last {data.days} days. Deepest chain: {data.max_depth} hop(s) of {data.max_allowed_depth} allowed.
            {data.truncated && ' The walk was cut short by its bounds.'}
          </p>
          {data.cycles.length > 0 && <Chains title="Delegation loops" chains={data.cycles} empty="" />}
          <Chains title="Delegated to this agent" chains={data.upstream} empty="No agent delegated to this one." />
          <Chains title="Delegated by this agent" chains={data.downstream} empty="This agent delegated to no other." />
          {data.edges.length > 0 && (
            <TableWrap label="Delegation edges">
              <table>
                <thead>
                  <tr>
                    <th scope="col">From</th>
                    <th scope="col">To</th>
                    <th scope="col">Messages</th>
                    <th scope="col">Last</th>
                  </tr>
                </thead>
                <tbody>
                  {data.edges.map((edge) => (
                    <tr key={`${edge.from}>${edge.to}`}>
                      <td>{edge.from}</td>
                      <td>{edge.to}</td>
                      <td>{edge.messages}</td>
                      <td>
                        <When at={edge.last_at} />
                      </td>
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
