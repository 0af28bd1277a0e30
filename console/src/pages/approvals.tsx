// The inbox of held tool calls: pending approvals first (each approved or denied with a rationale by
// an operator), then the ones already decided, used or lapsed. An approval is good once, for the
// same agent, tool and arguments.
import { useId, useState } from 'react';
import { Link } from 'wouter';
import { api, type paths } from '../api/client';
import { useAuth } from '../auth';
import { outcome, Pager, TableWrap } from '../components/ui';
import { Badge, ErrorNote, Loading, PageHeader, ReasonAction, useLoad, When } from '../components/ui';

type Approval = paths['/api/approvals']['get']['responses'][200]['content']['application/json']['items'][number];
type Status = Approval['status'];
const SETTLED: Status[] = ['approved', 'denied', 'used', 'expired'];

export default function ApprovalsPage() {
  const pending = useLoad(() => api.GET('/api/approvals', { params: { query: { status: 'pending', limit: 100 } } }), []);
  const [status, setStatus] = useState<Status | 'all'>('all');
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const statusId = useId();
  const history = useLoad(
    () => api.GET('/api/approvals', { params: { query: { limit: 50, ...(status !== 'all' ? { status } : {}), ...(cursor !== undefined ? { cursor } : {}) } } }),
    [status, cursor],
  );
  // A decision moves an approval from the inbox to the history.
  const decided = () => {
    pending.reload();
    history.reload();
  };
  const settled = history.data?.items.filter((approval) => approval.status !== 'pending');

  return (
    <>
      <PageHeader title="Approvals" />
      <section aria-labelledby="pending-heading">
        <h2 id="pending-heading">Waiting for a person{pending.data !== undefined && ` (${pending.data.items.length}${pending.data.next_cursor !== null ? '+' : ''})`}</h2>
        <ErrorNote error={pending.error} />
        {pending.data === undefined ? (
          pending.loading && <Loading what="Loading pending approvals" />
        ) : pending.data.items.length === 0 ? (
          <p className="muted">No held calls are waiting.</p>
        ) : (
          <ApprovalTable approvals={pending.data.items} caption="Held calls, newest first" onDecided={decided} />
        )}
      </section>
      <section aria-labelledby="history-heading">
        <h2 id="history-heading">Decided</h2>
        <div className="filters">
          <div>
            <label htmlFor={statusId}>Status</label>
            <select
              id={statusId}
              value={status}
              onChange={(event) => {
                setCursor(undefined);
                setStatus(event.target.value as Status | 'all');
              }}
            >
              <option value="all">All decided</option>
              {SETTLED.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </div>
        </div>
        <ErrorNote error={history.error} />
        {settled === undefined ? (
          history.loading && <Loading what="Loading decided approvals" />
        ) : settled.length === 0 ? (
          <p className="muted">None on this page.</p>
        ) : (
          <ApprovalTable approvals={settled} caption="Decided approvals, newest first" onDecided={decided} />
        )}
        <Pager cursor={cursor} next={history.data?.next_cursor} onChange={setCursor} />
      </section>
    </>
  );
}

function ApprovalTable({ approvals, caption, onDecided }: { approvals: Approval[]; caption: string; onDecided(): void }) {
  const { can } = useAuth();
  const decidable = can('operator') && approvals.some((approval) => approval.status === 'pending');
  return (
    <TableWrap label={caption}>
      <table>
        <caption className="muted" style={{ textAlign: 'left' }}>
          {caption}
        </caption>
        <thead>
          <tr>
            <th scope="col">Call</th>
            <th scope="col">Arguments</th>
            <th scope="col">Why held</th>
            <th scope="col">Status</th>
            <th scope="col">Held</th>
            {decidable && <th scope="col">Decide</th>}
          </tr>
        </thead>
        <tbody>
          {approvals.map((approval) => (
            <tr key={approval.id}>
              <td>
                <Link href={`/agents/${encodeURIComponent(approval.agent)}`}>{approval.agent}</Link> called <code>{approval.tool}</code>
                <div className="muted">
                  <code>{approval.id}</code> · <Link href={`/decisions/${encodeURIComponent(approval.decision_id)}`}>decision</Link>
                </div>
              </td>
              <td>
                <pre className="content" style={{ margin: 0, padding: 6 }}>
                  {pretty(approval.arguments)}
                </pre>
              </td>
              <td>
                {approval.reason}
                {approval.rules.length > 0 && <div className="muted">{approval.rules.join(', ')}</div>}
              </td>
              <td>
                <Badge value={approval.status} />
                {approval.decided_by !== null && (
                  <div className="muted">
                    by {approval.decided_by} <When at={approval.decided_at} />
                  </div>
                )}
                {approval.rationale !== null && <q>{approval.rationale}</q>}
                {approval.used_decision_id !== null && (
                  <div>
                    <Link href={`/decisions/${encodeURIComponent(approval.used_decision_id)}`}>used</Link> <When at={approval.used_at} />
                  </div>
                )}
              </td>
              <td>
                <When at={approval.created_at} />
                <div className="muted">
                  expires <When at={approval.expires_at} />
                </div>
              </td>
              {decidable && (
                <td>
                  {approval.status === 'pending' && (
                    <div className="actions">
                      <ReasonAction
                        label="Approve"
                        field="Rationale"
                        onSubmit={(rationale) => outcome(api.POST('/api/approvals/{approval_id}/approve', { params: { path: { approval_id: approval.id } }, body: { rationale } }), onDecided)}
                      />
                      <ReasonAction
                        label="Deny"
                        field="Rationale"
                        danger
                        onSubmit={(rationale) => outcome(api.POST('/api/approvals/{approval_id}/deny', { params: { path: { approval_id: approval.id } }, body: { rationale } }), onDecided)}
                      />
                    </div>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** The held arguments (JSON text, sensitive values already redacted) indented for reading. */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
