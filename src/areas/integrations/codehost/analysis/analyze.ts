// Runs every scanner over the fetched files and assembles one report: frameworks and model clients,
// MCP servers (configured and defined in code), tools, agents, system prompts (each checked once
// through deps.checkPrompt), hard-coded secrets, files per language, and all of it again as sites.
// Every list is bounded; files are read one after another, yielding to the event loop in between.

import { setImmediate as nextTurn } from 'node:timers/promises';
import { storableText } from '../../../../infra/lib/storable-text.js';
import { scanImports, scanManifest, type PackageHit } from './imports.js';
import { scanMcpConfig, type McpConfigServer } from './mcp-config.js';
import { scanPrompts, scanYamlPrompts, type PromptCandidate } from './prompts.js';
import { maskSecrets, scanSecrets, type SecretHit } from './secrets.js';
import { classifyPath, languageOf, MAX_FILE_BYTES, MAX_FILES } from './select.js';
import { scanConfigTools, scanShapes, type ShapeHit } from './shapes.js';
import { cleanName, SourceText } from './text.js';
import type { AnalysisDeps, AnalysisReport, RepoFile, SiteFound, SiteKind } from './types.js';

/** Prompts checked per analysis (each check runs the detector pipeline). */
export const MAX_PROMPTS = 50;
/** Sites kept per kind, so that a repository of generated code cannot grow a report without bound. */
export const MAX_SITES_PER_KIND = 500;
export const EXCERPT_CHARS = 160;
const MAX_PATH_CHARS = 1_000;
const MAX_ENTITIES = 32;
/** A file with a NUL in its first bytes is binary: nothing to read in it. */
const BINARY_PROBE_CHARS = 8_000;

interface PendingPrompt extends PromptCandidate {
  path: string;
  language: string | null;
}

class ReportBuilder {
  private readonly frameworks = new Set<string>();
  private readonly clients = new Set<string>();
  private readonly report: AnalysisReport = {
    frameworks: [],
    model_clients: [],
    mcp_servers: [],
    tools: [],
    prompts: [],
    secrets: [],
    agents: [],
    languages: {},
    sites: [],
  };
  private readonly perKind = new Map<SiteKind, number>();
  private readonly seen = new Set<string>();

  /** Records a site once per `key`, within the per-kind bound; false when it was not recorded. */
  private site(key: string, site: SiteFound): boolean {
    const count = this.perKind.get(site.kind) ?? 0;
    if (this.seen.has(key) || count >= MAX_SITES_PER_KIND) return false;
    this.seen.add(key);
    this.perKind.set(site.kind, count + 1);
    this.report.sites.push(site);
    return true;
  }

  language(language: string): void {
    this.report.languages[language] = (this.report.languages[language] ?? 0) + 1;
  }

  /** Frameworks and clients: one site per name and file, at the first line that shows it. */
  packageHit(hit: PackageHit, path: string, language: string | null): void {
    const detail = { module: cleanName(hit.module), via: hit.via };
    for (const name of hit.meaning.frameworks) {
      this.frameworks.add(name);
      this.site(`framework\u0000${name}\u0000${path}`, { kind: 'framework', name, path, line: hit.line, language, detail });
    }
    for (const name of hit.meaning.clients) {
      this.clients.add(name);
      this.site(`model_client\u0000${name}\u0000${path}`, { kind: 'model_client', name, path, line: hit.line, language, detail });
    }
  }

  configServer(server: McpConfigServer, path: string): void {
    const { name, line, transport, command, url } = server;
    const detail = { source: 'config', transport, command, url, package: server.package, env_keys: server.env_keys };
    if (this.site(`mcp_server\u0000${name}\u0000${path}\u0000${line}`, { kind: 'mcp_server', name, path, line, language: null, detail })) {
      this.report.mcp_servers.push({ name, path, line, transport, command, url });
    }
  }

  codeServer(hit: ShapeHit, path: string, language: string | null): void {
    const detail = { source: 'code', transport: null, command: null, url: null, ...hit.detail };
    if (this.site(`mcp_server\u0000${hit.name}\u0000${path}\u0000${hit.line}`, { kind: 'mcp_server', name: hit.name, path, line: hit.line, language, detail })) {
      this.report.mcp_servers.push({ name: hit.name, path, line: hit.line, transport: null, command: null, url: null });
    }
  }

  tool(hit: ShapeHit, path: string, language: string | null): void {
    const site: SiteFound = { kind: 'tool', name: hit.name, path, line: hit.line, language, detail: { framework: hit.framework, ...hit.detail } };
    if (this.site(`tool\u0000${hit.name}\u0000${path}\u0000${hit.line}`, site)) {
      this.report.tools.push({ name: hit.name, path, line: hit.line, framework: hit.framework });
    }
  }

  agent(hit: ShapeHit, path: string, language: string | null): void {
    const site: SiteFound = { kind: 'agent', name: hit.name, path, line: hit.line, language, detail: { framework: hit.framework, ...hit.detail } };
    if (this.site(`agent\u0000${hit.name}\u0000${path}\u0000${hit.line}`, site)) {
      this.report.agents.push({ name: hit.name, path, line: hit.line, framework: hit.framework });
    }
  }

  secret(hit: SecretHit, path: string, language: string | null): void {
    const { entity, hint, length, line } = hit;
    const detail = { entity, hint, length, pattern: hit.pattern, score: hit.score };
    if (this.site(`secret\u0000${entity}\u0000${path}\u0000${line}\u0000${hint}`, { kind: 'secret', name: entity, path, line, language, detail })) {
      this.report.secrets.push({ path, line, entity, hint, length });
    }
  }

