// GET /api/onboarding: the install state as a checklist, computed from live records on every call
// (nothing stored). Each item says how to complete it: a `parapet` command (docs/cli.md) or a route.
import type { Clock } from '../../infra/lib/clock.js';
import type { Store } from '../../infra/store/db.js';
import type { Onboarding, OnboardingItem, OnboardingKey } from './schemas.js';
import * as store from './store.js';

/** Who mints the admin token a fresh install starts with (src/areas/tokens/service.ts). */
const BOOTSTRAP_CREATORS = new Set(['bootstrap', 'environment']);

export interface OnboardingDeps {
  store: Store;
  clock: Clock;
  /** Enabled detectors that cannot run, with why (the detector registry). */
  unavailableDetectors: () => Array<{ key: string; reason: string }>;
}

type Check = { state: 'done' | 'todo' | 'unknown'; done_at: string | null; reason: string | null };

const done = (at: string | null): Check => ({ state: 'done', done_at: at, reason: null });
const todo = (reason: string): Check => ({ state: 'todo', done_at: null, reason });
const since = (at: string | null, reason: string): Check => (at === null ? todo(reason) : done(at));

const STEPS: Array<{ key: OnboardingKey; title: string; how: string }> = [
  {
    key: 'admin_token_rotated',
    title: 'Replace the bootstrap admin token',
    how: 'parapet admin token create --name NAME --role admin, then parapet admin token revoke BOOTSTRAP_TOKEN_ID (or POST /api/tokens, POST /api/tokens/{token_id}/revoke)',
  },
  { key: 'traffic_token_minted', title: 'Mint a traffic token for agents', how: 'parapet admin token create --name NAME --role traffic (or POST /api/tokens with role traffic)' },
  { key: 'agent_registered', title: 'Register a first agent', how: 'POST /api/agents (slug, owner_email, purpose), or POST /api/agents/{agent_id}/approve for one seen in traffic' },
  { key: 'decision_recorded', title: 'Send a first call through the gateway', how: 'POST /v1/guard/input, or a proxied call to /v1/chat/completions, /v1/responses or /v1/messages with a traffic token' },
  { key: 'baseline_enforced', title: 'Promote the baseline pack to enforce', how: 'parapet policy mode baseline enforce (or POST /api/policies/baseline/mode with mode enforce)' },
  { key: 'grant_approved', title: 'Grant an agent its first tool', how: 'POST /api/identities/{identity_id}/capabilities (tool_key, actions)' },
  { key: 'audit_checkpoint_signed', title: 'Sign an audit checkpoint', how: 'parapet audit checkpoint (or POST /api/audit/checkpoint)' },
  { key: 'evidence_package_built', title: 'Build an evidence package', how: 'parapet evidence create (or POST /api/evidence)' },
  { key: 'controls_computed', title: 'Compute the compliance controls', how: 'POST /api/controls/compute (daily by default once computed)' },
  { key: 'detectors_available', title: 'Every enabled detector can run', how: 'GET /api/detectors and GET /api/health name what is missing; install it or disable the detector (POST /api/detectors/{key})' },
];

export class OnboardingService {
  constructor(private readonly deps: OnboardingDeps) {}

  async checklist(): Promise<Onboarding> {
    const checks = await this.checks();
    const items: OnboardingItem[] = STEPS.map((step) => {
      const check = checks[step.key];
      return { key: step.key, title: step.title, done: check.state === 'done', state: check.state, done_at: check.done_at, reason: check.reason, how: step.how };
    });
    const doneCount = items.filter((item) => item.done).length;
    return { items, done_count: doneCount, total: items.length, next: items.find((item) => !item.done) ?? null };
  }

  private async checks(): Promise<Record<OnboardingKey, Check>> {
    const db = this.deps.store.db;
    const now = this.deps.clock.now().toISOString();
    const [admins, traffic, agent, decision, baseline, grant, checkpoint, evidence, controls] = await Promise.all([
      store.adminTokens(db),
      store.firstTrafficToken(db),
      store.firstRegisteredAgent(db),
      store.firstDecision(db),
      store.baselineModes(db),
      store.firstGrant(db),
      store.firstCheckpoint(db),
      store.firstEvidencePackage(db),
      store.firstControlResult(db),
    ]);
    const unavailable = this.deps.unavailableDetectors();
    return {
      admin_token_rotated: adminRotated(admins, now),
      traffic_token_minted: since(traffic, 'no traffic token has been minted'),
      agent_registered: since(agent, 'no agent is registered'),
      decision_recorded: since(decision, 'no decision has been recorded'),
      baseline_enforced:
        baseline.length === 0
          ? todo('the baseline pack is not installed')
          : baseline.every((row) => row.mode === 'enforce')
            ? done(baseline.map((row) => row.updated_at).sort().at(-1) ?? null)
            : todo('the baseline pack is in observe: what it detects is reported, not blocked'),
      grant_approved: since(grant, 'no agent has been granted a tool'),
      audit_checkpoint_signed: since(checkpoint, 'no audit checkpoint has been signed'),
      evidence_package_built: since(evidence, 'no evidence package has been built'),
      controls_computed:
        controls === undefined
          ? { state: 'unknown', done_at: null, reason: 'control results are not recorded by this database (no control_results table)' }
          : since(controls, 'the controls have never been computed'),
      detectors_available:
        unavailable.length === 0
          ? done(null)
          : todo(`enabled detectors that cannot run: ${unavailable.map((item) => `${item.key} (${item.reason})`).join('; ')}`),
    };
  }
}

/** Done when the bootstrap admin token is no longer the only admin token, or it is revoked. */
function adminRotated(tokens: Awaited<ReturnType<typeof store.adminTokens>>, now: string): Check {
  const live = (row: (typeof tokens)[number]) => row.revoked_at === null && (row.expires_at === null || row.expires_at > now);
  const bootstrap = tokens.filter((row) => BOOTSTRAP_CREATORS.has(row.created_by));
  const own = tokens.filter((row) => !BOOTSTRAP_CREATORS.has(row.created_by) && live(row));
  if (own.length > 0) return done(own[0]?.created_at ?? null);
  if (bootstrap.length > 0 && bootstrap.every((row) => row.revoked_at !== null)) {
    return done(bootstrap.map((row) => row.revoked_at as string).sort().at(-1) ?? null);
  }
  return todo('the bootstrap admin token is the only admin token');
}
