// Tools, agents and MCP servers by the shape of the code that defines them: decorators (`@tool`,
// `@function_tool`, `@mcp.tool`), constructor calls (`Agent(name=…)`, `new McpServer({ name })`,
// `FastMCP("x")`), tool objects (`weather: tool({`, the OpenAI `{"type": "function", "function":
// {"name": …}}` and Anthropic `{"name": …, "input_schema": …}` shapes). Names are read from the same
// line or the next few (LOOKAHEAD_LINES); a name built at run time is not seen.

import { cleanName, findAhead, LOOKAHEAD_LINES, type Needle, type SourceText } from './text.js';

export interface ShapeHit {
  name: string;
  /** 1-based. */
  line: number;
  framework: string | null;
  detail: Record<string, unknown>;
}

export interface ShapeResult {
  tools: ShapeHit[];
  agents: ShapeHit[];
  servers: ShapeHit[];
}

export interface FileContext {
  path: string;
  language: string;
  /** Frameworks this file imports. */
  frameworks: ReadonlySet<string>;
  /** The file imports an MCP SDK. */
  mcp: boolean;
}

/** Bounds the hits one file can give, whatever it holds. */
const MAX_HITS_PER_FILE = 500;
/** LangChain.js puts a tool's `name` after its function body. */
const LANGCHAIN_TOOL_LOOKAHEAD = 25;

// Quoted names: the quote is captured so that the same one closes the name.
const Q = `(["'\`])([^"'\`\\n]{1,128})\\1`;
const PY_Q = `(["'])([^"'\\n]{1,128})\\1`;

