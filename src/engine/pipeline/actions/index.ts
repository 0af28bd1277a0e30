// Action analysis for tool calls: what an SQL, shell or HTTP argument would do, how far it could
// reach, and whether the run's earlier calls and this one compose a privilege escalation. A pure
// library for the decision pipeline: synchronous, no I/O (the optional SQL parser is loaded once,
// up front, by loadSqlParser), linear in its input and capped in how much of it it reads.
//
// Cost per call, measured on this machine (Node 20, 2 cores shared with other work) by the 'cost'
// test in actions.test.ts (10,000 calls per shape after a warm-up, performance.now; it prints, it
// does not assert) and by a 100,000-call loop of the same shapes under tsx (steady state):
//   no SQL/shell/HTTP argument (3 keys)           0.7 µs (100k loop), 1.9-4.4 µs (10k loop)
//   SQL, statement seen before (verdict cache)    2.3 µs,             2.0-4.6 µs
//   SQL, new statement (node-sql-parser)                              ~220-400 µs; ~3-4 ms per KB
//   shell `rm -rf /tmp/work/x && ls -la`          11 µs,              10-14 µs (shell-quote)
//   HTTP POST to a known host                     3.1 µs,             3.3-7.4 µs
//   egress call with three prior tools            1.3 µs,             2.1-2.4 µs
// Worst cases are bounded by the caps: a 64 KB adversarial command line ~100-140 ms (shell-quote),
// SQL parsing per call by SQL_BUDGET_CHARS (~0.3-0.4 s).
import { analyseArguments, CALL_LIMITS } from './arguments.js';
import { currentStep, findEscalation, priorHistory } from './escalation.js';
import { toolProfile } from './tools.js';
import { maxRadius, type ActionFacts, type ActionFinding, type ActionInput, type BlastRadius, type Sink } from './types.js';

export { __setSqlParserForTests, loadSqlParser, sqlParserAvailable, type SqlParserLike } from './sql.js';
export type { ActionFacts, ActionFinding, ActionInput, BlastRadius } from './types.js';

/**
 * Characters the SQL parser may read per call, retries included. It reads ~3-4 ms per KB, so this
 * keeps a call at ~0.3 s in the worst case; SQL beyond it fails closed.
 */
const SQL_BUDGET_CHARS = 96 * 1024;
/** Findings listed per call (kinds, destructive and blastRadius still cover all of them). */
const MAX_FINDINGS = 256;

/**
 * Analyses one tool call.
 * @example
 * await loadSqlParser();
 * analyseAction({ tool: 'db.query', arguments: { query: 'DELETE FROM orders' } });
 * // → kinds ['sql.delete'], destructive true, blastRadius 'broad'
 */
export function analyseAction(input: ActionInput): ActionFacts {
  const tool = typeof input.tool === 'string' ? input.tool : '';
  const profile = toolProfile(tool);
  const sink: Sink = { findings: [], unanalysable: [], knownHosts: input.knownHosts ?? [], sqlBudget: SQL_BUDGET_CHARS, prior: false };
  const heads = analyseArguments(sink, profile, input.arguments, CALL_LIMITS);

  const kinds: string[] = [];
  let destructive = false;
  let blastRadius: BlastRadius = 'none';
  const findings: ActionFinding[] = [];
  // The same command can be reached twice (`sh -c "$(curl …)"` is read as a script and as a word).
  const seen = new Set<string>();
  for (const finding of sink.findings) {
    const key = `${finding.kind}\u0000${finding.argument}\u0000${finding.reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (!kinds.includes(finding.kind)) kinds.push(finding.kind);
    destructive ||= finding.destructive;
    blastRadius = maxRadius(blastRadius, finding.radius);
    // The totals above cover every finding; the list is capped to keep the decision record small.
    if (findings.length < MAX_FINDINGS) findings.push({ ...finding, argument: clip(finding.argument), reason: clip(finding.reason) });
  }

  // Escalation needs history, or a call that both reads a secret and sends data out.
  const hasHistory = (input.priorTools?.length ?? 0) > 0 || (input.priorSteps?.length ?? 0) > 0;
  let escalation: ActionFacts['escalation'] = null;
  if (hasHistory || kinds.some((kind) => kind === 'http.write' || kind === 'shell.network')) {
    const found = findEscalation(hasHistory ? priorHistory(input) : [], currentStep(tool, kinds, heads));
    if (found) escalation = { chain: found.chain.map((label) => clip(label)), reason: clip(found.reason) };
  }
  const unanalysable = sink.unanalysable.length === 0 ? sink.unanalysable : [...new Set(sink.unanalysable)].slice(0, MAX_FINDINGS).map((why) => clip(why));
  return { kinds, destructive, blastRadius, unanalysable, findings, escalation };
}

/** Reasons quote arguments (paths, hosts, tool keys), which may be long; records keep a prefix. */
function clip(text: string, max = 240): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
