// A pack's change proposals: each saved version opens one with its rule-level diff, its replay over
// recent traffic (evidence) and the lint of the set it would make (proof). Operators approve or
// reject with a note and apply an approved one; every refusal is shown beside its button.
import { useState } from 'react';
import { api } from '../api/client';
import { useAuth } from '../auth';
import { attempt, type LintReport, type Proposal } from './c-api';
import { PackDiffView } from './c-policy-diff';
import { SimulationSummary, asSimulation } from './c-policy-simulate';
import { Badge, ErrorNote, Loading, ReasonAction, When, useLoad } from './ui';

/** The proof is typed loosely on the wire; this checks it is a lint report before drawing it. */
function asLint(value: unknown): LintReport | null {
  if (value === null || typeof value !== 'object') return null;
  const report = value as Partial<LintReport>;
  return typeof report.passed === 'boolean' && Array.isArray(report.findings) ? (report as LintReport) : null;
}

/** Statuses from which apply can make the version live (or settle a finished canary). */
const APPLICABLE = ['approved', 'canary'];

export function ProposalList({ proposals, onChanged }: { proposals: Proposal[]; onChanged(): void }) {
  const [open, setOpen] = useState<string | null>(null);
  if (proposals.length === 0) return <p className="muted">No change proposals for this pack.</p>;
  return (
    <div>
      {proposals.map((proposal) => (
        <article key={proposal.id} className="card" style={{ marginBottom: 12 }}>
          <h3>
            {proposal.title} <Badge value={proposal.status} />
          </h3>
          <p>
            {proposal.from_version === null ? 'new pack' : `v${proposal.from_version}`} → v{proposal.to_version} · {proposal.approvals}/{proposal.approvals_needed} approval{proposal.approvals_needed === 1 ? '' : 's'}
            {proposal.loosening && ' · loosens policy (two approvers at org level)'} · by {proposal.created_by}, <When at={proposal.created_at} />
          </p>
          <button type="button" aria-expanded={open === proposal.id} onClick={() => setOpen(open === proposal.id ? null : proposal.id)}>
            {open === proposal.id ? 'Hide' : 'Show'} diff and evidence<span className="muted"> of v{proposal.to_version}</span>
          </button>
          {open === proposal.id && <ProposalDetailView id={proposal.id} onChanged={onChanged} />}
        </article>
      ))}
    </div>
  );
}

function ProposalDetailView({ id, onChanged }: { id: string; onChanged(): void }) {
  const { can } = useAuth();
  const detail = useLoad(() => api.GET('/api/proposals/{proposal_id}', { params: { path: { proposal_id: id } } }), [id]);
  const [applyError, setApplyError] = useState<string | null>(null);
  if (detail.data === undefined) return detail.error === null ? <Loading /> : <ErrorNote error={detail.error} />;
  const proposal = detail.data;
  const evidence = asSimulation(proposal.evidence);
  const proof = asLint(proposal.proof);
  const changed = () => {
    detail.reload();
    onChanged();
  };
  const decide = (approve: boolean) => async (note: string) => {
    const failed = await attempt(api.POST('/api/proposals/{proposal_id}/decide', { params: { path: { proposal_id: id } }, body: { approve, note } }));
    if (failed === null) changed();
    return failed;
  };
  const apply = async () => {
    const failed = await attempt(api.POST('/api/proposals/{proposal_id}/apply', { params: { path: { proposal_id: id } }, body: {} }));
    setApplyError(failed);
    if (failed === null) changed();
  };
  return (
    <div>
      <h4>Rule-level diff</h4>
      <PackDiffView diff={proposal.diff} />
      <h4>Evidence: replay of recent traffic</h4>
      {evidence === null ? <p className="muted">No replay recorded.</p> : <SimulationSummary simulation={evidence} />}
      <h4>Proof: lint of the set it would make</h4>
      {proof === null ? (
        <p className="muted">No lint recorded.</p>
      ) : (
        <p>
          <Badge value={proof.passed ? 'passed' : 'failed'} />{' '}
          {proof.findings.length === 0 ? 'No findings.' : proof.findings.map((finding) => `${finding.severity} ${finding.code}${finding.rule_id === undefined ? '' : ` (${finding.rule_id})`}`).join('; ')}
        </p>
      )}
      <h4>Decisions</h4>
      {proposal.decisions.length === 0 ? (
        <p className="muted">Nobody has decided yet.</p>
      ) : (
        <ul>
          {proposal.decisions.map((decision) => (
            <li key={`${decision.actor}-${decision.at}`}>
              {decision.actor} <Badge value={decision.approve ? 'approved' : 'denied'} />: {decision.note} (<When at={decision.at} />)
            </li>
          ))}
        </ul>
      )}
      {can('operator') && (
        <div className="actions">
          {proposal.status === 'pending' && (
            <>
              <ReasonAction label="Approve" field="Approval note" onSubmit={decide(true)} />
              <ReasonAction label="Reject" field="Rejection note" danger onSubmit={decide(false)} />
            </>
          )}
          {APPLICABLE.includes(proposal.status) && (
            <button type="button" className="primary" onClick={() => void apply()}>
              Apply
            </button>
          )}
        </div>
      )}
      <ErrorNote error={applyError} />
    </div>
  );
}
