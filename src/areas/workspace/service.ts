// The whole workspace as code: export the configuration as one document, plan a document against
// the gateway (create, change, delete per resource, field by field), and apply it. Every change
// goes through the owning area's service, so their checks, audit entries and reloads stay theirs;
// an apply adds one audit entry of its own with the counts. Nothing here holds or writes a secret:
// credentials are referenced by environment variable name.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import { Problem, problem, type FieldError } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Store } from '../../infra/store/db.js';
import type { AuditLog } from '../audit/log.js';
import { itemField, readWorkspace, toYaml, type ReadWorkspace } from './format.js';
import { resourceKinds } from './kinds/index.js';
import type { WorkspaceTargets } from './kinds/targets.js';
import { creationFields, deletionFields, fieldDiff, type Change, type DesiredDocument, type Item, type PlannedChange, type ResourceKind } from './kinds/types.js';
import { API_VERSION, KIND_NAMES, type ApplyResult, type KindName, type Plan, type WorkspaceSource } from './schemas.js';

export interface WorkspaceServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  /** The services applied through; read when first needed (they are built beside this one). */
  targets: () => WorkspaceTargets;
  /** The gateway's environment, where referenced credentials are read (default process.env). */
  env?: (name: string) => string | undefined;
}

export interface ExportedDocument {
  apiVersion: typeof API_VERSION;
  kind: 'Workspace';
  [kind: string]: unknown;
}

interface ComputedPlan {
  kinds: Map<KindName, ResourceKind>;
  changes: PlannedChange[];
  unchanged: number;
  read: ReadWorkspace;
}

export class WorkspaceService {
  /** One apply at a time in this process: two at once would plan against each other's half-done work. */
  private applying: Promise<unknown> = Promise.resolve();

  constructor(readonly deps: WorkspaceServiceDeps) {}

  private kinds(): Map<KindName, ResourceKind> {
    return new Map(resourceKinds(this.deps.targets()).map((kind) => [kind.name as KindName, kind]));
  }

  /** The configuration as one document: every kind that holds something, each list in key order. */
  async export(): Promise<ExportedDocument> {
    const document: ExportedDocument = { apiVersion: API_VERSION, kind: 'Workspace' };
    for (const [name, kind] of this.kinds()) {
      const items = await kind.current();
      if (items.length > 0) document[name] = items.map((item) => kind.toDocument?.(item) ?? item);
    }
    return document;
  }

  async exportYaml(): Promise<string> {
    return `# Parapet workspace, exported ${this.deps.clock.now().toISOString()}. Secrets are not written: credentials are read from the named environment variables.\n${toYaml(await this.export())}`;
  }

  /** What applying the source would change; changes nothing. */
  async plan(source: WorkspaceSource): Promise<Plan> {
    return planAnswer(await this.compute(source));
  }

  /**
   * Applies the source kind by kind in document order. The owning services hold their own
   * transactions, so a kind's changes are made one by one and the kind stops at its first failure
   * (the rest of it is reported not attempted); the other kinds go on. Blocked changes are reported
   * failed without being tried.
   */
  async apply(caller: Principal, source: WorkspaceSource): Promise<ApplyResult> {
    const run = this.applying.then(() => this.applyNow(caller, source));
    this.applying = run.catch(() => undefined);
    return run;
  }

  private async applyNow(caller: Principal, source: WorkspaceSource): Promise<ApplyResult> {
    const { kinds, changes, unchanged, read } = await this.compute(source);
    const env = this.deps.env ?? ((name: string) => process.env[name]);
    const result: ApplyResult = { applied: [], failed: [], counts: { applied: 0, failed: 0 }, unchanged };
    const stopped = new Set<string>();
    for (const change of changes) {
      const done = { kind: change.kind as KindName, key: change.key, action: change.action };
      if (change.blocked !== undefined) {
        result.failed.push({ ...done, reason: change.blocked, attempted: false });
        continue;
      }
      if (stopped.has(change.kind)) {
        result.failed.push({ ...done, reason: `not attempted: an earlier change of ${change.kind} failed`, attempted: false });
        continue;
      }
      try {
        await (kinds.get(change.kind as KindName) as ResourceKind).apply(change, { caller, env });
        result.applied.push(done);
      } catch (error) {
        stopped.add(change.kind);
        result.failed.push({ ...done, reason: reasonOf(error), attempted: true });
      }
    }
    result.counts = { applied: result.applied.length, failed: result.failed.length };
    const byAction = (action: string) => result.applied.filter((entry) => entry.action === action).length;
    await this.deps.audit.append({
      actor: actorOf(caller),
      action: 'workspace.apply',
      target: null,
      detail: {
        files: read.files.slice(0, 100),
        kinds: [...read.kinds.keys()],
        prune: read.prune,
        applied: { create: byAction('create'), change: byAction('change'), delete: byAction('delete') },
        failed: result.failed.length,
        unchanged,
      },
    });
    return result;
  }

