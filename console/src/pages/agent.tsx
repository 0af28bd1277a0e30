// One agent: what it is and who owns it, its controls (kill, quarantine, resume, each with a reason),
// its grants and the grants proposed from its traffic, its protections with a preview, and its
// posture and lineage. Buttons render only for a role the route accepts.
import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { api, type paths } from '../api/client';
import { useAuth } from '../auth';
import { AgentAccess } from '../components/b-agent-access';
import { AgentLineage, AgentPosture } from '../components/b-agent-posture';
import { AgentProtection } from '../components/b-agent-protection';
import { Facts, names, outcome } from '../components/ui';
import { Badge, ErrorNote, Loading, PageHeader, ReasonAction, useLoad, When } from '../components/ui';

type Agent = paths['/api/agents/{slug}']['get']['responses'][200]['content']['application/json'];

export default function AgentPage() {
  const { slug = '' } = useParams<{ slug: string }>();
  const agent = useLoad(() => api.GET('/api/agents/{slug}', { params: { path: { slug } } }), [slug]);
  // Bumped when a grant changes, so the posture (which counts grants) is read again.
  const [round, setRound] = useState(0);
  const data = agent.data;

  return (
    <>
      <PageHeader title={data === undefined ? `Agent ${slug}` : `Agent ${data.slug}`}>{data !== undefined && <Controls agent={data} onDone={agent.reload} />}</PageHeader>
      <p>
        <Link href="/agents">All agents</Link>
      </p>
      <ErrorNote error={agent.error} />
      {data === undefined ? (
        agent.loading && <Loading what="Loading the agent" />
      ) : (
        <>
          <AgentSummary agent={data} />
          <AgentAccess
            slug={data.slug}
            onChange={() => {
              agent.reload();
              setRound((value) => value + 1);
            }}
          />
          <AgentProtection slug={data.slug} />
          <div className="cards" style={{ marginTop: 16 }}>
            <AgentPosture slug={data.slug} round={round} />
            <AgentLineage slug={data.slug} />
          </div>
        </>
      )}
    </>
  );
}

/**
 * Kill and resume need an admin, quarantine and registration an operator (as their routes do).
 * Only the moves that apply to the agent's current state are offered.
 */
function Controls({ agent, onDone }: { agent: Agent; onDone(): void }) {
  const { can } = useAuth();
  const path = { params: { path: { slug: agent.slug } } };
  const state = agent.control.state;
  return (
    <>
      {can('operator') && agent.status !== 'approved' && (
        <ReasonAction label="Approve agent" optional onSubmit={(reason) => outcome(api.POST('/api/agents/{agent_id}/approve', { params: { path: { agent_id: agent.id } }, body: reason === '' ? {} : { reason } }), onDone)} />
      )}
      {can('operator') && agent.status !== 'rejected' && (
        <ReasonAction label="Reject agent" optional danger onSubmit={(reason) => outcome(api.POST('/api/agents/{agent_id}/reject', { params: { path: { agent_id: agent.id } }, body: reason === '' ? {} : { reason } }), onDone)} />
      )}
      {can('operator') && state === 'active' && <ReasonAction label="Quarantine" onSubmit={(reason) => outcome(api.POST('/api/agents/{slug}/quarantine', { ...path, body: { reason } }), onDone)} />}
      {can('admin') && state !== 'killed' && <ReasonAction label="Kill" danger onSubmit={(reason) => outcome(api.POST('/api/agents/{slug}/kill', { ...path, body: { reason } }), onDone)} />}
      {can('admin') && state !== 'active' && <ReasonAction label="Resume" onSubmit={(reason) => outcome(api.POST('/api/agents/{slug}/resume', { ...path, body: { reason } }), onDone)} />}
    </>
  );
}

function AgentSummary({ agent }: { agent: Agent }) {
  const control = agent.control;
  return (
    <section aria-labelledby="summary-heading" className="card">
      <h2 id="summary-heading">{agent.name}</h2>
      <Facts
        items={[
          ['Registration', <Badge key="status" value={agent.status} />],
          [
            'Control',
            <span key="control">
              <Badge value={control.state} />
              {control.state !== 'active' && (
                <>
                  {' '}
                  {control.reason !== null && <q>{control.reason}</q>} <span className="muted">by {control.by ?? 'unknown'}</span> <When at={control.at} />
                </>
              )}
            </span>,
          ],
          ['Purpose', agent.purpose],
          ['Owner', [agent.owner_email, agent.owner_team].filter((part) => part !== null).join(' · ')],
          ['Environment', agent.environment],
          ['Risk tier', agent.risk_tier],
          ['Framework', agent.framework],
          ['Data classes', names(agent.data_classes)],
          ['Declared tools', names(agent.declared_tools)],
          ['Tools seen', names(agent.seen_tools)],
          ['Declared models', names(agent.declared_models)],
          ['Models seen', names(agent.seen_models)],
          ['First seen', <When key="first" at={agent.first_seen_at} />],
          ['Last seen', <When key="last" at={agent.last_seen_at} />],
          ['Identity', agent.identity_id],
          [
            'Created',
            <span key="created">
              <When at={agent.created_at} /> <span className="muted">by {agent.created_by}</span>
            </span>,
          ],
        ]}
      />
    </section>
  );
}
