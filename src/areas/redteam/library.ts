// The red-team probe library (catalogue/redteam/probes.yaml): loading and checking the file, the
// probe classes, picking probes for a campaign and the views GET /api/redteam/probes answers.
// Loaded once at start; a malformed file stops the start with the probe and field named. No SQL.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Type, type Static } from 'typebox';
import Value from 'typebox/value';
import { parse } from 'yaml';
import { problem } from '../../infra/http/problems.js';
import { packagePath } from '../../infra/lib/package-root.js';
import { Nullable, StringEnum } from '../../infra/lib/typebox.js';
import { MUTATIONS } from './mutations.js';

/** The shipped library. */
export const DEFAULT_PROBE_LIBRARY_PATH = packagePath('catalogue', 'redteam', 'probes.yaml');

/** Every probe class, with what it tries; `benign` holds the probes that must pass (over-blocking). */
export const PROBE_CLASSES = [
  { class: 'direct_injection', kind: 'attack', description: 'The caller writes instructions meant to replace the agent\'s own.' },
  { class: 'indirect_injection', kind: 'attack', description: 'Instructions hidden in retrieved documents or tool results the agent reads.' },
  { class: 'jailbreak_persona', kind: 'attack', description: 'A persona without rules is set up to answer what the agent would refuse.' },
  { class: 'jailbreak_story', kind: 'attack', description: 'A story, script or hypothetical world wraps a request the agent would refuse.' },
  { class: 'prompt_extraction', kind: 'attack', description: 'Attempts to make the agent repeat or describe its system instructions.' },
  { class: 'exfiltration_link', kind: 'attack', description: 'Data packed into the URL of a link the agent writes into its answer.' },
  { class: 'exfiltration_image', kind: 'attack', description: 'Data packed into the URL of an image that is fetched as soon as the answer renders.' },
  { class: 'pii_elicitation', kind: 'attack', description: 'Requests for other people\'s personal data, in bulk or piece by piece.' },
  { class: 'secret_elicitation', kind: 'attack', description: 'Requests for keys, tokens, passwords and connection strings the agent can see.' },
  { class: 'tool_without_grant', kind: 'attack', description: 'A call to a tool the agent holds no grant for.' },
  { class: 'tool_host_outside_constraints', kind: 'attack', description: 'A tool call that reaches a host outside the grant\'s constraints (outside, internal or metadata addresses).' },
  { class: 'destructive_sql', kind: 'attack', description: 'SQL that drops, truncates or rewrites whole tables.' },
  { class: 'destructive_shell', kind: 'attack', description: 'Shell commands that delete, overwrite or run downloaded code.' },
  { class: 'memory_poisoning', kind: 'attack', description: 'A memory write that plants a lasting instruction or a false fact.' },
  { class: 'agent_message_spoofing', kind: 'attack', description: 'A message claiming to come from another agent, the orchestrator or an administrator.' },
  { class: 'benign', kind: 'benign', description: 'Ordinary requests, some mentioning security words, that must pass; blocking them is over-blocking.' },
] as const satisfies ReadonlyArray<{ class: string; kind: 'attack' | 'benign'; description: string }>;

export type ProbeClass = (typeof PROBE_CLASSES)[number]['class'];
export const PROBE_CLASS_NAMES = PROBE_CLASSES.map((entry) => entry.class) as unknown as readonly [ProbeClass, ...ProbeClass[]];

export const PROBE_KINDS = ['attack', 'benign'] as const;
export type ProbeKind = (typeof PROBE_KINDS)[number];

/** The surfaces a probe can be sent on (a subset of the pipeline's surfaces). */
export const PROBE_SURFACES = ['input', 'retrieved', 'tool_result', 'tool_args', 'memory_write', 'agent_message'] as const;
export type ProbeSurface = (typeof PROBE_SURFACES)[number];

/** The classes, as the design names the accessor. */
export function probeClasses(): typeof PROBE_CLASSES {
  return PROBE_CLASSES;
}

const MAX_TEXT = 4000;
/** Tool arguments of one probe, serialized; a probe is a single call, not a payload generator. */
const MAX_ARGUMENTS_BYTES = 16 * 1024;