  private async compute(source: WorkspaceSource): Promise<ComputedPlan> {
    const read = readWorkspace(source);
    const kinds = this.kinds();
    const document: DesiredDocument = Object.fromEntries([...read.kinds].map(([name, items]) => [name, items.map((sourced) => sourced.item)]));
    // Everything is checked before the gateway is read: a bad document is refused whole.
    const invalid: FieldError[] = [];
    const duplicates: FieldError[] = [];
    const desiredByKind = new Map<KindName, Map<string, Item>>();
    for (const [name, items] of read.kinds) {
      const kind = kinds.get(name) as ResourceKind;
      const desired = new Map<string, Item>();
      const firstAt = new Map<string, string>();
      for (const sourced of items) {
        for (const found of kind.check?.(sourced.item) ?? []) invalid.push({ field: itemField(sourced, found.field), message: found.message });
        const normalised = kind.normalise?.(sourced.item, document) ?? sourced.item;
        const key = kind.key(normalised);
        const first = firstAt.get(key);
        if (first !== undefined) duplicates.push({ field: itemField(sourced), message: `${name} ${key} is also at ${first}` });
        else {
          firstAt.set(key, itemField(sourced));
          desired.set(key, normalised);
        }
      }
      desiredByKind.set(name, desired);
    }
    if (invalid.length > 0) throw problem('invalid-request', `the workspace is not valid: ${invalid[0]?.field} ${invalid[0]?.message}`, invalid.slice(0, 50));
    if (duplicates.length > 0) throw problem('refused', `the same resource appears twice: ${duplicates[0]?.message}`, duplicates.slice(0, 50));

    const changes: PlannedChange[] = [];
    let unchanged = 0;
    for (const [name, desired] of desiredByKind) {
      const kind = kinds.get(name) as ResourceKind;
      const current = new Map((await kind.current()).map((item) => [kind.key(item), item]));
      const planned = (change: Change, want: Item | null, have: Item | null) => {
        const reason = kind.blocked?.(change, want, have) ?? null;
        changes.push({ ...change, ...(reason === null ? {} : { blocked: reason }), desired: want, current: have });
      };
      for (const [key, want] of desired) {
        const have = current.get(key);
        if (have === undefined) {
          planned({ kind: name, key, action: 'create', fields: creationFields(kind.toDocument?.(want) ?? want) }, want, null);
          continue;
        }
        const fields = kind.diff?.(want, have) ?? fieldDiff(want, have);
        if (fields.length === 0) unchanged += 1;
        else planned({ kind: name, key, action: 'change', fields }, want, have);
      }
      if (!read.prune) continue;
      for (const [key, have] of current) if (!desired.has(key) && (kind.prunable?.(have) ?? true)) planned({ kind: name, key, action: 'delete', fields: deletionFields(kind.toDocument?.(have) ?? have) }, null, have);
    }
    return { kinds, changes, unchanged, read };
  }
}

function planAnswer({ changes, unchanged, read }: ComputedPlan): Plan {
  const count = (action: string) => changes.filter((change) => change.action === action).length;
  return {
    changes: changes.map(({ desired: _desired, current: _current, ...change }) => ({ ...change, kind: change.kind as KindName })),
    counts: { create: count('create'), change: count('change'), delete: count('delete'), blocked: changes.filter((change) => change.blocked !== undefined).length },
    unchanged,
    kinds: KIND_NAMES.filter((name) => read.kinds.has(name)),
    prune: read.prune,
  };
}

/** Why a change failed, as the owning service said it; an unexpected error is named, not described. */
function reasonOf(error: unknown): string {
  if (error instanceof Problem) return `${error.status}: ${error.detail}`;
  return `internal error (${error instanceof Error ? error.name : 'unknown'}); the change may be partly made`;
}
