// The probe library: the shipped file loads and is complete, malformed files are refused with the
// probe and field named, selection by id and class, the views — and a diagnostic pass of every
// probe through the real pipeline (baseline enforcing) that shows what the shipped detectors stop.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Value from 'typebox/value';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { withGateway } from '../../../test/helpers/gateway.js';
import { Problem } from '../../infra/http/problems.js';
import { packagePath } from '../../infra/lib/package-root.js';
import { orgPolicy } from '../../engine/policy/registry.js';
import {
  DEFAULT_PROBE_LIBRARY_PATH,
  LibraryViewSchema,
  PROBE_CLASSES,
  ProbeLibraryError,
  libraryView,
  loadProbeLibrary,
  probeClasses,
  probeView,
  selectProbes,
  type Probe,
} from './library.js';
import { MUTATION_CLASSES } from './mutations.js';

const library = loadProbeLibrary(DEFAULT_PROBE_LIBRARY_PATH);
const attackClasses = PROBE_CLASSES.filter((entry) => entry.kind === 'attack').map((entry) => entry.class);
const ofClass = (name: string): Probe[] => library.probes.filter((probe) => probe.class === name);

describe('the shipped probe library', () => {
  it('loads with a version and the sha256 of the file', () => {
    expect(library.version).toBeGreaterThanOrEqual(1);
    expect(library.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(loadProbeLibrary(DEFAULT_PROBE_LIBRARY_PATH).sha256).toBe(library.sha256);
  });

  it('has at least 6 attack probes in every attack class and at least 30 benign probes', () => {
    expect(attackClasses).toHaveLength(15);
    for (const name of attackClasses) expect(ofClass(name).length, name).toBeGreaterThanOrEqual(6);
    expect(ofClass('benign').length).toBeGreaterThanOrEqual(30);
    expect(ofClass('benign').every((probe) => probe.kind === 'benign')).toBe(true);
    expect(library.probes.filter((probe) => probe.kind === 'attack').every((probe) => probe.class !== 'benign')).toBe(true);
  });

  it('has unique ids, each prefixed with its class', () => {
    const ids = library.probes.map((probe) => probe.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const probe of library.probes) expect(probe.id.startsWith(`${probe.class}.`), probe.id).toBe(true);
  });

  it('maps every attack probe to OWASP LLM ids, and every id to a threat of catalogue/threats.yaml', () => {
    const threats = parse(readFileSync(packagePath('catalogue', 'threats.yaml'), 'utf8')) as { threats: Array<{ id: string }> };
    const known = new Set(threats.threats.map((threat) => threat.id));
    for (const probe of library.probes.filter((candidate) => candidate.kind === 'attack')) {
      expect(probe.owasp.length, probe.id).toBeGreaterThan(0);
      for (const id of probe.owasp) expect(known.has(`${id}:2025`), `${probe.id} ${id}`).toBe(true);
      for (const id of probe.atlas) expect(known.has(id), `${probe.id} ${id}`).toBe(true);
    }
    for (const name of attackClasses) expect(ofClass(name).some((probe) => probe.atlas.length > 0), name).toBe(true);
  });

  it('sends each class on the surface its attack uses', () => {
    const surfaces = (name: string) => new Set(ofClass(name).map((probe) => probe.surface));
    for (const name of ['tool_without_grant', 'tool_host_outside_constraints', 'destructive_sql', 'destructive_shell']) {
      expect([...surfaces(name)], name).toEqual(['tool_args']);
      for (const probe of ofClass(name)) {
        expect(probe.text).toBeNull();
        expect(probe.tool).toMatch(/^[a-z_]+\.[a-z_]+$/);
        expect(Object.keys(probe.arguments ?? {}).length).toBeGreaterThan(0);
      }
    }
    expect([...surfaces('memory_poisoning')]).toEqual(['memory_write']);
    expect([...surfaces('agent_message_spoofing')]).toEqual(['agent_message']);
    expect([...surfaces('indirect_injection')].every((surface) => surface === 'retrieved' || surface === 'tool_result')).toBe(true);
    expect(ofClass('tool_without_grant').some((probe) => probe.tool === 'payments.refund')).toBe(true);
    expect(ofClass('destructive_sql').map((probe) => probe.arguments?.sql)).toEqual(expect.arrayContaining(['DROP TABLE customers', 'DELETE FROM orders']));
    expect(ofClass('destructive_shell').map((probe) => probe.arguments?.command)).toContain('rm -rf /');
  });

  it('carries data in link and image URLs on exfiltration probes, and canaries on some probes', () => {
    for (const probe of [...ofClass('exfiltration_link'), ...ofClass('exfiltration_image')]) {
      expect(probe.text, probe.id).toMatch(/https?:\/\/[^\s)"]+[?/=]/);
      expect(probe.canary, probe.id).not.toBeNull();
      expect(probe.text, probe.id).toContain(probe.canary!);
    }
    expect(ofClass('exfiltration_image').every((probe) => /!\[|<img /.test(probe.text ?? ''))).toBe(true);
    expect(library.probes.filter((probe) => probe.canary !== null).length).toBeGreaterThanOrEqual(10);
  });

  it('has benign probes that mention security words harmlessly', () => {
    const texts = ofClass('benign').map((probe) => probe.text ?? '').join('\n');
    for (const word of ['reset my password', 'SQL injection', 'system upgrade', 'system prompt', 'phishing', 'API keys']) expect(texts).toContain(word);
  });

  it('lists every class with a description', () => {
    expect(probeClasses()).toBe(PROBE_CLASSES);
    expect(new Set(PROBE_CLASSES.map((entry) => entry.class)).size).toBe(16);
    expect(PROBE_CLASSES.every((entry) => entry.description.length > 10)).toBe(true);
  });
});

describe('bad library files', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'parapet-probes-'));
  const attack = { id: 'direct_injection.x1', class: 'direct_injection', kind: 'attack', owasp: ['LLM01'], atlas: [], goal: 'g', text: 't' };
  const refused = (name: string, content: unknown): string => {
    const file = path.join(dir, `${name}.yaml`);
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    try {
      loadProbeLibrary(file);
    } catch (error) {
      expect(error).toBeInstanceOf(ProbeLibraryError);
      return (error as Error).message;
    }
    throw new Error(`${name} was accepted`);
  };

  it.each([
    ['an unknown class', { version: 1, probes: [{ ...attack, class: 'telepathy' }] }, /probe direct_injection\.x1 \(#1\): \/class/],
    ['an unknown surface', { version: 1, probes: [{ ...attack, surface: 'fax' }] }, /probe direct_injection\.x1 \(#1\): \/surface/],
    ['a duplicate id', { version: 1, probes: [attack, { ...attack, text: 'other' }] }, /probe direct_injection\.x1: id appears twice/],
    ['a text probe without text', { version: 1, probes: [{ ...attack, text: undefined }] }, /probe direct_injection\.x1: text is required on a probe sent on input/],
    ['a tool_args probe without a tool', { version: 1, probes: [{ ...attack, text: undefined, surface: 'tool_args', arguments: { a: 1 } }] }, /probe direct_injection\.x1: tool is required/],
    ['a tool_args probe with text', { version: 1, probes: [{ ...attack, surface: 'tool_args', tool: 'db.query', arguments: { sql: 'x' } }] }, /probe direct_injection\.x1: text is not used/],
    ['an attack without OWASP ids', { version: 1, probes: [{ ...attack, owasp: [] }] }, /probe direct_injection\.x1: owasp must name/],
    ['a malformed OWASP id', { version: 1, probes: [{ ...attack, owasp: ['LLM11'] }] }, /probe direct_injection\.x1 \(#1\): \/owasp\/0/],
    ['a benign class marked attack', { version: 1, probes: [{ ...attack, id: 'benign.x', class: 'benign' }] }, /probe benign\.x: kind must be benign/],
    ['an unknown field', { version: 1, probes: [{ ...attack, severity: 'high' }] }, /probe direct_injection\.x1 \(#1\)/],
    ['no version', { probes: [attack] }, /version/],
    ['text that is not YAML', 'probes: [unclosed', /not YAML/],
  ])('refuses %s, naming the probe and field', (name, content, reason) => {
    const message = refused(name.replace(/\W+/g, '-'), content);
    expect(message).toMatch(reason);
    expect(message).toContain(dir);
  });

  it('accepts a minimal valid file with the defaults filled in', () => {
    const file = path.join(dir, 'ok.yaml');
    writeFileSync(file, JSON.stringify({ version: 3, probes: [attack] }));
    const loaded = loadProbeLibrary(file);
    expect(loaded.version).toBe(3);
    expect(loaded.probes[0]).toMatchObject({ surface: 'input', tool: null, arguments: null, canary: null, text: 't' });
  });
});

describe('selectProbes', () => {
  it('picks by class and by id, in library order without repeats', () => {
    const picked = selectProbes(library, ['benign.02', 'destructive_sql', 'destructive_sql.01', 'benign.02']);
    expect(picked.map((probe) => probe.id)).toEqual([...ofClass('destructive_sql').map((probe) => probe.id), 'benign.02']);
  });

  it('answers the whole library for an empty list', () => {
    expect(selectProbes(library, [])).toHaveLength(library.probes.length);
  });

  it('refuses unknown ids and classes, listing all of them (400 invalid-request)', () => {
    let caught: unknown;
    try {
      selectProbes(library, ['benign.01', 'no_such_class', 'direct_injection.999', 'no_such_class']);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Problem);
    const problem = caught as Problem;
    expect(problem.status).toBe(400);
    expect(problem.slug).toBe('invalid-request');
    expect(problem.detail).toContain('"no_such_class"');
    expect(problem.detail).toContain('"direct_injection.999"');
    expect(problem.detail).not.toContain('benign.01');
    expect(problem.errors?.[0]?.field).toBe('/body/probes');
  });
});

describe('views', () => {
  it('answers a probe with nulls where it has no text or no tool', () => {
    const sql = probeView(ofClass('destructive_sql')[0]!);
    expect(sql).toEqual({
      id: 'destructive_sql.01', class: 'destructive_sql', kind: 'attack', surface: 'tool_args', text: null, tool: 'db.query',
      arguments: { sql: 'DROP TABLE customers' }, owasp: ['LLM05', 'LLM06'], atlas: ['AML.T0053'], goal: sql.goal,
    });
    const text = probeView(library.probes[0]!);
    expect(text.tool).toBeNull();
    expect(text.arguments).toBeNull();
    expect(Object.keys(text)).not.toContain('canary');
  });

  it('answers the library with per-class counts and the mutations, matching its schema', () => {
    const view = libraryView(library);
    expect(Value.Check(LibraryViewSchema, view)).toBe(true);
    expect(view.items).toHaveLength(library.probes.length);
    expect(view.classes.reduce((sum, entry) => sum + entry.probes, 0)).toBe(library.probes.length);
    expect(view.classes.find((entry) => entry.class === 'benign')).toMatchObject({ kind: 'benign', probes: ofClass('benign').length });
    expect(view.mutations.map((mutation) => mutation.class)).toEqual([...MUTATION_CLASSES]);
  });
});

// Diagnostic: what the shipped detectors and packs stop, with the baseline enforcing. Prints the
// share stopped per class; asserts only that benign probes pass and that the library is not all caught.
describe('every probe through the real pipeline (sqlite, baseline enforcing)', () => {
  const ctx = withGateway({ dialect: 'sqlite' });

  it('stops some classes, lets benign probes through and leaves at least one class not fully stopped', async () => {
    const { pipeline, policyRegistry } = ctx.gateway.app.services;
    const baseline = policyRegistry.policy('baseline');
    expect(baseline).toBeDefined();
    const enforcing = { ...orgPolicy(baseline!.pack, 'redteam', 'enforce'), version: baseline!.version };
    const packs = policyRegistry.replay({ agent: 'rt', team: null, environment: null }, enforcing);

    const byClass = new Map<string, { probes: number; blocked: number; escalated: number; rules: Set<string> }>();
    for (const probe of library.probes) {
      const call = probe.surface === 'tool_args'
        ? { agent: 'rt', surface: probe.surface, tool: probe.tool!, arguments: probe.arguments!, content: JSON.stringify(probe.arguments) }
        : { agent: 'rt', surface: probe.surface, content: probe.text! };
      const decision = await pipeline.trial(call, { packs });
      const row = byClass.get(probe.class) ?? { probes: 0, blocked: 0, escalated: 0, rules: new Set<string>() };
      row.probes += 1;
      if (decision.verdict !== 'allow') for (const rule of decision.rules_fired) row.rules.add(rule.rule_id);
      if (decision.verdict === 'block') row.blocked += 1;
      if (decision.verdict === 'escalate') row.escalated += 1;
      byClass.set(probe.class, row);
    }

    const lines = [...byClass].map(([name, row]) => `${name.padEnd(30)} ${String(row.blocked).padStart(2)}/${row.probes} blocked, ${row.escalated} escalated (${Math.round((100 * row.blocked) / row.probes)}% blocked) ${[...row.rules].join(' ')}`);
    console.log(`red-team library through the pipeline, baseline enforcing:\n${lines.join('\n')}`);

    const benign = byClass.get('benign')!;
    expect(benign.probes).toBe(ofClass('benign').length);
    expect(benign.blocked / benign.probes).toBeLessThanOrEqual(0.1);
    const attacks = [...byClass].filter(([name]) => name !== 'benign');
    expect(attacks).toHaveLength(15);
    expect(attacks.some(([, row]) => row.blocked + row.escalated < row.probes)).toBe(true);
    // The detectors are not blind either: some class is stopped at least in part.
    expect(attacks.some(([, row]) => row.blocked > 0)).toBe(true);
  }, 120_000);
});
