// Audit and evidence: verify the tamper-evident chain, its signed checkpoints, the entries
// themselves, and evidence packages to build and download.
import { useState } from 'react';
import { AuditEntries } from '../components/c-audit-entries';
import { Checkpoints } from '../components/c-audit-checkpoints';
import { VerifyChain } from '../components/c-audit-verify';
import { EvidencePackages } from '../components/c-evidence';
import { PageHeader } from '../components/ui';

export default function AuditPage() {
  // A checkpoint or a package appends audit entries (and a package seals a checkpoint): the lists
  // load again after either.
  const [round, setRound] = useState(0);
  const changed = () => setRound((value) => value + 1);
  return (
    <>
      <PageHeader title="Audit & evidence" />
      <section aria-labelledby="verify-heading">
        <h2 id="verify-heading">Verify the chain</h2>
        <p className="hint">Every change appends an entry whose hash covers the one before; verification recomputes them all and checks each checkpoint&apos;s signature.</p>
        <VerifyChain />
      </section>
      <section aria-labelledby="checkpoints-heading">
        <h2 id="checkpoints-heading">Checkpoints</h2>
        <Checkpoints round={round} onChanged={changed} />
      </section>
      <section aria-labelledby="evidence-heading">
        <h2 id="evidence-heading">Evidence packages</h2>
        <EvidencePackages onChanged={changed} />
      </section>
      <section aria-labelledby="entries-heading">
        <h2 id="entries-heading">Audit entries</h2>
        <AuditEntries round={round} />
      </section>
    </>
  );
}
