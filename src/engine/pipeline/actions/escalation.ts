// Composed escalation: calls that are each allowed can together exfiltrate credentials or act with
// privileges the agent just gave itself. Each earlier step and the current call get capability
// classes (from the tool key, free-text words, and analysed arguments); a chain is reported when
// the current call completes one, so a run is flagged at the call that would do the harm, and not
// again on every later call. No I/O here.
import { analyseArguments, PRIOR_LIMITS } from './arguments.js';
import { capabilitiesOfKinds, capabilitiesOfWords, SECRET_PATH, toolProfile, words, type Capability } from './tools.js';
import type { ActionFacts, ActionInput } from './types.js';

/** Earlier entries considered: the most recent ones matter, and the cost must stay bounded. */
const MAX_PRIOR_TOOLS = 256;
const MAX_PRIOR_STEPS = 64;
const STEP_TEXT_CHARS = 1024;

export interface Step {
  label: string;
  caps: Set<Capability>;
}

/** Secret paths in a step's strings mean it reads secrets, if it reads or runs anything. */
function addSecretPaths(caps: Set<Capability>, heads: readonly string[]): void {
  if (caps.has('read_secret') || !(caps.has('read_data') || caps.has('exec'))) return;
  if (heads.some((head) => SECRET_PATH.test(head))) caps.add('read_secret');
}

function labelOf(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > 80 ? `${trimmed.slice(0, 77)}...` : trimmed;
}

/** Capability classes of one entry of priorSteps: a tool key or free text, or `{ tool, arguments }`. */
export function classifyStep(step: unknown, index: number, knownHosts: readonly string[]): Step | null {
  if (typeof step === 'string') {
    const head = step.slice(0, STEP_TEXT_CHARS);
    const caps = capabilitiesOfWords(words(head, 256));
    addSecretPaths(caps, [head]);
    return { label: labelOf(head) || `step ${index}`, caps };
  }
  if (step === null || typeof step !== 'object') return null;
  const record = step as Record<string, unknown>;
  const fn = record.function !== null && typeof record.function === 'object' ? (record.function as Record<string, unknown>) : null;
  const tool = [record.tool, record.name, fn?.name].find((value): value is string => typeof value === 'string') ?? '';
  let args: unknown = record.arguments ?? record.args ?? record.input ?? fn?.arguments;
  // OpenAI-style tool calls carry arguments as a JSON string.
  if (typeof args === 'string' && args.length <= PRIOR_LIMITS.maxChars && args.trimStart().startsWith('{')) {
    try {
      args = JSON.parse(args);
    } catch {
      // Left as text: it is still scanned below.
    }
  }
  const profile = toolProfile(tool);
  const caps = new Set(profile.capabilities);
  const sink = { findings: [], unanalysable: [], knownHosts, sqlBudget: 0, prior: true };
  const heads = args === undefined ? [] : analyseArguments(sink, profile, args, PRIOR_LIMITS);
  const kinds = sink.findings.map((finding: { kind: string }) => finding.kind);
  capabilitiesOfKinds(kinds, caps);
  // An "http_request" that POSTed sent data out; it did not fetch code to run.
  if (kinds.includes('http.write') && !kinds.includes('http.read') && !kinds.includes('shell.download')) caps.delete('download');
  addSecretPaths(caps, heads);
  if (!tool && caps.size === 0) return null;
  return { label: tool || `step ${index}`, caps };
}

/** Earlier steps, oldest first: priorTools, then priorSteps (both are the same run's history). */
export function priorHistory(input: ActionInput): Step[] {
  const steps: Step[] = [];
  const tools = input.priorTools ?? [];
  for (const tool of tools.slice(-MAX_PRIOR_TOOLS)) {
    if (typeof tool === 'string' && tool.length > 0) steps.push({ label: tool, caps: new Set(toolProfile(tool).capabilities) });
  }
  const priorSteps = input.priorSteps ?? [];
  const start = Math.max(0, priorSteps.length - MAX_PRIOR_STEPS);
  for (let i = start; i < priorSteps.length; i++) {
    const step = classifyStep(priorSteps[i], i, input.knownHosts ?? []);
    if (step) steps.push(step);
  }
  return steps;
}

/** The most recent earlier step with a capability. */
function latest(history: readonly Step[], cap: Capability): Step | undefined {
  for (let i = history.length - 1; i >= 0; i--) if (history[i]?.caps.has(cap)) return history[i];
  return undefined;
}

/**
 * The chain the current call completes, most serious first: credential exfiltration, code run
 * after a download, an action after a privilege change, data exfiltration.
 */
export function findEscalation(history: readonly Step[], current: Step): ActionFacts['escalation'] {
  const caps = current.caps;
  if (caps.has('network_egress')) {
    if (caps.has('read_secret')) {
      return { chain: [current.label], reason: `credential exfiltration: ${current.label} reads a secret and sends data out in the same call` };
    }
    const secret = latest(history, 'read_secret');
    if (secret) {
      return { chain: [secret.label, current.label], reason: `credential exfiltration: ${secret.label} read secrets, then ${current.label} sends data out` };
    }
  }
  if (caps.has('exec')) {
    const download = latest(history, 'download');
    if (download) {
      return { chain: [download.label, current.label], reason: `code execution after a download: ${download.label} fetched content, then ${current.label} runs commands` };
    }
  }
  if (caps.has('exec') || caps.has('write_data')) {
    const privilege = latest(history, 'privilege_change');
    if (privilege) {
      return { chain: [privilege.label, current.label], reason: `escalated action: ${privilege.label} changed privileges, then ${current.label} ${caps.has('exec') ? 'runs commands' : 'writes data'}` };
    }
  }
  if (caps.has('network_egress')) {
    const read = latest(history, 'read_data');
    if (read) {
      return { chain: [read.label, current.label], reason: `data exfiltration: ${read.label} read data, then ${current.label} sends data out` };
    }
  }
  return null;
}

/** Capability classes of the current call: its key, its findings, and secret paths in its arguments. */
export function currentStep(tool: string, kinds: readonly string[], heads: readonly string[]): Step {
  const caps = new Set(toolProfile(tool).capabilities);
  capabilitiesOfKinds(kinds, caps);
  addSecretPaths(caps, heads);
  return { label: tool, caps };
}
