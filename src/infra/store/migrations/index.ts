// The ordered list of migrations. Add a file named YYYY-MM-DD-NN-what.ts and one line here.
import type { Migration } from 'kysely';
import * as foundation from './2026-11-21-01-foundation.js';
import * as decisions from './2026-11-21-02-decisions.js';
import * as agents from './2026-11-21-03-agents.js';
import * as review from './2026-11-21-04-review.js';
import * as spans from './2026-11-21-05-spans.js';
import * as mcp from './2026-11-21-06-mcp.js';
import * as usage from './2026-11-21-07-usage.js';
import * as policyCode from './2026-11-21-08-policy-code.js';
import * as deadLetters from './2026-11-25-09-dead-letters.js';
import * as auditSigning from './2026-11-25-10-audit-signing.js';
import * as approvalDedupe from './2026-11-25-11-approval-dedupe.js';
import * as judgmentPosture from './2026-11-25-12-judgment-posture.js';
import * as compliance from './2026-11-25-13-compliance.js';
import * as risk from './2026-11-25-14-risk.js';
import * as evaluations from './2026-11-26-15-evaluations.js';
import * as redteam from './2026-11-26-16-redteam.js';
import * as knowledge from './2026-11-26-17-knowledge.js';
import * as entitlementRetrievals from './2026-11-26-18-entitlement-retrievals.js';
import * as integrations from './2026-11-26-19-integrations.js';
import * as escalation from './2026-11-26-20-escalation.js';
import * as publicEndpoints from './2026-11-26-21-public.js';

export const migrations: Record<string, Migration> = {
  '2026-11-21-01-foundation': foundation,
  '2026-11-21-02-decisions': decisions,
  '2026-11-21-03-agents': agents,
  '2026-11-21-04-review': review,
  '2026-11-21-05-spans': spans,
  '2026-11-21-06-mcp': mcp,
  '2026-11-21-07-usage': usage,
  '2026-11-21-08-policy-code': policyCode,
  '2026-11-25-09-dead-letters': deadLetters,
  '2026-11-25-10-audit-signing': auditSigning,
  '2026-11-25-11-approval-dedupe': approvalDedupe,
  '2026-11-25-12-judgment-posture': judgmentPosture,
  '2026-11-25-13-compliance': compliance,
  '2026-11-25-14-risk': risk,
  '2026-11-26-15-evaluations': evaluations,
  '2026-11-26-16-redteam': redteam,
  '2026-11-26-17-knowledge': knowledge,
  '2026-11-26-18-entitlement-retrievals': entitlementRetrievals,
  '2026-11-26-19-integrations': integrations,
  '2026-11-26-20-escalation': escalation,
  '2026-11-26-21-public': publicEndpoints,
};

export const LATEST_MIGRATION = Object.keys(migrations).sort().at(-1) ?? 'none';
