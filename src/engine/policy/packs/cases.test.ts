// Every pack under packs/ against its case file (packs/<folder>/<key>.cases.yaml): the facts of one
// call → the rules that fire and the verdicts, through the real evaluator, the pack alone and in the
// mode it ships or installs in. Each rule needs a case where it fires and a near miss where it does
// not, so a changed threshold or surface shows up as a failing case. The format is in packs/README.md.
import { readdirSync, readFileSync } from 'node:fs';
import { Type, type Static } from 'typebox';
import Value from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { SURFACES } from '../../detectors/types.js';
import { packagePath } from '../../../infra/lib/package-root.js';
import { StringEnum } from '../../../infra/lib/typebox.js';
import { compilePack, evaluate, type CallFacts } from '../evaluate.js';
import { plainFacts } from '../facts.js';
import { LIBRARY_PACKS } from '../library/index.js';
import { parsePack } from '../parse.js';
import { BLAST_RADII, CAPABILITY_OUTCOMES, MCP_TOOL_FACTS, SIGNATURE_STATUSES } from '../schema.js';
import { readPackFile, SHIPPED_PACK_KEYS, SHIPPED_PACKS } from './index.js';

const Score = Type.Number({ minimum: 0, maximum: 1 });
const Flag = Type.Optional(Type.Boolean());
const VerdictName = StringEnum(['allow', 'escalate', 'block'] as const);
const RuleIds = Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })]);

