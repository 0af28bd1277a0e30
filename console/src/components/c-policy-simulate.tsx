// Simulation of a candidate policy against recorded traffic (POST /api/policies/simulate): the
// form (operators only: the route replays real decisions) and the summary of a replay, also used
// for a proposal's evidence.
import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { api } from '../api/client';
import { useAuth } from '../auth';
import { attempt, type Simulation } from './c-api';
import { TableWrap } from './ui';
import { Badge, ErrorNote } from './ui';

/** A proposal's evidence is typed loosely on the wire; this checks it is a replay before drawing it. */
export function asSimulation(value: unknown): Simulation | null {
  if (value === null || typeof value !== 'object') return null;
  const simulation = value as Partial<Simulation>;
  return typeof simulation.examined === 'number' && Array.isArray(simulation.changes) ? (simulation as Simulation) : null;
}

export function SimulationSummary({ simulation }: { simulation: Simulation }) {
  const transitions = Object.entries(simulation.transitions);
  return (
    <div>
      <p>
        Replayed {simulation.examined} recorded decision{simulation.examined === 1 ? '' : 's'} since <time dateTime={simulation.since}>{new Date(simulation.since).toLocaleDateString()}</time>:{' '}
        <strong>{simulation.changed}</strong> verdict{simulation.changed === 1 ? '' : 's'} change ({simulation.effective_changed} counting observe mode)
        {simulation.without_facts > 0 && `; ${simulation.without_facts} had no recorded facts to replay`}.
      </p>
      {transitions.length > 0 && (
        <ul>
          {transitions.map(([transition, count]) => (
            <li key={transition}>
              {transition}: {count}
            </li>
          ))}
        </ul>
      )}
      {simulation.changes.length > 0 && (
        <TableWrap label="Changed verdicts table">
          <table>
            <thead>
              <tr>
                <th scope="col">Decision</th>
                <th scope="col">Agent</th>
                <th scope="col">Surface</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
                <th scope="col">Rules after</th>
              </tr>
            </thead>
            <tbody>
              {simulation.changes.map((change) => (
                <tr key={change.decision_id}>
                  <td>
                    <Link href={`/decisions/${encodeURIComponent(change.decision_id)}`}>{change.decision_id}</Link>
                  </td>
                  <td>{change.agent}</td>
                  <td>{change.surface}</td>
                  <td>
                    <Badge value={change.verdict_before} />
                  </td>
                  <td>
                    <Badge value={change.verdict_after} />
                  </td>
                  <td>{change.rules_after.length === 0 ? '—' : change.rules_after.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </div>
  );
}

/** Edits a candidate (starting from the live text) and replays recent traffic against it. */
export function SimulationForm({ initialText }: { initialText: string }) {
  const { can } = useAuth();
  const id = useId();
  const [text, setText] = useState(initialText);
  const [agent, setAgent] = useState('');
  const [days, setDays] = useState('7');
  const [result, setResult] = useState<Simulation | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!can('operator')) return <p className="muted">Simulation replays recorded traffic and needs an operator.</p>;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setResult(null);
    const call = api.POST('/api/policies/simulate', {
      body: { body: text, since_days: Number(days), ...(agent.trim() === '' ? {} : { agent: agent.trim() }) },
    });
    const failed = await attempt(call);
    if (failed === null) setResult((await call).data ?? null);
    setError(failed);
    setBusy(false);
  };
  return (
    <form onSubmit={(event) => void submit(event)} aria-label="Simulate a candidate">
      <div className="filters">
        <div>
          <label htmlFor={`${id}-agent`}>Agent (optional)</label>
          <input id={`${id}-agent`} value={agent} onChange={(event) => setAgent(event.target.value)} />
        </div>
        <div>
          <label htmlFor={`${id}-days`}>Days of traffic</label>
          <input id={`${id}-days`} type="number" min={1} max={365} value={days} onChange={(event) => setDays(event.target.value)} required />
        </div>
      </div>
      <label htmlFor={`${id}-text`}>Candidate policy (YAML)</label>
      <textarea id={`${id}-text`} rows={12} style={{ width: '100%' }} value={text} onChange={(event) => setText(event.target.value)} required spellCheck={false} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Simulate
        </button>
      </div>
      <ErrorNote error={error} />
      {result !== null && <SimulationSummary simulation={result} />}
    </form>
  );
}
