// Frameworks and model clients by what a file imports (Python, TypeScript/JavaScript, Go, Java,
// Kotlin), by the manifests that declare dependencies (package.json, requirements*.txt,
// pyproject.toml, Pipfile, go.mod, pom.xml, Gradle), and by a few call shapes that name a vendor
// without a package of its own (boto3's `bedrock-runtime`, `AzureOpenAI(`). Line by line, each line
// cut to MAX_LINE_CHARS, every regex anchored or bounded.

import { meaningOf, type Ecosystem, type PackageMeaning } from './packages.js';
import { jsonKeyLines, MAX_LINE_CHARS, type SourceText } from './text.js';

export interface PackageHit {
  meaning: PackageMeaning;
  /** The module, package or coordinate as written. */
  module: string;
  /** 1-based. */
  line: number;
  via: 'import' | 'manifest' | 'call';
}

const MAX_IMPORT_NAMES = 64;
/** Lines a parenthesised Python import or a Go import block may span. */
const MAX_BLOCK_LINES = 200;
const MAX_DEPENDENCY_KEYS = 2_000;
/** Known dependencies reported from one package.json. */
const MAX_KNOWN_DEPENDENCIES = 200;

const PYTHON_MODULE = /^[A-Za-z_][\w.]{0,200}$/;
const JAVA_PACKAGE = /^[A-Za-z_][\w.]{0,300}$/;

function hit(out: PackageHit[], ecosystem: Ecosystem, module: string, line: number, via: PackageHit['via']): void {
  const meaning = meaningOf(ecosystem, module);
  if (meaning !== null) out.push({ meaning, module, line, via });
}

function beforeComment(line: string, marker: string): string {
  const at = line.indexOf(marker);
  return at === -1 ? line : line.slice(0, at);
}

function firstWord(text: string): string {
  const trimmed = text.trim();
  let end = 0;
  while (end < trimmed.length && !/\s/.test(trimmed[end] ?? '')) end += 1;
  return trimmed.slice(0, end);
}

function scanPython(source: SourceText, out: PackageHit[]): void {
  const lines = source.lines;
  for (let i = 0; i < lines.length; i += 1) {
    const text = beforeComment((lines[i] ?? '').trimStart(), '#');
    const line = i + 1;
    if (text.startsWith('import ')) {
      for (const part of text.slice(7).split(',', MAX_IMPORT_NAMES)) {
        const module = firstWord(part);
        if (PYTHON_MODULE.test(module)) hit(out, 'python', module, line, 'import');
      }
    } else if (text.startsWith('from ')) {
      const rest = text.slice(5).trimStart();
      const module = firstWord(rest);
      const afterModule = rest.slice(module.length).trimStart();
      if (!PYTHON_MODULE.test(module) || !afterModule.startsWith('import')) continue;
      let names = afterModule.slice(6);
      // `from x import (` … `)` spans lines: gather them (bounded) and go on after them.
      if (names.includes('(') && !names.includes(')')) {
        const last = Math.min(lines.length - 1, i + MAX_BLOCK_LINES);
        while (i < last && names.length < MAX_LINE_CHARS) {
          i += 1;
          const more = beforeComment(lines[i] ?? '', '#');
          names += ` ${more}`;
          if (more.includes(')')) break;
        }
      }
      hit(out, 'python', module, line, 'import');
      for (const part of names.replace(/[()\\]/g, ' ').split(',', MAX_IMPORT_NAMES)) {
        const name = firstWord(part);
        if (/^[A-Za-z_]\w{0,100}$/.test(name)) hit(out, 'python', `${module}.${name}`, line, 'import');
      }
      continue;
    }
    if (text.includes('bedrock-runtime') || text.includes('bedrock-agent-runtime')) {
      out.push({ meaning: { frameworks: [], clients: ['bedrock'], mcp: false }, module: 'boto3', line, via: 'call' });
    }
    azureCall(text, i, out);
  }
}

