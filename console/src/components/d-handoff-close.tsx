// Closing a hand-off: the person's note and how it ended. Both are asked for because a close without
// either raises an incomplete_handoff finding (src/areas/escalation README).
import { useId, useState, type FormEvent } from 'react';
import { ErrorNote } from './ui';

export function CloseHandoff({ onSubmit }: { onSubmit(note: string, resolution: string): Promise<string | null> }) {
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState('');
  const [resolution, setResolution] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ids = { note: useId(), resolution: useId() };
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Close
      </button>
    );
  }
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    const failed = await onSubmit(note.trim(), resolution.trim());
    setBusy(false);
    setError(failed);
    if (failed === null) setOpen(false);
  };
  return (
    <form className="reason" aria-label="Close" onSubmit={(event) => void submit(event)}>
      <label htmlFor={ids.note}>Note</label>
      <input id={ids.note} value={note} onChange={(event) => setNote(event.target.value)} required autoFocus />
      <label htmlFor={ids.resolution}>Resolution</label>
      <input id={ids.resolution} value={resolution} onChange={(event) => setResolution(event.target.value)} required />
      <button type="submit" disabled={busy}>
        Close
      </button>
      <button type="button" className="link" onClick={() => setOpen(false)}>
        Cancel
      </button>
      <ErrorNote error={error} />
    </form>
  );
}
