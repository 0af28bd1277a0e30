// The agent registry: registered agents and those only seen in traffic, filtered as GET /api/agents
// allows (registered, environment), each linking to its page. An operator can register one.
import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { api } from '../api/client';
import { useAuth } from '../auth';
import { outcome, Pager, TableWrap } from '../components/ui';
import { Badge, ErrorNote, Loading, PageHeader, useLoad, When } from '../components/ui';

type Registered = 'all' | 'true' | 'false';

export default function AgentsPage() {
  const { can } = useAuth();
  const [registered, setRegistered] = useState<Registered>('all');
  const [environment, setEnvironment] = useState('');
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const ids = { registered: useId(), environment: useId() };
  const agents = useLoad(
    () =>
      api.GET('/api/agents', {
        params: {
          query: {
            limit: 50,
            ...(cursor !== undefined ? { cursor } : {}),
            ...(registered !== 'all' ? { registered: registered === 'true' } : {}),
            ...(environment.trim() !== '' ? { environment: environment.trim() } : {}),
          },
        },
      }),
    [registered, environment, cursor],
  );
  // A changed filter starts again from the first page.
  const filter = <T,>(set: (value: T) => void) => (value: T) => {
    setCursor(undefined);
    set(value);
  };

  return (
    <>
      <PageHeader title="Agents" />
      <form className="filters" role="search" aria-label="Filter agents" onSubmit={(event) => event.preventDefault()}>
        <div>
          <label htmlFor={ids.registered}>Registration</label>
          <select id={ids.registered} value={registered} onChange={(event) => filter(setRegistered)(event.target.value as Registered)}>
            <option value="all">All</option>
            <option value="true">Registered</option>
            <option value="false">Seen in traffic or rejected</option>
          </select>
        </div>
        <div>
          <label htmlFor={ids.environment}>Environment</label>
          <input id={ids.environment} value={environment} onChange={(event) => filter(setEnvironment)(event.target.value)} placeholder="e.g. production" />
        </div>
      </form>
      <ErrorNote error={agents.error} />
      {agents.data === undefined ? (
        agents.loading && <Loading what="Loading agents" />
      ) : agents.data.items.length === 0 ? (
        <p className="muted">No agents match.</p>
      ) : (
        <TableWrap label="Agents">
          <table>
            <caption className="muted" style={{ textAlign: 'left' }}>
              {agents.data.items.length} agent(s) on this page
            </caption>
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Registration</th>
                <th scope="col">Control</th>
                <th scope="col">Owner</th>
                <th scope="col">Environment</th>
                <th scope="col">Risk tier</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {agents.data.items.map((agent) => (
                <tr key={agent.id}>
                  <td>
                    <Link href={`/agents/${encodeURIComponent(agent.slug)}`}>{agent.slug}</Link>
                    {agent.name !== agent.slug && <div className="muted">{agent.name}</div>}
                  </td>
                  <td>
                    <Badge value={agent.status} />
                  </td>
                  <td>
                    <Badge value={agent.control.state} />
                  </td>
                  <td>{agent.owner_email ?? agent.owner_team ?? '—'}</td>
                  <td>{agent.environment ?? '—'}</td>
                  <td>{agent.risk_tier ?? '—'}</td>
                  <td>
                    <When at={agent.last_seen_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <Pager cursor={cursor} next={agents.data?.next_cursor} onChange={setCursor} />
      {can('operator') && <RegisterAgent onDone={agents.reload} />}
    </>
  );
}

/** POST /api/agents: the smallest registration (slug and owner); the rest is edited later or declared by the agent. */
function RegisterAgent({ onDone }: { onDone(): void }) {
  const [slug, setSlug] = useState('');
  const [owner, setOwner] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ids = { slug: useId(), owner: useId() };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    const failed = await outcome(api.POST('/api/agents', { body: { slug: slug.trim(), ...(owner.trim() !== '' ? { owner_email: owner.trim() } : {}) } }), onDone);
    setBusy(false);
    setError(failed);
    if (failed === null) {
      setSlug('');
      setOwner('');
    }
  };
  return (
    <section aria-labelledby={`${ids.slug}-heading`} className="card" style={{ marginTop: 16 }}>
      <h2 id={`${ids.slug}-heading`}>Register an agent</h2>
      <form className="filters" onSubmit={(event) => void submit(event)}>
        <div>
          <label htmlFor={ids.slug}>Slug</label>
          <input id={ids.slug} value={slug} onChange={(event) => setSlug(event.target.value)} required />
        </div>
        <div>
          <label htmlFor={ids.owner}>Owner email</label>
          <input id={ids.owner} type="email" value={owner} onChange={(event) => setOwner(event.target.value)} />
        </div>
        <button type="submit" disabled={busy}>
          Register
        </button>
      </form>
      <ErrorNote error={error} />
    </section>
  );
}