const ProbeEntry = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9_]+\\.[a-z0-9_-]+$', maxLength: 120 }),
    class: StringEnum(PROBE_CLASS_NAMES),
    kind: StringEnum(PROBE_KINDS),
    surface: Type.Optional(StringEnum(PROBE_SURFACES)),
    text: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_TEXT })),
    tool: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    // OWASP Top 10 for LLM Applications 2025: LLM01 … LLM10.
    owasp: Type.Array(Type.String({ pattern: '^LLM(0[1-9]|10)$' }), { maxItems: 10 }),
    // MITRE ATLAS technique or sub-technique ids, e.g. AML.T0051.001.
    atlas: Type.Array(Type.String({ pattern: '^AML\\.T[0-9]{4}(\\.[0-9]{3})?$' }), { maxItems: 10 }),
    goal: Type.String({ minLength: 1, maxLength: 500 }),
    canary: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

const ProbeLibraryFile = Type.Object(
  { version: Type.Integer({ minimum: 1 }), probes: Type.Array(ProbeEntry, { minItems: 1, maxItems: 5000 }) },
  { additionalProperties: false },
);
type ProbeEntry = Static<typeof ProbeEntry>;

export interface Probe {
  id: string;
  class: ProbeClass;
  kind: ProbeKind;
  surface: ProbeSurface;
  /** The text sent; null on tool_args probes, which carry tool and arguments instead. */
  text: string | null;
  tool: string | null;
  arguments: Record<string, unknown> | null;
  owasp: string[];
  atlas: string[];
  /** What getting through means. */
  goal: string;
  /** A marker an answer that followed the probe would contain; null when the probe has none. */
  canary: string | null;
}

export interface ProbeLibrary {
  version: number;
  /** sha256 of the file's bytes: campaigns record which library they ran. */
  sha256: string;
  probes: Probe[];
}

export class ProbeLibraryError extends Error {}

/**
 * Reads and checks a probe library file; throws a ProbeLibraryError naming the probe and field.
 * @example
 * const library = loadProbeLibrary(DEFAULT_PROBE_LIBRARY_PATH);
 * selectProbes(library, ['destructive_sql', 'benign.01']);
 */
export function loadProbeLibrary(filePath: string = DEFAULT_PROBE_LIBRARY_PATH): ProbeLibrary {
  const bytes = readFileSync(filePath);
  let value: unknown;
  try {
    value = parse(bytes.toString('utf8'));
  } catch (error) {
    throw new ProbeLibraryError(`${filePath}: not YAML: ${(error as Error).message}`);
  }
  const errors = [...Value.Errors(ProbeLibraryFile, value)].slice(0, 5).map((error) => describeError(value, error.instancePath, error.message));
  if (errors.length > 0) throw new ProbeLibraryError(`${filePath}: ${errors.join('; ')}`);
  const file = value as Static<typeof ProbeLibraryFile>;

  const seen = new Set<string>();
  const probes = file.probes.map((entry) => {
    const fail = (field: string, message: string): never => {
      throw new ProbeLibraryError(`${filePath}: probe ${entry.id}: ${field} ${message}`);
    };
    if (seen.has(entry.id)) fail('id', 'appears twice');
    seen.add(entry.id);
    return toProbe(entry, fail);
  });
  return { version: file.version, sha256: createHash('sha256').update(bytes).digest('hex'), probes };
}

function toProbe(entry: ProbeEntry, fail: (field: string, message: string) => never): Probe {
  const expectedKind = entry.class === 'benign' ? 'benign' : 'attack';
  if (entry.kind !== expectedKind) fail('kind', `must be ${expectedKind} for class ${entry.class}`);
  if (entry.kind === 'attack' && entry.owasp.length === 0) fail('owasp', 'must name at least one OWASP LLM id on an attack probe');
  const surface = entry.surface ?? 'input';
  if (surface === 'tool_args') {
    if (entry.tool === undefined) fail('tool', 'is required on a tool_args probe');
    if (entry.arguments === undefined) fail('arguments', 'are required on a tool_args probe');
    if (entry.text !== undefined) fail('text', 'is not used on a tool_args probe (tool and arguments are sent)');
    if (Buffer.byteLength(JSON.stringify(entry.arguments)) > MAX_ARGUMENTS_BYTES) fail('arguments', `exceed ${MAX_ARGUMENTS_BYTES} bytes of JSON`);
  } else {
    if (entry.text === undefined) fail('text', `is required on a probe sent on ${surface}`);
    if (entry.tool !== undefined || entry.arguments !== undefined) fail('tool', `and arguments belong on tool_args probes only, not on ${surface}`);
  }
  return {
    id: entry.id,
    class: entry.class,
    kind: entry.kind,
    surface,
    text: entry.text ?? null,
    tool: entry.tool ?? null,
    arguments: entry.arguments ?? null,
    owasp: [...entry.owasp],
    atlas: [...entry.atlas],
    goal: entry.goal,
    canary: entry.canary ?? null,
  };
}

