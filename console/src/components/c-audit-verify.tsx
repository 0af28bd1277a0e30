// Verification of the audit chain (POST /api/audit/verify): recomputes every entry's hash and link
// and checks each checkpoint's signature; names the first entry that does not verify. Any signed-in
// operator may run it.
import { useState } from 'react';
import { api } from '../api/client';
import { attempt, type Verification } from './c-api';
import { TableWrap } from './ui';
import { Badge, ErrorNote } from './ui';

export function VerifyChain() {
  const [result, setResult] = useState<Verification | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const verify = async () => {
    setBusy(true);
    const call = api.POST('/api/audit/verify', { body: {} });
    const failed = await attempt(call);
    setResult(failed === null ? ((await call).data ?? null) : null);
    setError(failed);
    setBusy(false);
  };
  return (
    <>
      <div className="actions">
        <button type="button" className="primary" disabled={busy} onClick={() => void verify()}>
          Verify the chain
        </button>
      </div>
      <ErrorNote error={error} />
      {busy && (
        <p className="loading" role="status">
          Verifying…
        </p>
      )}
      {result !== null && (
        <div role="status" aria-live="polite">
          <p>
            {result.ok ? <Badge value="intact" /> : <Badge value="broken" />} {result.ok ? 'The chain is intact' : 'The chain does not verify'}: {result.checked} entr
            {result.checked === 1 ? 'y' : 'ies'} checked, seq {result.start_seq} to {result.end_seq}.
          </p>
          {result.first_bad !== null && (
            <p className="error">
              First bad entry: seq {result.first_bad.seq} ({result.first_bad.id}), {result.first_bad.reason}.
            </p>
          )}
          {result.missing_checkpoints.length > 0 && (
            <p className="error">Checkpoints missing from storage: {result.missing_checkpoints.map((missing) => `${missing.id} at seq ${missing.seq}`).join(', ')}.</p>
          )}
          {result.checkpoints.length > 0 && (
            <TableWrap label="Checkpoints checked table">
              <table>
                <caption>Checkpoints checked</caption>
                <thead>
                  <tr>
                    <th scope="col">Checkpoint</th>
                    <th scope="col">Seq</th>
                    <th scope="col">Signature</th>
                    <th scope="col">Matches the chain</th>
                  </tr>
                </thead>
                <tbody>
                  {result.checkpoints.map((checkpoint) => (
                    <tr key={checkpoint.id}>
                      <td>
                        <code>{checkpoint.id}</code>
                      </td>
                      <td>{checkpoint.seq}</td>
                      <td>{checkpoint.signature_valid ? 'valid' : 'INVALID'}</td>
                      <td>{checkpoint.matches_chain ? 'yes' : 'NO'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </div>
      )}
    </>
  );
}
