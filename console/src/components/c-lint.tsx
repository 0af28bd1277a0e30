// Lint results of the policies in force (GET /api/policies/lint): whether the set passes, the
// counts by severity and each finding; on a pack's page only that pack's findings.
import { api } from '../api/client';
import { TableWrap } from './ui';
import { Badge, ErrorNote, Loading, useLoad } from './ui';

const SEVERITIES = ['critical', 'high', 'medium', 'low'];

export function LintResults({ policy }: { policy?: string }) {
  const lint = useLoad(() => api.GET('/api/policies/lint'), []);
  if (lint.data === undefined) return lint.error === null ? <Loading what="Linting" /> : <ErrorNote error={lint.error} />;
  const findings = policy === undefined ? lint.data.findings : lint.data.findings.filter((finding) => finding.policy === policy);
  return (
    <>
      <p>
        The policies in force <Badge value={lint.data.passed ? 'passed' : 'failed'} />{' '}
        {SEVERITIES.map((severity) => `${lint.data?.counts[severity] ?? 0} ${severity}`).join(', ')}
        {policy !== undefined && `; ${findings.length} finding${findings.length === 1 ? '' : 's'} in ${policy}`}.
      </p>
      {findings.length > 0 && (
        <TableWrap label="Lint findings table">
          <table>
            <thead>
              <tr>
                <th scope="col">Severity</th>
                <th scope="col">Code</th>
                {policy === undefined && <th scope="col">Policy</th>}
                <th scope="col">Rule</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {findings.map((finding, index) => (
                <tr key={`${finding.code}-${finding.policy}-${finding.rule_id ?? ''}-${index}`}>
                  <td>
                    <Badge value={finding.severity} />
                  </td>
                  <td>
                    <code>{finding.code}</code>
                  </td>
                  {policy === undefined && <td>{finding.policy}</td>}
                  <td>{finding.rule_id ?? '—'}</td>
                  <td>{finding.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </>
  );
}
