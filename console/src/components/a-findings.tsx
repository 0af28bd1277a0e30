// Moving findings between open, suppressed and resolved (PATCH /api/findings/{finding_id}), for one
// finding (its row or its page) and for several at once (the queue's bulk bar). The API requires a
// suppression reason or a note for every move; the forms ask for it and show the API's refusal.
import { api, problemText, type paths } from '../api/client';
import { ReasonAction } from './ui';

export type Finding = paths['/api/findings/{finding_id}']['get']['responses'][200]['content']['application/json'];
type Status = Finding['status'];

/** One move; resolves with the refusal as one line, or null when it was made. */
export async function moveFinding(id: string, status: Status, text: string): Promise<string | null> {
  const body = status === 'suppressed' ? { status, suppression_reason: text } : { status, note: text };
  try {
    const { error, response } = await api.PATCH('/api/findings/{finding_id}', { params: { path: { finding_id: id } }, body });
    return response.ok ? null : problemText(error);
  } catch (error) {
    return problemText(error);
  }
}

/** The same move for several findings, one after another; the refusals name their finding. */
export async function moveFindings(ids: readonly string[], status: Status, text: string): Promise<{ moved: string[]; refusals: string[] }> {
  const moved: string[] = [];
  const refusals: string[] = [];
  for (const id of ids) {
    const refusal = await moveFinding(id, status, text);
    if (refusal === null) moved.push(id);
    else refusals.push(`${id}: ${refusal}`);
  }
  return { moved, refusals };
}

/** The moves a finding's status allows; render only for an operator. */
export function FindingActions({ finding, onChanged }: { finding: Pick<Finding, 'id' | 'status'>; onChanged(): void }) {
  const run = (status: Status) => async (text: string) => {
    const refusal = await moveFinding(finding.id, status, text);
    if (refusal === null) onChanged();
    return refusal;
  };
  if (finding.status === 'open') {
    return (
      <div className="actions">
        <ReasonAction label="Suppress" field="Reason" onSubmit={run('suppressed')} />
        <ReasonAction label="Resolve" field="Note" onSubmit={run('resolved')} />
      </div>
    );
  }
  return (
    <div className="actions">
      <ReasonAction label={finding.status === 'suppressed' ? 'Unsuppress' : 'Reopen'} field="Note" onSubmit={run('open')} />
    </div>
  );
}
