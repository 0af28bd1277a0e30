// The shapes a repository analysis takes in and gives back. The code-host scan (../service.ts) picks
// files with selectFiles, fetches them, and hands them to analyzeFiles; what comes back becomes
// findings and discovery sites.

/** One entry of a repository tree as the code host lists it. */
export interface TreeEntry {
  path: string;
  type: 'blob' | 'tree' | string;
  size?: number;
}

/** A fetched file: its path in the repository and its text. */
export interface RepoFile {
  path: string;
  content: string;
}

export type SiteKind = 'framework' | 'model_client' | 'mcp_server' | 'tool' | 'prompt' | 'secret' | 'agent';

/** One place in the code where something was found; every report entry is also one of these. */
export interface SiteFound {
  kind: SiteKind;
  /** e.g. 'langchain', 'openai', 'github' (an MCP server), a tool name, 'system prompt', a secret entity, an agent name. */
  name: string;
  path: string;
  /** 1-based. */
  line: number;
  language: string | null;
  /** Never a secret value: a secret carries { entity, hint, length, pattern, score }. */
  detail: Record<string, unknown>;
}

export type McpTransport = 'stdio' | 'http' | 'sse';

export interface AnalysisReport {
  /** Sorted, unique. */
  frameworks: string[];
  /** Sorted, unique. */
  model_clients: string[];
  mcp_servers: Array<{ name: string; path: string; line: number; transport: McpTransport | null; command: string | null; url: string | null }>;
  tools: Array<{ name: string; path: string; line: number; framework: string | null }>;
  /** excerpt: at most 160 characters, whitespace collapsed, secrets masked. */
  prompts: Array<{ path: string; line: number; chars: number; risky: boolean; entities: string[]; excerpt: string }>;
  secrets: Array<{ path: string; line: number; entity: string; hint: string; length: number }>;
  agents: Array<{ name: string; path: string; line: number; framework: string | null }>;
  /** Code files analysed per programming language. */
  languages: Record<string, number>;
  /** Everything above as one list (what becomes discovery sites). */
  sites: SiteFound[];
}

export interface AnalysisDeps {
  /** Whether a system prompt carries risky instructions; called once per prompt, at most MAX_PROMPTS times. */
  checkPrompt(text: string): Promise<{ risky: boolean; entities: string[] }>;
}
