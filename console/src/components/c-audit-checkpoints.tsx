// Checkpoints of the audit chain: the audit.checkpoint entries, the latest signed head with the
// public key that checks it (to download and keep outside the gateway), and, for operators, a
// button that seals the head now.
import { useState } from 'react';
import { api } from '../api/client';
import { useAuth } from '../auth';
import { attempt } from './c-api';
import { saveBlob } from './c-download';
import { TableWrap } from './ui';
import { ErrorNote, Loading, When, useLoad } from './ui';

/** `round` changes when something else may have made a checkpoint (an evidence package seals one). */
export function Checkpoints({ round, onChanged }: { round: number; onChanged(): void }) {
  const { can } = useAuth();
  const entries = useLoad(() => api.GET('/api/audit/entries', { params: { query: { action: 'audit.checkpoint', limit: 20 } } }), [round]);
  // GET /api/audit/head answers 404 before the first checkpoint, which the browser would log.
  const any = (entries.data?.items.length ?? 0) > 0;
  const newest = entries.data?.items[0]?.id;
  const head = useLoad(() => (any ? api.GET('/api/audit/head') : Promise.resolve({ data: null })), [any, newest]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const seal = async () => {
    setBusy(true);
    const failed = await attempt(api.POST('/api/audit/checkpoint', { body: {} }));
    setBusy(false);
    setError(failed);
    if (failed === null) onChanged();
  };
  return (
    <>
      {can('operator') && (
        <div className="actions">
          <button type="button" disabled={busy} onClick={() => void seal()}>
            Create a checkpoint
          </button>
        </div>
      )}
      <ErrorNote error={error} />
      {head.data !== undefined && head.data !== null && (
        <p>
          Latest signed head: <code>{head.data.checkpoint.id}</code> at seq {head.data.checkpoint.seq}, <When at={head.data.checkpoint.at} />, {head.data.checkpoint.algorithm} key{' '}
          <code>{head.data.checkpoint.key_id}</code>.{' '}
          <button
            type="button"
            className="link"
            onClick={() => head.data && saveBlob(new Blob([JSON.stringify(head.data, null, 2)], { type: 'application/json' }), `audit-head-${head.data.checkpoint.seq}.json`)}
          >
            Download the signed head
          </button>
        </p>
      )}
      <ErrorNote error={entries.error ?? head.error} />
      {entries.data === undefined ? (
        entries.error === null && <Loading />
      ) : entries.data.items.length === 0 ? (
        <p className="muted">No checkpoint yet.</p>
      ) : (
        <TableWrap label="Checkpoints table">
          <table>
            <thead>
              <tr>
                <th scope="col">Checkpoint</th>
                <th scope="col">Seq</th>
                <th scope="col">When</th>
                <th scope="col">By</th>
              </tr>
            </thead>
            <tbody>
              {entries.data.items.map((entry) => (
                <tr key={entry.id}>
                  <td>
                    <code>{entry.target ?? entry.id}</code>
                  </td>
                  <td>{entry.seq}</td>
                  <td>
                    <When at={entry.at} />
                  </td>
                  <td>{entry.actor}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </>
  );
}
