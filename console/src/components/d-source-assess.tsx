// Assess an answer against the chunks it was built from (POST /api/sources/assess): which sentences
// the chunks bear out, and the registry's flags on each chunk's source. Takes any credential and
// changes nothing but the sources' last citation, so every role may use it.
import { useId, useState, type FormEvent } from 'react';
import { api, problemText, type paths } from '../api/client';
import { Badge, ErrorNote } from './ui';
import { percent } from './d-figures';

type Assessment = paths['/api/sources/assess']['post']['responses'][200]['content']['application/json'];

/** `onAssessed` runs after an answer: a supporting chunk's source now has a newer last citation. */
export function AssessAnswer({ sourceKeys, onAssessed }: { sourceKeys: string[]; onAssessed(): void }) {
  const [answer, setAnswer] = useState('');
  const [source, setSource] = useState(sourceKeys[0] ?? '');
  const [chunk, setChunk] = useState('');
  const [result, setResult] = useState<Assessment | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ids = { answer: useId(), source: useId(), chunk: useId() };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    const { data, error: refusal } = await api.POST('/api/sources/assess', { body: { answer, chunks: [{ source: source.trim(), text: chunk }] } });
    setBusy(false);
    setResult(data ?? null);
    setError(data === undefined ? problemText(refusal) : null);
    if (data !== undefined) onAssessed();
  };
  return (
    <section aria-labelledby="assess-heading">
      <h2 id="assess-heading">Assess an answer</h2>
      <form onSubmit={(event) => void submit(event)} style={{ display: 'grid', gap: 8, maxWidth: 720 }}>
        <label htmlFor={ids.answer}>Answer</label>
        <textarea id={ids.answer} rows={3} value={answer} onChange={(event) => setAnswer(event.target.value)} required />
        <label htmlFor={ids.source}>Chunk source (a source key)</label>
        <input id={ids.source} list={`${ids.source}-keys`} value={source} onChange={(event) => setSource(event.target.value)} required />
        <datalist id={`${ids.source}-keys`}>
          {sourceKeys.map((key) => (
            <option key={key} value={key} />
          ))}
        </datalist>
        <label htmlFor={ids.chunk}>Chunk text</label>
        <textarea id={ids.chunk} rows={3} value={chunk} onChange={(event) => setChunk(event.target.value)} required />
        <div>
          <button type="submit" disabled={busy}>
            Assess
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
      {result !== null && (
        <div aria-live="polite">
          <p>
            Supported: <strong>{percent(result.supported_ratio)}</strong> of the sentences ({result.method.name}, threshold {result.method.threshold}).
            {result.chunks.map((entry) => (
              <span key={entry.index}>
                {' '}
                Source {entry.source}: {entry.flags.length === 0 ? 'no flag' : entry.flags.map((flag) => <Badge key={flag} value={flag} />)}
              </span>
            ))}
          </p>
          <ul>
            {result.sentences.map((sentence) => (
              <li key={sentence.start}>
                <Badge value={sentence.supported ? 'supported' : 'unsupported'} /> {sentence.text} <span className="muted">(score {sentence.score === null ? '—' : sentence.score.toFixed(2)})</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
