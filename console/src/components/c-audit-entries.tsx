// The audit entries, newest first, filtered by action, actor or target, a page at a time.
import { useId, useState, type FormEvent } from 'react';
import { api } from '../api/client';
import type { AuditEntry } from './c-api';
import { TableWrap } from './ui';
import { ErrorNote, Loading, When, useLoad } from './ui';

const PAGE = 50;

interface Filter {
  action: string;
  actor: string;
  target: string;
}
const NO_FILTER: Filter = { action: '', actor: '', target: '' };

export function AuditEntries({ round }: { round: number }) {
  const id = useId();
  const [draft, setDraft] = useState<Filter>(NO_FILTER);
  const [filter, setFilter] = useState<Filter>(NO_FILTER);
  // Cursors of the pages before the one shown, so "Newer" can go back.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const entries = useLoad(() => {
    const query = Object.fromEntries(Object.entries(filter).filter(([, value]) => value.trim() !== '').map(([name, value]) => [name, value.trim()]));
    return api.GET('/api/audit/entries', { params: { query: { ...query, limit: PAGE, ...(cursor === undefined ? {} : { cursor }) } } });
  }, [filter, cursor, round]);
  const next = entries.data?.next_cursor;
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setCursors([]);
    setFilter(draft);
  };
  const field = (name: keyof Filter, label: string) => (
    <div>
      <label htmlFor={`${id}-${name}`}>{label}</label>
      <input id={`${id}-${name}`} value={draft[name]} onChange={(event) => setDraft({ ...draft, [name]: event.target.value })} />
    </div>
  );
  return (
    <>
      <form className="filters" onSubmit={apply} aria-label="Filter audit entries">
        {field('action', 'Action')}
        {field('actor', 'Actor')}
        {field('target', 'Target')}
        <button type="submit">Filter</button>
      </form>
      <ErrorNote error={entries.error} />
      {entries.data === undefined ? entries.error === null && <Loading /> : <EntryTable entries={entries.data.items} />}
      <div className="actions">
        {cursors.length > 0 && (
          <button type="button" onClick={() => setCursors(cursors.slice(0, -1))}>
            Newer entries
          </button>
        )}
        {typeof next === 'string' && (
          <button type="button" onClick={() => setCursors([...cursors, next])}>
            Older entries
          </button>
        )}
      </div>
    </>
  );
}

/** An entry's detail as "key: value" pairs (nested values as JSON), readable in a table cell. */
function describe(detail: AuditEntry['detail']): string {
  const pairs = Object.entries(detail).map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return pairs.length === 0 ? '—' : pairs.join(' · ');
}

function EntryTable({ entries }: { entries: AuditEntry[] }) {
  if (entries.length === 0) return <p className="muted">No entries match.</p>;
  return (
    <TableWrap label="Audit entries table">
      <table>
        <thead>
          <tr>
            <th scope="col">Seq</th>
            <th scope="col">When</th>
            <th scope="col">Actor</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Detail</th>
            <th scope="col">Hash</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td>{entry.seq}</td>
              <td>
                <When at={entry.at} />
              </td>
              <td>{entry.actor}</td>
              <td>
                <code>{entry.action}</code>
              </td>
              <td>{entry.target ?? '—'}</td>
              <td style={{ minWidth: '18rem' }}>{describe(entry.detail)}</td>
              <td>
                <code title={entry.hash}>{entry.hash.slice(0, 12)}…</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