  prompt(prompt: PendingPrompt, check: { risky: boolean; entities: string[]; failed: boolean }): void {
    const excerpt = excerptOf(prompt.text);
    const entry = { path: prompt.path, line: prompt.line, chars: prompt.text.length, risky: check.risky, entities: check.entities, excerpt };
    const detail: Record<string, unknown> = { chars: entry.chars, risky: entry.risky, entities: entry.entities, excerpt, shape: prompt.shape };
    if (check.failed) detail.check_failed = true;
    const site: SiteFound = { kind: 'prompt', name: 'system prompt', path: prompt.path, line: prompt.line, language: prompt.language, detail };
    if (this.site(`prompt\u0000${prompt.path}\u0000${prompt.line}`, site)) this.report.prompts.push(entry);
  }

  build(): AnalysisReport {
    this.report.frameworks = [...this.frameworks].sort();
    this.report.model_clients = [...this.clients].sort();
    this.report.languages = Object.fromEntries(Object.entries(this.report.languages).sort(([a], [b]) => (a < b ? -1 : 1)));
    return this.report;
  }
}

/** At most EXCERPT_CHARS of a prompt, white space collapsed, secrets in it masked. */
export function excerptOf(text: string): string {
  let collapsed = '';
  let space = false;
  for (const ch of text.trim()) {
    const code = ch.charCodeAt(0);
    if (code <= 32 || code === 127) {
      space = true;
      continue;
    }
    if (space && collapsed !== '') collapsed += ' ';
    space = false;
    collapsed += ch;
  }
  const masked = maskSecrets(collapsed);
  // A surrogate pair cut in half becomes U+FFFD through storableText.
  return storableText(masked.length > EXCERPT_CHARS ? `${masked.slice(0, EXCERPT_CHARS - 1)}…` : masked);
}

function isBinary(content: string): boolean {
  return content.slice(0, BINARY_PROBE_CHARS).includes('\u0000');
}

async function checkOnce(deps: AnalysisDeps, text: string): Promise<{ risky: boolean; entities: string[]; failed: boolean }> {
  try {
    const result = await deps.checkPrompt(text);
    const entities = Array.isArray(result.entities) ? result.entities.filter((e): e is string => typeof e === 'string') : [];
    return { risky: result.risky === true, entities: [...new Set(entities.slice(0, MAX_ENTITIES).map((value) => cleanName(value)))].sort(), failed: false };
  } catch {
    // A check that fails leaves the prompt recorded but not called risky; the site says so.
    return { risky: false, entities: [], failed: true };
  }
}

/** Analyses fetched repository files (at most MAX_FILES, each cut to MAX_FILE_BYTES characters). */
export async function analyzeFiles(files: readonly RepoFile[], deps: AnalysisDeps): Promise<AnalysisReport> {
  const builder = new ReportBuilder();
  const pending: PendingPrompt[] = [];
  const seenPaths = new Set<string>();
  const ordered = files
    .slice(0, MAX_FILES)
    .filter((file) => typeof file.path === 'string' && typeof file.content === 'string')
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const file of ordered) {
    const path = storableText(file.path.slice(0, MAX_PATH_CHARS));
    if (seenPaths.has(path) || isBinary(file.content)) continue;
    seenPaths.add(path);
    const source = new SourceText(file.content.length > MAX_FILE_BYTES ? file.content.slice(0, MAX_FILE_BYTES) : file.content);
    const kind = classifyPath(path);
    const language = languageOf(path);
    const lower = path.toLowerCase();
    const yaml = lower.endsWith('.yaml') || lower.endsWith('.yml');
    const json = lower.endsWith('.json') || lower.endsWith('.jsonc');

    const packageHits = language === null ? [] : scanImports(source, language);
    if (kind === 'manifest') packageHits.push(...scanManifest(source, path));
    for (const hit of packageHits) builder.packageHit(hit, path, language);

    if (language !== null) {
      builder.language(language);
      const shapes = scanShapes(source, {
        path,
        language,
        frameworks: new Set(packageHits.flatMap((hit) => hit.meaning.frameworks)),
        mcp: packageHits.some((hit) => hit.meaning.mcp),
      });
      for (const hit of shapes.servers) builder.codeServer(hit, path, language);
      for (const hit of shapes.tools) builder.tool(hit, path, language);
      for (const hit of shapes.agents) builder.agent(hit, path, language);
    } else if (kind === 'mcp_config' || json) {
      for (const server of scanMcpConfig(source, kind === 'mcp_config')) builder.configServer(server, path);
    }
    if (language === null && (json || yaml)) for (const hit of scanConfigTools(source)) builder.tool(hit, path, null);

    const room = MAX_PROMPTS - pending.length;
    if (room > 0 && kind !== 'mcp_config' && kind !== 'manifest' && kind !== 'env') {
      const found = yaml ? scanYamlPrompts(source, room) : kind === 'code' || kind === 'config' ? scanPrompts(source, room) : [];
      for (const prompt of found) pending.push({ ...prompt, path, language });
    }

    for (const hit of await scanSecrets(source)) builder.secret(hit, path, language);
    await nextTurn();
  }
  for (const prompt of pending) builder.prompt(prompt, await checkOnce(deps, prompt.text));
  return builder.build();
}
