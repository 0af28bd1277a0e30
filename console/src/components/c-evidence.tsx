// Evidence packages: the list (status, period, counts, size) with a download of each ready one, and
// for operators a form that builds one for a period, some agents and some controls.
import { useId, useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { useAuth } from '../auth';
import { attempt, type EvidencePackage, type EvidenceRequest } from './c-api';
import { fileNameOf, saveBlob } from './c-download';
import { TableWrap } from './ui';
import { Badge, ErrorNote, Loading, When, useLoad } from './ui';

/** "a, b c" → ["a", "b", "c"]: names typed as a list. */
function names(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter((name) => name !== ''))];
}

function size(bytes: number | null): string {
  if (bytes === null) return '—';
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

export function EvidencePackages({ onChanged }: { onChanged(): void }) {
  const packages = useLoad(() => api.GET('/api/evidence', { params: { query: { limit: 50 } } }), []);
  const built = () => {
    packages.reload();
    onChanged();
  };
  return (
    <>
      <BuildForm onBuilt={built} />
      <ErrorNote error={packages.error} />
      {packages.data === undefined ? packages.error === null && <Loading /> : <PackageTable packages={packages.data.items} />}
    </>
  );
}

function BuildForm({ onBuilt }: { onBuilt(): void }) {
  const { can } = useAuth();
  const id = useId();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [agents, setAgents] = useState('');
  const [controls, setControls] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!can('operator')) return null;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const body: EvidenceRequest = {
      ...(from === '' ? {} : { period_from: from }),
      ...(to === '' ? {} : { period_to: to }),
      ...(names(agents).length === 0 ? {} : { agents: names(agents) }),
      ...(names(controls).length === 0 ? {} : { controls: names(controls) }),
    };
    setBusy(true);
    setNote(null);
    const call = api.POST('/api/evidence', { body });
    const failed = await attempt(call);
    setBusy(false);
    setError(failed);
    if (failed === null) {
      // 202: a transient failure, a job builds it later.
      setNote((await call).response.status === 202 ? 'Queued: a job will build the package shortly.' : 'Package built.');
      onBuilt();
    }
  };
  const input = (name: string, label: string, value: string, set: (value: string) => void, type = 'text') => (
    <div>
      <label htmlFor={`${id}-${name}`}>{label}</label>
      <input id={`${id}-${name}`} type={type} value={value} onChange={(event) => set(event.target.value)} />
    </div>
  );
  return (
    <form onSubmit={(event) => void submit(event)} aria-label="Build an evidence package">
      <p className="hint">Defaults: the last 30 days, every agent. Agents and controls: names separated by commas.</p>
      <div className="filters">
        {input('from', 'From', from, setFrom, 'date')}
        {input('to', 'To', to, setTo, 'date')}
        {input('agents', 'Agents', agents, setAgents)}
        {input('controls', 'Controls', controls, setControls)}
        <button type="submit" className="primary" disabled={busy}>
          Build evidence package
        </button>
      </div>
      <ErrorNote error={error} />
      {note !== null && (
        <p role="status" className="muted">
          {note}
        </p>
      )}
    </form>
  );
}

function PackageTable({ packages }: { packages: EvidencePackage[] }) {
  const [error, setError] = useState<string | null>(null);
  if (packages.length === 0) return <p className="muted">No evidence package yet.</p>;
  const download = async (item: EvidencePackage) => {
    setError(null);
    const call = api.GET('/api/evidence/{package_id}/download', { params: { path: { package_id: item.id } }, parseAs: 'blob' });
    const failed = await attempt(call);
    if (failed !== null) return setError(failed);
    const { data, response } = await call;
    if (data !== undefined) saveBlob(data, fileNameOf(response, `${item.id}.zip`));
  };
  return (
    <>
      <ErrorNote error={error} />
      <TableWrap label="Evidence packages table">
        <table>
          <thead>
            <tr>
              <th scope="col">Package</th>
              <th scope="col">Status</th>
              <th scope="col">Period</th>
              <th scope="col">Scope</th>
              <th scope="col">Contents</th>
              <th scope="col">Size</th>
              <th scope="col">Built</th>
              <th scope="col">Download</th>
            </tr>
          </thead>
          <tbody>
            {packages.map((item) => (
              <tr key={item.id}>
                <td>
                  <code>{item.id}</code>
                </td>
                <td>
                  <Badge value={item.status} />
                  {item.error !== null && <div className="error">{item.error}</div>}
                </td>
                <td>
                  <When at={item.scope.period_from} /> – <When at={item.scope.period_to} />
                </td>
                <td>
                  {item.scope.agents.length === 0 ? 'every agent' : item.scope.agents.join(', ')}
                  {item.scope.controls.length > 0 && `; controls ${item.scope.controls.join(', ')}`}
                </td>
                <td>
                  {item.counts === null
                    ? '—'
                    : `${item.counts.decisions} decisions, ${item.counts.findings} findings, ${item.counts.approvals} approvals, ${item.counts.policies} policies, ${item.counts.audit_entries} audit entries`}
                </td>
                <td>{size(item.size_bytes)}</td>
                <td>
                  {item.created_by}, <When at={item.completed_at ?? item.created_at} />
                </td>
                <td>
                  {item.status === 'ready' ? (
                    <button type="button" aria-label={`Download ${item.id}`} onClick={() => void download(item)}>
                      Download
                    </button>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </>
  );
}