/** The facts of a case, named as the pack language's conditions name them; unset ones are plain. */
const CaseFactsSchema = Type.Object(
  {
    surface: StringEnum(SURFACES),
    agent: Type.Optional(Type.String({ minLength: 1 })),
    detections: Type.Optional(Type.Array(Type.Object({ entity: Type.String({ minLength: 1 }), score: Score }, { additionalProperties: false }))),
    taint: Type.Optional(Score),
    capability: Type.Optional(Type.Array(StringEnum(CAPABILITY_OUTCOMES))),
    completion_facts: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    agent_card_mismatch: Flag,
    detector_degraded: Flag,
    content_too_large: Flag,
    action_kinds: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    action_destructive: Flag,
    action_blast_radius: Type.Optional(StringEnum(BLAST_RADII)),
    action_escalation: Flag,
    action_unanalysable: Flag,
    budget_exceeded: Flag,
    loop_detected: Flag,
    signature: Type.Optional(StringEnum(SIGNATURE_STATUSES)),
    mcp_tool: Type.Optional(StringEnum(MCP_TOOL_FACTS)),
    tool: Type.Optional(Type.String({ minLength: 1 })),
    args: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

const CaseFileSchema = Type.Object(
  {
    cases: Type.Array(
      Type.Object(
        {
          name: Type.String({ minLength: 1 }),
          /** The rule (or rules) this case comes close to firing and must not. */
          near_miss: Type.Optional(RuleIds),
          facts: CaseFactsSchema,
          fired: Type.Array(Type.String({ minLength: 1 })),
          verdict: VerdictName,
          effective_verdict: VerdictName,
        },
        { additionalProperties: false },
      ),
      { minItems: 1 },
    ),
  },
  { additionalProperties: false },
);
type Case = Static<typeof CaseFileSchema>['cases'][number];

function readCases(folder: string, key: string): Case[] {
  const file = packagePath('packs', folder, `${key}.cases.yaml`);
  const value: unknown = parseYaml(readFileSync(file, 'utf8'));
  const errors = [...Value.Errors(CaseFileSchema, value)].map((error) => `${error.instancePath || '/'}: ${error.message}`);
  if (errors.length > 0) throw new Error(`${file}: ${errors.join('; ')}`);
  return (value as Static<typeof CaseFileSchema>).cases;
}

function callFacts(written: Case['facts']): CallFacts {
  const plain = plainFacts(written.surface, written.agent ?? 'case-agent');
  return {
    ...plain,
    detections: (written.detections ?? []).map((found) => ({ ...found, start: 0, end: 0, explanation: 'case file', detector: 'case' })),
    taint: written.taint ?? plain.taint,
    capability: new Set(written.capability ?? []),
    completionFacts: written.completion_facts ?? plain.completionFacts,
    agentCardMismatch: written.agent_card_mismatch ?? plain.agentCardMismatch,
    degraded: written.detector_degraded ?? plain.degraded,
    contentTooLarge: written.content_too_large ?? false,
    actionKinds: written.action_kinds ?? plain.actionKinds,
    actionDestructive: written.action_destructive ?? plain.actionDestructive,
    actionBlastRadius: written.action_blast_radius ?? plain.actionBlastRadius,
    actionEscalation: written.action_escalation ?? plain.actionEscalation,
    actionUnanalysable: written.action_unanalysable ?? plain.actionUnanalysable,
    budgetExceeded: written.budget_exceeded ?? plain.budgetExceeded,
    loopDetected: written.loop_detected ?? plain.loopDetected,
    signature: written.signature ?? plain.signature,
    mcpTool: written.mcp_tool ?? plain.mcpTool,
    tool: written.tool ?? plain.tool,
    args: written.args ?? plain.args,
  };
}

const nearMisses = (entry: Case): string[] => (entry.near_miss === undefined ? [] : [entry.near_miss].flat());

const PACK_FILES: ReadonlyArray<{ folder: 'shipped' | 'library'; key: string }> = [
  ...SHIPPED_PACK_KEYS.map((key) => ({ folder: 'shipped' as const, key })),
  ...LIBRARY_PACKS.map((entry) => ({ folder: 'library' as const, key: entry.id })),
];

describe.each(PACK_FILES.map((file) => [`packs/${file.folder}/${file.key}.yaml`, file] as const))('%s', (_title, { folder, key }) => {
  const pack = parsePack(readPackFile(folder, key));
  const packs = [compilePack(pack)];
  const cases = readCases(folder, key);
  const ruleIds = pack.rules.map((rule) => rule.id);

  it('holds the pack its file is named after', () => {
    expect(pack.key).toBe(key);
  });

  it.each(cases.map((entry) => [entry.name, entry] as const))('%s', (_name, entry) => {
    const result = evaluate(packs, callFacts(entry.facts));
    expect([...result.fired.map((rule) => rule.rule_id)].sort()).toEqual([...entry.fired].sort());
    expect(result.verdict).toBe(entry.verdict);
    expect(result.effectiveVerdict).toBe(entry.effective_verdict);
  });

  it('has a case where each rule fires and a near miss where it does not', () => {
    for (const entry of cases) {
      for (const id of [...entry.fired, ...nearMisses(entry)]) expect(ruleIds, `case "${entry.name}" names ${id}`).toContain(id);
      for (const id of nearMisses(entry)) expect(entry.fired, `case "${entry.name}" is a near miss of ${id}, which it expects to fire`).not.toContain(id);
    }
    for (const id of ruleIds) {
      expect(cases.some((entry) => entry.fired.includes(id)), `no case fires ${id}`).toBe(true);
      expect(cases.some((entry) => nearMisses(entry).includes(id)), `no near-miss case for ${id}`).toBe(true);
    }
  });
});

describe('the packs folder', () => {
  it('holds only packs the gateway loads, each with its case file', () => {
    for (const folder of ['shipped', 'library'] as const) {
      const files = readdirSync(packagePath('packs', folder)).sort();
      const loaded = PACK_FILES.filter((entry) => entry.folder === folder).map((entry) => entry.key);
      expect(files).toEqual(loaded.flatMap((key) => [`${key}.cases.yaml`, `${key}.yaml`]).sort());
    }
  });

  it('loads the shipped packs in the order they are evaluated', () => {
    expect(SHIPPED_PACKS.map((text) => parsePack(text).key)).toEqual([...SHIPPED_PACK_KEYS]);
  });
});
