// What one playground session runs on: its own gateway core (a fresh SQLite database in its own
// temporary directory, with every service built on it), opened by the composition root
// (buildSandboxCore in src/services.ts: areas may not import it) and handed to the playground as a
// factory. Nothing here reaches the tenant's store. provisionSandbox() sets a new core up with
// the demo agent, its tools and grants; the shipped packs are already seeded (baseline in observe).
import type { Pipeline } from '../../engine/pipeline/decide.js';
import type { Recorder } from '../../engine/recording/recorder.js';
import type { Principal } from '../../infra/auth/principal.js';
import type { AgentService } from '../agents/service.js';
import type { AuditService } from '../audit/service.js';
import type { ComplianceService } from '../compliance/service.js';
import type { ModelCaller } from '../eval/types.js';
import type { PolicyService } from '../policies/service.js';
import type { ToolService } from '../tools/service.js';
import type { TraceService } from '../traces/service.js';
import { DEMO_AGENT } from './demo-agent.js';

/** The services of one sandbox, each on the sandbox's own database. */
export interface SandboxCore {
  pipeline: Pick<Pipeline, 'decideAndRecord'>;
  recorder: Pick<Recorder, 'flush'>;
  agents: Pick<AgentService, 'register' | 'grant'>;
  tools: Pick<ToolService, 'register'>;
  policies: Pick<PolicyService, 'setMode'>;
  traces: Pick<TraceService, 'list'>;
  auditService: Pick<AuditService, 'verify'>;
  compliance: Pick<ComplianceService, 'compute' | 'status'>;
  /** The sandbox's model proxy (its configured upstream); used only with playground_upstream. */
  proxy: ModelCaller;
  /** Stops the sandbox's services, closes its database and removes its directory. */
  close(): Promise<void>;
}

export type OpenSandbox = () => Promise<SandboxCore>;

/** Who acts inside a sandbox: an operator that exists only there (its audit entries stay there). */
export const SANDBOX_OPERATOR: Principal = {
  kind: 'operator',
  role: 'admin',
  tokenId: 'playground',
  tokenHash: '',
  name: 'playground',
  owner: 'playground',
  expiresAt: null,
};

/** The shipped pack the session's enforce switch flips. */
export const BASELINE_PACK = 'baseline';

export interface DemoTool {
  key: string;
  description: string;
  impact: 'low' | 'medium' | 'high' | 'critical';
  kind: string;
  /** The grant the demo agent holds for it; null: none (default deny). */
  grant: { actions?: string[]; max_taint?: string; requires_approval?: boolean; constraints?: Record<string, unknown> } | null;
  json_schema: Record<string, unknown>;
}

const stringProps = (...names: string[]) => Object.fromEntries(names.map((name) => [name, { type: 'string', maxLength: 2000 }]));

/** The demo agent's tools: what each shows about grants, taint and action analysis. */
export const DEMO_TOOLS: readonly DemoTool[] = [
  {
    key: 'kb.search',
    description: 'Searches the help centre (read-only; granted)',
    impact: 'low',
    kind: 'function',
    grant: { actions: ['read'] },
    json_schema: { type: 'object', properties: stringProps('query'), required: ['query'] },
  },
  {
    key: 'orders.query',
    description: 'Runs SQL on the bookings database (granted for reads only: a write or delete is refused by action analysis)',
    impact: 'high',
    kind: 'sql',
    grant: { actions: ['read'] },
    json_schema: { type: 'object', properties: stringProps('sql'), required: ['sql'] },
  },
  {
    key: 'email.send',
    description: 'Sends an e-mail (granted with limits: only arguments from the user or the operator, never from a pasted document)',
    impact: 'medium',
    kind: 'function',
    grant: { actions: ['write'], max_taint: 'trusted' },
    json_schema: { type: 'object', properties: stringProps('to', 'subject', 'body'), required: ['to'] },
  },
  {
    key: 'payments.refund',
    description: 'Refunds a payment (declared but not granted: every call is refused by default deny)',
    impact: 'critical',
    kind: 'function',
    grant: null,
    json_schema: { type: 'object', properties: { ...stringProps('order_id'), amount: { type: 'number' } }, required: ['order_id'] },
  },
];

/** Registers the demo tools and the demo agent (approved) in a new sandbox and grants it its tools. */
export async function provisionSandbox(core: SandboxCore): Promise<void> {
  for (const tool of DEMO_TOOLS) {
    await core.tools.register(SANDBOX_OPERATOR, { key: tool.key, name: tool.key, kind: tool.kind, impact: tool.impact, description: tool.description, json_schema: tool.json_schema });
  }
  await core.agents.register(SANDBOX_OPERATOR, {
    slug: DEMO_AGENT,
    name: 'Playground demo agent',
    purpose: 'A scripted travel-booking assistant for the public playground: no model, and it follows any instruction it reads.',
    owner_team: 'playground',
    declared_tools: DEMO_TOOLS.map((tool) => tool.key),
  });
  for (const tool of DEMO_TOOLS) {
    if (tool.grant !== null) await core.agents.grant(SANDBOX_OPERATOR, DEMO_AGENT, { tool_key: tool.key, ...tool.grant });
  }
}