const AZURE_CALL = /\b(?:Async)?Azure(?:Chat)?OpenAI\s*\(/;

function azureCall(text: string, index: number, out: PackageHit[]): void {
  if (text.includes('AzureOpenAI') || text.includes('AzureChatOpenAI')) {
    if (AZURE_CALL.test(text)) out.push({ meaning: { frameworks: [], clients: ['azure-openai'], mcp: false }, module: 'AzureOpenAI', line: index + 1, via: 'call' });
  }
}

const JS_FROM = /\bfrom\s*(['"])([^'"]{1,214})\1/;
const JS_BARE_IMPORT = /^import\s*(['"])([^'"]{1,214})\1/;
const JS_CALL_IMPORT = /\b(?:require|import)\s*\(\s*(['"])([^'"]{1,214})\1\s*\)/g;

function scanJavaScript(source: SourceText, out: PackageHit[]): void {
  const lines = source.lines;
  for (let i = 0; i < lines.length; i += 1) {
    const text = (lines[i] ?? '').trimStart();
    if (text.startsWith('//')) continue;
    // `import … from 'x'`, `export … from 'x'`, and the closing `} from 'x'` of a multi-line import.
    if (text.startsWith('import') || text.startsWith('export') || text.startsWith('}')) {
      const from = JS_FROM.exec(text) ?? JS_BARE_IMPORT.exec(text);
      if (from?.[2] !== undefined && !from[2].startsWith('.')) hit(out, 'npm', from[2], i + 1, 'import');
    }
    if (text.includes('require') || text.includes('import(')) {
      JS_CALL_IMPORT.lastIndex = 0;
      for (let match = JS_CALL_IMPORT.exec(text); match !== null; match = JS_CALL_IMPORT.exec(text)) {
        const specifier = match[2] ?? '';
        if (!specifier.startsWith('.')) hit(out, 'npm', specifier, i + 1, 'import');
      }
    }
    azureCall(text, i, out);
  }
}

const GO_QUOTED = /"([^"\s]{1,300})"/;

function scanGo(source: SourceText, out: PackageHit[]): void {
  const lines = source.lines;
  let inBlock = false;
  for (let i = 0; i < lines.length; i += 1) {
    const text = beforeComment(lines[i] ?? '', '//').trim();
    if (inBlock) {
      if (text.startsWith(')')) inBlock = false;
      else {
        const path = GO_QUOTED.exec(text)?.[1];
        if (path !== undefined) hit(out, 'go', path, i + 1, 'import');
      }
    } else if (text.startsWith('import')) {
      const rest = text.slice(6).trim();
      if (rest.startsWith('(')) inBlock = !rest.includes(')');
      const path = GO_QUOTED.exec(rest)?.[1];
      if (path !== undefined) hit(out, 'go', path, i + 1, 'import');
    }
  }
}

function scanJava(source: SourceText, out: PackageHit[]): void {
  const lines = source.lines;
  for (let i = 0; i < lines.length; i += 1) {
    const text = (lines[i] ?? '').trimStart();
    if (!text.startsWith('import ')) continue;
    let name = text.slice(7).trimStart();
    if (name.startsWith('static ')) name = name.slice(7).trimStart();
    name = firstWord(name.split(';', 1)[0] ?? '');
    if (name.endsWith('.*')) name = name.slice(0, -2);
    if (JAVA_PACKAGE.test(name)) hit(out, 'java', name, i + 1, 'import');
  }
}

/** Imports and vendor-naming calls of a code file. */
export function scanImports(source: SourceText, language: string): PackageHit[] {
  const out: PackageHit[] = [];
  switch (language) {
    case 'python':
      scanPython(source, out);
      break;
    case 'typescript':
    case 'javascript':
      scanJavaScript(source, out);
      break;
    case 'go':
      scanGo(source, out);
      break;
    case 'java':
    case 'kotlin':
      scanJava(source, out);
      break;
  }
  return out;
}

const PACKAGE_JSON_SECTIONS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];

function scanPackageJson(source: SourceText, out: PackageHit[]): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(source.text);
  } catch {
    return;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return;
  let keys = 0;
  let known = 0;
  const allKeys = jsonKeyLines(source, 0);
  for (const section of PACKAGE_JSON_SECTIONS) {
    const deps = (parsed as Record<string, unknown>)[section];
    if (deps === null || typeof deps !== 'object' || Array.isArray(deps)) continue;
    const sectionLine = allKeys.get(section) ?? 0;
    const keyLines = jsonKeyLines(source, sectionLine + 1);
    for (const name of Object.keys(deps)) {
      keys += 1;
      if (keys > MAX_DEPENDENCY_KEYS) return;
      if (meaningOf('npm', name) === null) continue;
      known += 1;
      if (known > MAX_KNOWN_DEPENDENCIES) return;
      hit(out, 'npm', name, (keyLines.get(name) ?? sectionLine) + 1, 'manifest');
    }
  }
}

const DIST_NAME = /^([A-Za-z0-9][A-Za-z0-9._-]{0,100})/;

function scanRequirements(source: SourceText, out: PackageHit[]): void {
  source.lines.forEach((raw, i) => {
    const text = beforeComment(raw, '#').trim();
    if (text === '' || text.startsWith('-')) return;
    const name = DIST_NAME.exec(text)?.[1];
    if (name !== undefined) hit(out, 'pypi', name, i + 1, 'manifest');
  });
}

const QUOTED_REQUIREMENT = /["']([A-Za-z0-9][A-Za-z0-9._-]{0,100})(?:\[[^\]"']{0,100}\])?\s*(?:[<>=!~;@][^"']{0,200})?["']/g;
const TOML_KEY = /^([A-Za-z0-9][A-Za-z0-9._-]{0,100})\s*=/;

/**
 * pyproject.toml and Pipfile: quoted requirements inside a dependency array (`dependencies = [`,
 * `optional-dependencies`, `requires`), and `name = …` keys in a dependency table
 * (`[tool.poetry.dependencies]`, `[packages]`).
 */
function scanTomlRequirements(source: SourceText, out: PackageHit[]): void {
  let inDependencyTable = false;
  let inArray = false;
  source.lines.forEach((raw, i) => {
    const text = beforeComment(raw, '#').trim();
    if (text.startsWith('[') && !inArray) {
      const header = text.toLowerCase();
      inDependencyTable = header.includes('dependencies') || header === '[packages]' || header === '[dev-packages]';
      return;
    }
    const key = TOML_KEY.exec(text)?.[1];
    if (inDependencyTable && key !== undefined) hit(out, 'pypi', key, i + 1, 'manifest');
    const opensArray = key !== undefined && text.includes('[') && (inDependencyTable || /depend|requires/i.test(key));
    if (opensArray || inArray) {
      QUOTED_REQUIREMENT.lastIndex = 0;
      for (let match = QUOTED_REQUIREMENT.exec(text); match !== null; match = QUOTED_REQUIREMENT.exec(text)) {
        hit(out, 'pypi', match[1] ?? '', i + 1, 'manifest');
      }
    }
    if (opensArray) inArray = !text.includes(']', text.indexOf('['));
    else if (inArray && text.includes(']')) inArray = false;
  });
}

function scanGoMod(source: SourceText, out: PackageHit[]): void {
  let inBlock = false;
  source.lines.forEach((raw, i) => {
    const text = beforeComment(raw, '//').trim();
    if (inBlock) {
      if (text.startsWith(')')) inBlock = false;
      else if (text !== '') hit(out, 'go', firstWord(text), i + 1, 'manifest');
    } else if (text.startsWith('require')) {
      const rest = text.slice(7).trim();
      if (rest.startsWith('(')) inBlock = true;
      else if (rest !== '') hit(out, 'go', firstWord(rest), i + 1, 'manifest');
    }
  });
}

const POM_GROUP = /<groupId>\s*([^<\s]{1,200})\s*<\/groupId>/;
const POM_ARTIFACT = /<artifactId>\s*([^<\s]{1,200})\s*<\/artifactId>/;

function scanPom(source: SourceText, out: PackageHit[]): void {
  let group: { name: string; line: number } | null = null;
  let artifact: string | null = null;
  let inDependency = false;
  for (let i = 0; i < source.lines.length; i += 1) {
    const text = source.lines[i] ?? '';
    if (text.includes('<dependency>')) {
      inDependency = true;
      group = null;
      artifact = null;
    }
    if (!inDependency) continue;
    const groupName = POM_GROUP.exec(text)?.[1];
    if (groupName !== undefined) group = { name: groupName, line: i + 1 };
    artifact = POM_ARTIFACT.exec(text)?.[1] ?? artifact;
    if (text.includes('</dependency>')) {
      inDependency = false;
      if (group !== null) hit(out, 'maven', artifact === null ? group.name : `${group.name}:${artifact}`, group.line, 'manifest');
    }
  }
}

const GRADLE_COORDINATE = /["']([A-Za-z0-9_.-]{1,200}):([A-Za-z0-9_.-]{1,200})(?::[^"'\s]{0,100})?["']/g;

function scanGradle(source: SourceText, out: PackageHit[]): void {
  source.lines.forEach((text, i) => {
    if (!text.includes(':')) return;
    GRADLE_COORDINATE.lastIndex = 0;
    for (let match = GRADLE_COORDINATE.exec(text); match !== null; match = GRADLE_COORDINATE.exec(text)) {
      hit(out, 'maven', `${match[1] ?? ''}:${match[2] ?? ''}`, i + 1, 'manifest');
    }
  });
}

/** Declared dependencies of a manifest file (by its base name). */
export function scanManifest(source: SourceText, path: string): PackageHit[] {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const out: PackageHit[] = [];
  if (name === 'package.json') scanPackageJson(source, out);
  else if (name.startsWith('requirements') && name.endsWith('.txt')) scanRequirements(source, out);
  else if (name === 'pyproject.toml' || name === 'pipfile') scanTomlRequirements(source, out);
  else if (name === 'go.mod') scanGoMod(source, out);
  else if (name === 'pom.xml') scanPom(source, out);
  else if (name === 'build.gradle' || name === 'build.gradle.kts' || name.endsWith('.versions.toml')) scanGradle(source, out);
  return out;
}