const PY_DECORATOR = /^\s*@([A-Za-z_][\w.]{0,80})\s*(\(.*)?$/;
const PY_DEF = /^\s*(?:async\s+)?def\s+([A-Za-z_]\w{0,127})/;
const PY_NAME_KWARG = new RegExp(`\\bname\\s*=\\s*${PY_Q}`);
const PY_NAME: Needle = { pattern: PY_NAME_KWARG, literal: 'name' };
const PY_ROLE: Needle = { pattern: new RegExp(`\\brole\\s*=\\s*${PY_Q}`), literal: 'role' };
const PY_FIRST_POSITIONAL = new RegExp(`^\\(\\s*${PY_Q}`);
const PY_TOOL_CALL = /(?:^|[^\w.])(Tool|StructuredTool\.from_function|Tool\.from_function|FunctionTool\.from_defaults)\s*\(/;
const PY_AGENT_CALL =
  /(?:^|[^\w])(Agent|AssistantAgent|ConversableAgent|UserProxyAgent|FunctionAgent|ReActAgent|CodeAgent|ToolCallingAgent|create_react_agent)\s*\(/;
const PY_FASTMCP = new RegExp(`(?:^|[^\\w])FastMCP\\s*\\(\\s*(?:name\\s*=\\s*)?(?:${PY_Q})?`);
const PY_LOW_LEVEL_SERVER = new RegExp(`(?:^|[^\\w])Server\\s*\\(\\s*(?:name\\s*=\\s*)?${PY_Q}`);

const JS_NAME: Needle = { pattern: new RegExp(`\\bname\\s*:\\s*${Q}`), literal: 'name' };
const JS_ID: Needle = { pattern: new RegExp(`\\bid\\s*:\\s*${Q}`), literal: 'id' };
const JS_TOOL_ASSIGN = /(?:^|[\s{,(])(["']?)([A-Za-z_$][\w$-]{0,127})\1\s*[:=]\s*(?:await\s+)?(tool|createTool|dynamicTool)\s*\(\s*(\{)?/g;
const JS_LANGCHAIN_CLASS_TOOL = /\bnew\s+(?:DynamicStructuredTool|DynamicTool)\s*\(/;
const JS_MCP_TOOL = new RegExp(`\\.(?:tool|registerTool)\\s*\\(\\s*${Q}`, 'g');
const JS_AGENT = /\bnew\s+Agent\s*\(|\bcreateReactAgent\s*\(/;
const JS_MCP_SERVER = /\bnew\s+McpServer\s*\(/;
const JS_LOW_LEVEL_SERVER = /\bnew\s+Server\s*\(/;

const TYPE_FUNCTION = /(?<![\w$])(["']?)type\1\s*[:=]\s*["']function["']/;
const ANY_NAME_KEY = new RegExp(`(?<![\\w$])(["']?)name\\1\\s*[:=]\\s*${Q}`);
const ANY_NAME: Needle = { pattern: ANY_NAME_KEY, literal: 'name' };
const INPUT_SCHEMA = /(?<![\w$])(["']?)input_schema\1\s*[:=]/;

const GO_MARK3LABS_SERVER = /\bserver\.NewMCPServer\s*\(\s*"([^"\n]{1,128})"/;
const GO_SDK_SERVER = /\bmcp\.NewServer\s*\(/;
const GO_NAME: Needle = { pattern: /\bName\s*:\s*"([^"\n]{1,128})"/, literal: 'Name' };
const GO_MARK3LABS_TOOL = /\bmcp\.NewTool\s*\(\s*"([^"\n]{1,128})"/;
const GO_SDK_TOOL = /\bmcp\.AddTool\s*\(/;

const JAVA_TOOL_ANNOTATION = /^\s*@Tool\b/;
const JAVA_NAME_ATTRIBUTE = /\bname\s*=\s*"([^"\n]{1,128})"/;
const JAVA_AI_SERVICE = /\bAiServices\.(?:builder|create)\s*\(\s*([A-Za-z_]\w{0,127})\.class/;
const JAVA_MCP_SERVER = /\bMcpServer\.(?:sync|async)\s*\(/;
const JAVA_SERVER_INFO: Needle = { pattern: /\.serverInfo\s*\(\s*"([^"\n]{1,128})"/, literal: 'serverInfo' };

/** The frameworks that define these shapes, most specific first. */
const TOOL_FRAMEWORKS = ['langchain', 'langgraph', 'crewai', 'openai-agents', 'llama-index', 'haystack', 'pydantic-ai', 'smolagents', 'semantic-kernel', 'autogen'];
const AGENT_FRAMEWORKS = ['openai-agents', 'crewai', 'autogen', 'langgraph', 'llama-index', 'smolagents', 'pydantic-ai', 'mastra', 'langchain'];

function pick(frameworks: ReadonlySet<string>, order: readonly string[]): string | null {
  return order.find((name) => frameworks.has(name)) ?? null;
}

/** The identifier that ends `text` (a Java method name before its `(`), read backwards without a regex. */
function lastIdentifier(text: string): string | null {
  let end = text.length;
  while (end > 0 && /\s/.test(text[end - 1] ?? '')) end -= 1;
  let start = end;
  while (start > 0 && /[\w$]/.test(text[start - 1] ?? '')) start -= 1;
  if (start === end || /\d/.test(text[start] ?? '')) return null;
  return text.slice(start, end);
}

function fallbackName(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

class Hits {
  readonly result: ShapeResult = { tools: [], agents: [], servers: [] };
  private count = 0;
  private readonly seen = new Set<string>();

  add(kind: keyof ShapeResult, name: string, line: number, framework: string | null, detail: Record<string, unknown> = {}): void {
    const clean = cleanName(name);
    const key = `${kind}\u0000${clean}\u0000${line}`;
    if (clean === '' || this.count >= MAX_HITS_PER_FILE || this.seen.has(key)) return;
    this.seen.add(key);
    this.count += 1;
    this.result[kind].push({ name: clean, line, framework, detail });
  }
}

function scanPython(source: SourceText, file: FileContext, hits: Hits): void {
  const lines = source.lines;
  // FastMCP and low-level servers first: `@mcp.tool` below is an MCP tool when the file defines one.
  let servers = 0;
  let serverName: string | null = null;
  for (let i = 0; i < lines.length; i += 1) {
    const text = lines[i] ?? '';
    if (!text.includes('Server') && !text.includes('FastMCP')) continue;
    const fast = text.includes('FastMCP') ? PY_FASTMCP.exec(text) : null;
    const low = fast === null && file.mcp ? PY_LOW_LEVEL_SERVER.exec(text) : null;
    const match = fast ?? low;
    if (match === null) continue;
    const name = match[2] ?? fallbackName(file.path);
    servers += 1;
    serverName = name;
    hits.add('servers', name, i + 1, 'mcp', { defined_by: fast !== null ? 'FastMCP' : 'Server' });
  }
  const mcpFile = file.mcp || servers > 0;
  for (let i = 0; i < lines.length; i += 1) {
    const text = lines[i] ?? '';
    if (text.includes('@')) {
      const decorator = PY_DECORATOR.exec(text);
      if (decorator !== null) pythonDecorator(source, file, hits, i, decorator[1] ?? '', decorator[2] ?? '', mcpFile, servers === 1 ? serverName : null);
    }
    if (text.includes('Tool')) {
      const call = PY_TOOL_CALL.exec(text);
      if (call !== null) {
        const found = findAhead(source, i, PY_NAME, 6, call.index);
        const kind = call[1] ?? '';
        const framework = kind.startsWith('FunctionTool') ? 'llama-index' : pick(file.frameworks, TOOL_FRAMEWORKS);
        if (found !== null) hits.add('tools', found.value, found.line, framework, { shape: kind });
      }
    }
    if (text.includes('Agent') || text.includes('create_react_agent')) {
      const call = PY_AGENT_CALL.exec(text);
      if (call !== null) pythonAgent(source, file, hits, i, call);
    }
  }
}

function pythonDecorator(
  source: SourceText,
  file: FileContext,
  hits: Hits,
  index: number,
  path: string,
  args: string,
  mcpFile: boolean,
  serverName: string | null,
): void {
  const dot = path.lastIndexOf('.');
  const owner = dot === -1 ? '' : path.slice(0, dot);
  const last = path.slice(dot + 1);
  let framework: string | null;
  let detail: Record<string, unknown> = { shape: `@${path}` };
  if (last === 'function_tool') framework = 'openai-agents';
  else if (last === 'kernel_function') framework = 'semantic-kernel';
  else if (last === 'tool' || last === 'tool_plain') {
    if (owner !== '' && mcpFile) {
      framework = 'mcp';
      detail = { ...detail, server: serverName };
    } else framework = pick(file.frameworks, TOOL_FRAMEWORKS);
  } else return;
  const named = PY_NAME_KWARG.exec(args) ?? PY_FIRST_POSITIONAL.exec(args);
  let name = named?.[2] ?? null;
  if (name === null) {
    // The decorated function: skip further decorators and blank lines.
    for (let j = index + 1; j < Math.min(source.lines.length, index + 1 + LOOKAHEAD_LINES); j += 1) {
      const line = source.lines[j] ?? '';
      const def = line.includes('def') ? PY_DEF.exec(line) : null;
      if (def !== null) {
        name = def[1] ?? null;
        break;
      }
    }
  }
  if (name !== null) hits.add('tools', name, index + 1, framework, detail);
}

function pythonAgent(source: SourceText, file: FileContext, hits: Hits, index: number, call: RegExpExecArray): void {
  const kind = call[1] ?? '';
  const after = (source.lines[index] ?? '').slice(call.index + call[0].length);
  const crew = kind === 'Agent' && file.frameworks.has('crewai');
  let found: { value: string; line: number } | null = null;
  if (crew) found = findAhead(source, index, PY_ROLE, LOOKAHEAD_LINES, call.index);
  found ??= findAhead(source, index, PY_NAME, LOOKAHEAD_LINES, call.index);
  if (found === null && kind !== 'Agent' && kind !== 'create_react_agent') {
    // AutoGen: `AssistantAgent("planner", …)`.
    const positional = PY_FIRST_POSITIONAL.exec(`(${after}`);
    if (positional?.[2] !== undefined) found = { value: positional[2], line: index + 1 };
  }
  if (found === null) return;
  const framework = crew ? 'crewai' : kind === 'create_react_agent' ? 'langgraph' : pick(file.frameworks, AGENT_FRAMEWORKS);
  hits.add('agents', found.value, index + 1, framework, { shape: `${kind}(`, named_by: crew ? 'role' : 'name' });
}

function scanJavaScript(source: SourceText, file: FileContext, hits: Hits): void {
  const lines = source.lines;
  let servers = 0;
  let serverName: string | null = null;
  for (let i = 0; i < lines.length; i += 1) {
    const text = lines[i] ?? '';
    if (!text.includes('Server')) continue;
    const high = JS_MCP_SERVER.exec(text);
    const low = high === null && file.mcp ? JS_LOW_LEVEL_SERVER.exec(text) : null;
    const match = high ?? low;
    if (match === null) continue;
    const name = findAhead(source, i, JS_NAME, LOOKAHEAD_LINES, match.index)?.value ?? fallbackName(file.path);
    servers += 1;
    serverName = name;
    hits.add('servers', name, i + 1, 'mcp', { defined_by: high !== null ? 'McpServer' : 'Server' });
  }
  const mcpFile = file.mcp || servers > 0;
  for (let i = 0; i < lines.length; i += 1) {
    const text = lines[i] ?? '';
    if (text.includes('ool')) javaScriptTools(source, file, hits, i, text, mcpFile, servers === 1 ? serverName : null);
    if (text.includes('Agent')) {
      const agent = JS_AGENT.exec(text);
      if (agent !== null) {
        const found = findAhead(source, i, JS_NAME, LOOKAHEAD_LINES, agent.index);
        const framework = agent[0].startsWith('createReactAgent') ? 'langgraph' : pick(file.frameworks, AGENT_FRAMEWORKS);
        if (found !== null) hits.add('agents', found.value, i + 1, framework, { shape: agent[0].replace(/\s+/g, ' ') });
      }
    }
    if (text.includes('function')) openAiFunction(source, hits, i, text);
    if (text.includes('input_schema')) anthropicTool(source, hits, i, text);
  }
}

function javaScriptTools(source: SourceText, file: FileContext, hits: Hits, index: number, text: string, mcpFile: boolean, serverName: string | null): void {
  JS_TOOL_ASSIGN.lastIndex = 0;
  for (let match = JS_TOOL_ASSIGN.exec(text); match !== null; match = JS_TOOL_ASSIGN.exec(text)) {
    const key = match[2] ?? '';
    const call = match[3] ?? '';
    if (call === 'createTool') {
      const id = findAhead(source, index, JS_ID, LOOKAHEAD_LINES, match.index)?.value;
      hits.add('tools', id ?? key, index + 1, 'mastra', { shape: 'createTool(' });
    } else if (match[4] === '{' && (file.frameworks.has('vercel-ai') || !file.frameworks.has('langchain'))) {
      hits.add('tools', key, index + 1, file.frameworks.has('vercel-ai') ? 'vercel-ai' : null, { shape: `${call}({` });
    } else if (file.frameworks.has('langchain')) {
      const named = findAhead(source, index, JS_NAME, LANGCHAIN_TOOL_LOOKAHEAD, match.index)?.value;
      hits.add('tools', named ?? key, index + 1, 'langchain', { shape: `${call}(` });
    }
  }
  const langchainClass = JS_LANGCHAIN_CLASS_TOOL.exec(text);
  if (langchainClass !== null) {
    const named = findAhead(source, index, JS_NAME, LOOKAHEAD_LINES, langchainClass.index);
    if (named !== null) hits.add('tools', named.value, index + 1, 'langchain', { shape: 'new DynamicStructuredTool(' });
  }
  if (mcpFile) {
    JS_MCP_TOOL.lastIndex = 0;
    for (let match = JS_MCP_TOOL.exec(text); match !== null; match = JS_MCP_TOOL.exec(text)) {
      hits.add('tools', match[2] ?? '', index + 1, 'mcp', { shape: '.tool(', server: serverName });
    }
  }
}

/** `{"type": "function", "function": {"name": "x"` (OpenAI's tool shape), the name on this line or the next few. */
function openAiFunction(source: SourceText, hits: Hits, index: number, text: string): void {
  const match = TYPE_FUNCTION.exec(text);
  if (match === null) return;
  const found = findAhead(source, index, ANY_NAME, LOOKAHEAD_LINES, match.index);
  if (found !== null) hits.add('tools', found.value, found.line, null, { shape: 'openai function' });
}

/** `{"name": "x", …, "input_schema": {` (Anthropic's tool shape): the name comes before the schema. */
function anthropicTool(source: SourceText, hits: Hits, index: number, text: string): void {
  const schema = INPUT_SCHEMA.exec(text);
  if (schema === null) return;
  for (let j = index; j >= Math.max(0, index - 6); j -= 1) {
    const line = j === index ? text.slice(0, schema.index) : (source.lines[j] ?? '');
    const name = ANY_NAME_KEY.exec(line);
    if (name?.[3] !== undefined) {
      hits.add('tools', name[3], j + 1, null, { shape: 'anthropic tool' });
      return;
    }
  }
}

function scanGo(source: SourceText, file: FileContext, hits: Hits): void {
  source.lines.forEach((text, i) => {
    if (!text.includes('mcp.') && !text.includes('server.')) return;
    const mark3 = GO_MARK3LABS_SERVER.exec(text);
    if (mark3?.[1] !== undefined) hits.add('servers', mark3[1], i + 1, 'mcp', { defined_by: 'server.NewMCPServer' });
    const sdk = GO_SDK_SERVER.exec(text);
    if (sdk !== null) {
      const name = findAhead(source, i, GO_NAME, LOOKAHEAD_LINES, sdk.index)?.value ?? fallbackName(file.path);
      hits.add('servers', name, i + 1, 'mcp', { defined_by: 'mcp.NewServer' });
    }
    const tool = GO_MARK3LABS_TOOL.exec(text);
    if (tool?.[1] !== undefined) hits.add('tools', tool[1], i + 1, 'mcp', { shape: 'mcp.NewTool(' });
    const added = GO_SDK_TOOL.exec(text);
    if (added !== null) {
      const name = findAhead(source, i, GO_NAME, LOOKAHEAD_LINES, added.index)?.value;
      if (name !== undefined) hits.add('tools', name, i + 1, 'mcp', { shape: 'mcp.AddTool(' });
    }
  });
}

function scanJava(source: SourceText, file: FileContext, hits: Hits): void {
  const framework = pick(file.frameworks, ['langchain4j', 'spring-ai']);
  source.lines.forEach((text, i) => {
    if (JAVA_TOOL_ANNOTATION.test(text)) {
      let name = JAVA_NAME_ATTRIBUTE.exec(text)?.[1] ?? null;
      // Otherwise the annotated method's name: the identifier before the first `(` of the next code line.
      for (let j = i + 1; name === null && j < Math.min(source.lines.length, i + 1 + LOOKAHEAD_LINES); j += 1) {
        const next = (source.lines[j] ?? '').trim();
        if (next === '' || next.startsWith('@') || next.startsWith('//')) continue;
        const paren = next.indexOf('(');
        name = paren === -1 ? null : lastIdentifier(next.slice(0, paren));
        break;
      }
      if (name !== null) hits.add('tools', name, i + 1, framework, { shape: '@Tool' });
    }
    const service = text.includes('AiServices') ? JAVA_AI_SERVICE.exec(text) : null;
    if (service?.[1] !== undefined) hits.add('agents', service[1], i + 1, 'langchain4j', { shape: 'AiServices' });
    const server = text.includes('McpServer') ? JAVA_MCP_SERVER.exec(text) : null;
    if (server !== null) {
      const name = findAhead(source, i, JAVA_SERVER_INFO, LOOKAHEAD_LINES, server.index)?.value ?? fallbackName(file.path);
      hits.add('servers', name, i + 1, 'mcp', { defined_by: 'McpServer' });
    }
    if (text.includes('function')) openAiFunction(source, hits, i, text);
  });
}

/** Tools, agents and MCP servers a code file defines. */
export function scanShapes(source: SourceText, file: FileContext): ShapeResult {
  const hits = new Hits();
  switch (file.language) {
    case 'python':
      scanPython(source, file, hits);
      source.lines.forEach((text, i) => {
        if (text.includes('function')) openAiFunction(source, hits, i, text);
        if (text.includes('input_schema')) anthropicTool(source, hits, i, text);
      });
      break;
    case 'typescript':
    case 'javascript':
      scanJavaScript(source, file, hits);
      break;
    case 'go':
      scanGo(source, file, hits);
      break;
    case 'java':
    case 'kotlin':
      scanJava(source, file, hits);
      break;
  }
  return hits.result;
}

/** OpenAI- and Anthropic-shaped tool definitions in a JSON or YAML file. */
export function scanConfigTools(source: SourceText): ShapeHit[] {
  const hits = new Hits();
  source.lines.forEach((text, i) => {
    if (text.includes('function')) openAiFunction(source, hits, i, text);
    if (text.includes('input_schema')) anthropicTool(source, hits, i, text);
  });
  return hits.result.tools;
}
