// The one-click mode switch of a policy (POST /api/policies/{key}/mode): observe records what the
// rules would do, enforce applies it. Shown only to operators; a refusal is shown beside it.
import { useState } from 'react';
import { api } from '../api/client';
import { useAuth } from '../auth';
import { attempt } from './c-api';
import { ErrorNote } from './ui';

export function ModeSwitch({ policyKey, mode, onChanged }: { policyKey: string; mode: 'observe' | 'enforce'; onChanged(): void }) {
  const { can } = useAuth();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!can('operator')) return null;
  const next = mode === 'observe' ? 'enforce' : 'observe';
  const change = async () => {
    setBusy(true);
    const failed = await attempt(api.POST('/api/policies/{key}/mode', { params: { path: { key: policyKey } }, body: { mode: next } }));
    setBusy(false);
    setError(failed);
    if (failed === null) onChanged();
  };
  const verb = next === 'enforce' ? 'Enforce' : 'Observe';
  return (
    <span className="mode-switch">
      <button type="button" className={next === 'enforce' ? 'primary' : undefined} disabled={busy} aria-label={`${verb} ${policyKey}`} onClick={() => void change()}>
        {verb}
      </button>
      <ErrorNote error={error} />
    </span>
  );
}
