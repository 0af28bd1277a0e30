// Types of action analysis: what a tool call's SQL, shell or HTTP arguments would do, how far the
// damage could reach, and whether the run's earlier calls compose a privilege escalation with it.
// Pure data: no I/O here.

export interface ActionInput {
  /** Tool key, e.g. "db.query", "shell", "http_request", "send_email". */
  tool: string;
  /** The tool call's arguments (any JSON). */
  arguments: Record<string, unknown>;
  /** Tool keys the same run called before, oldest first. */
  priorTools?: readonly string[];
  /** Free-form earlier steps: strings, or objects with a `tool` field and maybe `arguments`. */
  priorSteps?: readonly unknown[];
  /** Hosts the operator allows: an exact host or "*.example.com"; may be empty. */
  knownHosts?: readonly string[];
}

/**
 * How much an action could reach: `none` (nothing changes or leaves), `narrow` (a row, a file, a
 * known host), `broad` (a whole table or directory tree, an unknown host, an internal address),
 * `total` (a database, the filesystem, the machine, or something we could not analyse).
 */
export type BlastRadius = 'none' | 'narrow' | 'broad' | 'total';

export interface ActionFinding {
  /** `family.what`, e.g. `sql.delete`, `shell.network`, `http.write`. */
  kind: string;
  /** Where in the arguments: `query`, `options.sql`, `commands[1]`. */
  argument: string;
  radius: BlastRadius;
  destructive: boolean;
  /** One sentence a reviewer can act on. */
  reason: string;
}

export interface ActionFacts {
  /** Finding kinds, each once, in the order first found. */
  kinds: string[];
  /** Some finding deletes, overwrites or drops data, or cannot be undone. */
  destructive: boolean;
  /** The largest radius over all findings (`none` without findings). */
  blastRadius: BlastRadius;
  /**
   * Why an argument could not be analysed. An unreadable SQL, shell or URL argument is treated as
   * destructive and total; so is content skipped by the size limits on a SQL, shell or HTTP tool.
   */
  unanalysable: string[];
  findings: ActionFinding[];
  /** A privilege escalation composed of earlier steps and this call, or null. */
  escalation: { chain: string[]; reason: string } | null;
}

export const RADIUS_RANK: Readonly<Record<BlastRadius, number>> = { none: 0, narrow: 1, broad: 2, total: 3 };

export function maxRadius(a: BlastRadius, b: BlastRadius): BlastRadius {
  return RADIUS_RANK[a] >= RADIUS_RANK[b] ? a : b;
}

/** What one analyser call writes into; shared by the SQL, shell and HTTP analysers. */
export interface Sink {
  findings: ActionFinding[];
  unanalysable: string[];
  knownHosts: readonly string[];
  /** Characters the SQL parser may still read in this call (it is the slow part: ~3 ms per KB). */
  sqlBudget: number;
  /** Prior steps are classified, not judged: no SQL parsing, smaller limits. */
  prior: boolean;
}
