// What the code-host scan uses of the repository analysis (see README.md).
export type { AnalysisDeps, AnalysisReport, McpTransport, RepoFile, SiteFound, SiteKind, TreeEntry } from './types.js';
export { MAX_FILE_BYTES, MAX_FILES, MAX_TREE_ENTRIES, classifyPath, languageOf, selectFiles } from './select.js';
export { EXCERPT_CHARS, MAX_PROMPTS, MAX_SITES_PER_KIND, analyzeFiles } from './analyze.js';
export { MAX_PROMPT_CHARS } from './prompts.js';