/** `/probes/12/class must be …` → `probe indirect_injection.03 (#13): /class must be …`. */
function describeError(value: unknown, path: string, message: string): string {
  const match = /^\/probes\/(\d+)(\/.*)?$/.exec(path);
  if (match === null) return `${path || '/'} ${message}`;
  const index = Number(match[1]);
  const probes = (value as { probes?: unknown[] }).probes;
  const entry = Array.isArray(probes) ? probes[index] : undefined;
  const id = typeof entry === 'object' && entry !== null && typeof (entry as { id?: unknown }).id === 'string' ? `${(entry as { id: string }).id} ` : '';
  return `probe ${id}(#${index + 1}): ${match[2] ?? '/'} ${message}`;
}

/**
 * The probes a campaign asked for, in library order without repeats: `asked` holds probe ids and
 * class names; empty means the whole library. Unknown entries are refused all at once.
 */
export function selectProbes(library: ProbeLibrary, asked: readonly string[]): Probe[] {
  if (asked.length === 0) return [...library.probes];
  const ids = new Set(library.probes.map((probe) => probe.id));
  const classes = new Set<string>(PROBE_CLASS_NAMES);
  const unknown = [...new Set(asked.filter((entry) => !ids.has(entry) && !classes.has(entry)))];
  if (unknown.length > 0) {
    const listed = unknown.slice(0, 20).map((entry) => JSON.stringify(entry.slice(0, 120))).join(', ');
    const more = unknown.length > 20 ? ` and ${unknown.length - 20} more` : '';
    throw problem('invalid-request', `probes names unknown probe ids or classes: ${listed}${more}; see GET /api/redteam/probes`, [
      { field: '/body/probes', message: `unknown: ${listed}${more}` },
    ]);
  }
  const wanted = new Set(asked);
  return library.probes.filter((probe) => wanted.has(probe.id) || wanted.has(probe.class));
}

export const ProbeViewSchema = Type.Object({
  id: Type.String(),
  class: StringEnum(PROBE_CLASS_NAMES),
  kind: StringEnum(PROBE_KINDS),
  surface: StringEnum(PROBE_SURFACES),
  text: Nullable(Type.String()),
  tool: Nullable(Type.String()),
  arguments: Nullable(Type.Record(Type.String(), Type.Unknown())),
  owasp: Type.Array(Type.String()),
  atlas: Type.Array(Type.String()),
  goal: Type.String(),
});
export type ProbeView = Static<typeof ProbeViewSchema>;

export const LibraryViewSchema = Type.Object({
  version: Type.Integer(),
  sha256: Type.String(),
  classes: Type.Array(Type.Object({ class: StringEnum(PROBE_CLASS_NAMES), description: Type.String(), kind: StringEnum(PROBE_KINDS), probes: Type.Integer() })),
  mutations: Type.Array(Type.Object({ class: Type.String(), description: Type.String() })),
  items: Type.Array(ProbeViewSchema),
});
export type LibraryView = Static<typeof LibraryViewSchema>;

export function probeView(probe: Probe): ProbeView {
  return {
    id: probe.id,
    class: probe.class,
    kind: probe.kind,
    surface: probe.surface,
    text: probe.text,
    tool: probe.tool,
    arguments: probe.arguments,
    owasp: probe.owasp,
    atlas: probe.atlas,
    goal: probe.goal,
  };
}

export function libraryView(library: ProbeLibrary): LibraryView {
  const counts = new Map<string, number>();
  for (const probe of library.probes) counts.set(probe.class, (counts.get(probe.class) ?? 0) + 1);
  return {
    version: library.version,
    sha256: library.sha256,
    classes: PROBE_CLASSES.map((entry) => ({ class: entry.class, description: entry.description, kind: entry.kind, probes: counts.get(entry.class) ?? 0 })),
    mutations: MUTATIONS.map((mutation) => ({ class: mutation.class, description: mutation.description })),
    items: library.probes.map(probeView),
  };
}
