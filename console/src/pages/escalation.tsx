// Escalation: hand-offs to people with their SLA state and conversation, the conversations that
// needed a person and got none, and the report over the last day. An operator acknowledges a
// hand-off with a note, closes one with a note and a resolution, and runs the missed-escalation scan.
import { useId, useState } from 'react';
import { api, problemText, type paths } from '../api/client';
import { useAuth } from '../auth';
import { Badge, ErrorNote, Loading, PageHeader, ReasonAction, When, useLoad, ActionButton, TableWrap } from '../components/ui';
import { Figures, figure, percent } from '../components/d-figures';
import { CloseHandoff } from '../components/d-handoff-close';

type Status = NonNullable<NonNullable<paths['/api/escalation/handoffs']['get']['parameters']['query']>['status']>;
type Handoff = paths['/api/escalation/handoffs']['get']['responses'][200]['content']['application/json']['items'][number];
const STATUSES: Status[] = ['open', 'acknowledged', 'closed'];
const SINCE_HOURS = 24;

export default function EscalationPage() {
  const { can } = useAuth();
  const [status, setStatus] = useState<Status | ''>('');
  const statusId = useId();
  const handoffs = useLoad(() => api.GET('/api/escalation/handoffs', { params: { query: status === '' ? {} : { status } } }), [status]);
  const missed = useLoad(() => api.GET('/api/escalation/missed', { params: { query: { since_hours: SINCE_HOURS } } }), []);
  const report = useLoad(() => api.GET('/api/escalation/report', { params: { query: { since_hours: SINCE_HOURS } } }), []);
  const [notice, setNotice] = useState<string | null>(null);
  const reloadAll = () => {
    handoffs.reload();
    missed.reload();
    report.reload();
  };

  const acknowledge = async (handoff: Handoff, body: { note: string; close?: boolean; resolution?: string }) => {
    const { error } = await api.POST('/api/escalation/handoffs/{handoff_id}/acknowledge', { params: { path: { handoff_id: handoff.id } }, body });
    if (error !== undefined) return problemText(error);
    reloadAll();
    return null;
  };

  const scan = async () => {
    const { data, error } = await api.POST('/api/escalation/scan', { params: { query: { since_hours: SINCE_HOURS } }, body: {} });
    if (data === undefined) return problemText(error);
    setNotice(`Scan: ${data.missed} missed, ${data.retroactive_handoffs.length} hand-offs made after the fact, ${data.sla_breaches} SLA breaches raised.`);
    reloadAll();
    return null;
  };

  return (
    <>
      <PageHeader title="Escalation">{can('operator') && <ActionButton label="Scan for missed escalations" onRun={scan} />}</PageHeader>
      {notice !== null && (
        <p role="status" className="muted">
          {notice}
        </p>
      )}
      <section aria-labelledby="report-heading">
        <h2 id="report-heading">Last {SINCE_HOURS} hours</h2>
        <ErrorNote error={report.error} />
        {report.data !== undefined && (
          <Figures
            items={[
              ['Sessions', report.data.sessions],
              ['Needed a person', `${report.data.qualified} (${percent(report.data.rates.qualified)})`],
              ['Handed off', `${report.data.handed_off} (${percent(report.data.rates.handed_off)})`],
              ['Missed', `${report.data.missed} (${percent(report.data.rates.missed)})`],
              ['Acknowledged in (p50 / p95 min)', `${figure(report.data.time_to_acknowledge.p50_minutes, 1)} / ${figure(report.data.time_to_acknowledge.p95_minutes, 1)}`],
              ['SLA breaches', report.data.breaches],
              ['Open past due', report.data.open_overdue],
            ]}
          />
        )}
      </section>
      <section aria-labelledby="handoffs-heading">
        <h2 id="handoffs-heading">Hand-offs</h2>
        <div className="filters">
          <div>
            <label htmlFor={statusId}>Status</label>
            <select id={statusId} value={status} onChange={(event) => setStatus(event.target.value as Status | '')}>
              <option value="">Any</option>
              {STATUSES.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </div>
        </div>
        <ErrorNote error={handoffs.error} />
        {handoffs.data === undefined ? (
          handoffs.loading && <Loading />
        ) : handoffs.data.items.length === 0 ? (
          <p className="muted">No hand-off{status === '' ? '' : ` ${status}`}.</p>
        ) : (
          <TableWrap label="Hand-offs table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Agent and session</th>
                  <th scope="col">Status</th>
                  <th scope="col">Why</th>
                  <th scope="col">Owner</th>
                  <th scope="col">SLA</th>
                  <th scope="col">Note</th>
                  {can('operator') && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {handoffs.data.items.map((handoff) => (
                  <tr key={handoff.id}>
                    <td>
                      {handoff.agent}
                      <br />
                      <code>{handoff.session_id}</code>
                      {handoff.retroactive && <div className="muted">made by a scan</div>}
                    </td>
                    <td>
                      <Badge value={handoff.status} /> <span className="muted">{handoff.mode}</span>
                    </td>
                    <td>
                      {handoff.reasons.map((reason) => (
                        <div key={reason.condition}>
                          <strong>{reason.condition}</strong>: {reason.detail}
                        </div>
                      ))}
                      <details>
                        <summary>Conversation ({handoff.conversation.length} turns)</summary>
                        <ol>
                          {handoff.conversation.map((turn) => (
                            <li key={turn.turn_id}>
                              {turn.user_text !== null && <div>User: {turn.user_text}</div>}
                              {turn.agent_text !== null && <div>Agent: {turn.agent_text}</div>}
                            </li>
                          ))}
                        </ol>
                      </details>
                    </td>
                    <td>{handoff.owner_role}</td>
                    <td>
                      <SlaState handoff={handoff} />
                    </td>
                    <td>
                      {handoff.note ?? '—'}
                      {handoff.resolution !== null && <div className="muted">Resolution: {handoff.resolution}</div>}
                    </td>
                    {can('operator') && (
                      <td>
                        <div className="actions">
                          {handoff.status === 'open' && <ReasonAction label="Acknowledge" field="Note" onSubmit={(note) => acknowledge(handoff, { note })} />}
                          {handoff.status !== 'closed' && <CloseHandoff onSubmit={(note, resolution) => acknowledge(handoff, { note, resolution, close: true })} />}
                        </div>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </section>
      <section aria-labelledby="missed-heading">
        <h2 id="missed-heading">Missed escalations</h2>
        <ErrorNote error={missed.error} />
        {missed.data === undefined ? (
          missed.loading && <Loading />
        ) : missed.data.items.length === 0 ? (
          <p className="muted">No conversation in the last {SINCE_HOURS} hours needed a person without getting one.</p>
        ) : (
          <TableWrap label="Missed escalations table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Agent and session</th>
                  <th scope="col">Mode</th>
                  <th scope="col">Conditions</th>
                  <th scope="col">Qualifying turns</th>
                  <th scope="col">First qualified</th>
                  <th scope="col">Hand-off after the fact</th>
                </tr>
              </thead>
              <tbody>
                {missed.data.items.map((item) => (
                  <tr key={`${item.agent}-${item.session_id}`}>
                    <td>
                      {item.agent}
                      <br />
                      <code>{item.session_id}</code>
                    </td>
                    <td>{item.mode}</td>
                    <td>{item.conditions.join(', ')}</td>
                    <td>
                      {item.qualifying_turns} of {item.turns}
                    </td>
                    <td>
                      <When at={item.first_qualified_at} />
                    </td>
                    <td>{item.retroactive_handoff_id === null ? 'none yet' : <code>{item.retroactive_handoff_id}</code>}</td>
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

/** Due time, and whether it is past due or breached (in words, not by colour alone). */
function SlaState({ handoff }: { handoff: Handoff }) {
  const state = handoff.breached ? 'breached' : handoff.overdue ? 'overdue' : handoff.status === 'closed' ? 'closed' : 'within SLA';
  return (
    <>
      <Badge value={state} /> due <When at={handoff.due_at} />
      {handoff.acknowledged_at !== null && (
        <div className="muted">
          acknowledged <When at={handoff.acknowledged_at} /> by {handoff.acknowledged_by}
        </div>
      )}
    </>
  );
}
