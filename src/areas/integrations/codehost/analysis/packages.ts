// Which package, module or coordinate means which agent framework or model client, per ecosystem.
// A hit names the framework(s) and the model vendor(s) (a vendor, not an SDK: `go-openai` and
// `openai-go` are both `openai`; the module itself goes in the site's detail). `mcp` marks an MCP SDK:
// it is not reported as a framework, it tells the shape scanner that `Server(` is an MCP server.

export type Ecosystem = 'python' | 'pypi' | 'npm' | 'go' | 'java' | 'maven';

export interface PackageMeaning {
  frameworks: readonly string[];
  clients: readonly string[];
  mcp: boolean;
}

type Entry = [key: string, frameworks: string, clients: string, mcp?: 'mcp'];

const list = (value: string): string[] => (value === '' ? [] : value.split(','));

// Python modules, matched on each dotted prefix (`llama_index.llms.openai` → llama-index and openai).
// `agents.Agent`-style keys are `from agents import Agent`: the bare `agents` module means nothing.
const PYTHON: Entry[] = [
  ['langchain', 'langchain', ''],
  ['langchain_core', 'langchain', ''],
  ['langchain_community', 'langchain', ''],
  ['langchain_experimental', 'langchain', ''],
  ['langchain_text_splitters', 'langchain', ''],
  ['langchain_openai', 'langchain', 'openai'],
  ['langchain_anthropic', 'langchain', 'anthropic'],
  ['langchain_google_genai', 'langchain', 'google-genai'],
  ['langchain_google_vertexai', 'langchain', 'google-genai'],
  ['langchain_mistralai', 'langchain', 'mistral'],
  ['langchain_cohere', 'langchain', 'cohere'],
  ['langchain_aws', 'langchain', 'bedrock'],
  ['langchain_ollama', 'langchain', 'ollama'],
  ['langgraph', 'langgraph', ''],
  ['llama_index', 'llama-index', ''],
  ['llama_index.llms.openai', '', 'openai'],
  ['llama_index.llms.anthropic', '', 'anthropic'],
  ['llama_index.llms.ollama', '', 'ollama'],
  ['llama_index.llms.bedrock', '', 'bedrock'],
  ['llama_index.llms.azure_openai', '', 'azure-openai'],
  ['crewai', 'crewai', ''],
  ['crewai_tools', 'crewai', ''],
  ['autogen', 'autogen', ''],
  ['autogen_agentchat', 'autogen', ''],
  ['autogen_core', 'autogen', ''],
  ['autogen_ext', 'autogen', ''],
  ['autogen_ext.models.openai', '', 'openai'],
  ['autogen_ext.models.anthropic', '', 'anthropic'],
  ['agents.Agent', 'openai-agents', ''],
  ['agents.Runner', 'openai-agents', ''],
  ['agents.function_tool', 'openai-agents', ''],
  ['semantic_kernel', 'semantic-kernel', ''],
  ['haystack', 'haystack', ''],
  ['dspy', 'dspy', ''],
  ['pydantic_ai', 'pydantic-ai', ''],
  ['smolagents', 'smolagents', ''],
  ['openai', '', 'openai'],
  ['openai.AzureOpenAI', '', 'azure-openai'],
  ['openai.AsyncAzureOpenAI', '', 'azure-openai'],
  ['anthropic', '', 'anthropic'],
  ['google.generativeai', '', 'google-genai'],
  ['google.genai', '', 'google-genai'],
  ['vertexai', '', 'google-genai'],
  ['mistralai', '', 'mistral'],
  ['cohere', '', 'cohere'],
  ['ollama', '', 'ollama'],
  ['litellm', '', 'litellm'],
  ['mcp', '', '', 'mcp'],
  ['fastmcp', '', '', 'mcp'],
];

// PyPI distributions (requirements.txt, pyproject.toml, Pipfile), names normalised (lower case, `-`).
const PYPI: Entry[] = [
  ['langchain', 'langchain', ''],
  ['langchain-core', 'langchain', ''],
  ['langchain-community', 'langchain', ''],
  ['langchain-openai', 'langchain', 'openai'],
  ['langchain-anthropic', 'langchain', 'anthropic'],
  ['langchain-google-genai', 'langchain', 'google-genai'],
  ['langchain-mistralai', 'langchain', 'mistral'],
  ['langchain-cohere', 'langchain', 'cohere'],
  ['langchain-aws', 'langchain', 'bedrock'],
  ['langchain-ollama', 'langchain', 'ollama'],
  ['langgraph', 'langgraph', ''],
  ['llama-index', 'llama-index', ''],
  ['llama-index-core', 'llama-index', ''],
  ['llama-index-llms-openai', 'llama-index', 'openai'],
  ['llama-index-llms-anthropic', 'llama-index', 'anthropic'],
  ['crewai', 'crewai', ''],
  ['crewai-tools', 'crewai', ''],
  ['pyautogen', 'autogen', ''],
  ['autogen', 'autogen', ''],
  ['ag2', 'autogen', ''],
  ['autogen-agentchat', 'autogen', ''],
  ['autogen-core', 'autogen', ''],
  ['autogen-ext', 'autogen', ''],
  ['openai-agents', 'openai-agents', ''],
  ['semantic-kernel', 'semantic-kernel', ''],
  ['haystack-ai', 'haystack', ''],
  ['farm-haystack', 'haystack', ''],
  ['dspy', 'dspy', ''],
  ['dspy-ai', 'dspy', ''],
  ['pydantic-ai', 'pydantic-ai', ''],
  ['smolagents', 'smolagents', ''],
  ['openai', '', 'openai'],
  ['anthropic', '', 'anthropic'],
  ['google-generativeai', '', 'google-genai'],
  ['google-genai', '', 'google-genai'],
  ['mistralai', '', 'mistral'],
  ['cohere', '', 'cohere'],
  ['ollama', '', 'ollama'],
  ['litellm', '', 'litellm'],
  ['mcp', '', '', 'mcp'],
  ['fastmcp', '', '', 'mcp'],
];

// npm package names (the part of a specifier before any subpath). A `@scope/` key covers a scope's
// packages that have no entry of their own.
const NPM: Entry[] = [
  ['langchain', 'langchain', ''],
  ['@langchain/', 'langchain', ''],
  ['@langchain/langgraph', 'langgraph', ''],
  ['@langchain/openai', 'langchain', 'openai'],
  ['@langchain/anthropic', 'langchain', 'anthropic'],
  ['@langchain/google-genai', 'langchain', 'google-genai'],
  ['@langchain/mistralai', 'langchain', 'mistral'],
  ['@langchain/cohere', 'langchain', 'cohere'],
  ['@langchain/aws', 'langchain', 'bedrock'],
  ['@langchain/ollama', 'langchain', 'ollama'],
  ['llamaindex', 'llama-index', ''],
  ['@llamaindex/', 'llama-index', ''],
  ['@openai/agents', 'openai-agents', ''],
  ['@openai/agents-core', 'openai-agents', ''],
  ['@openai/agents-openai', 'openai-agents', ''],
  ['ai', 'vercel-ai', ''],
  ['@ai-sdk/', 'vercel-ai', ''],
  ['@ai-sdk/openai', 'vercel-ai', 'openai'],
  ['@ai-sdk/anthropic', 'vercel-ai', 'anthropic'],
  ['@ai-sdk/google', 'vercel-ai', 'google-genai'],
  ['@ai-sdk/google-vertex', 'vercel-ai', 'google-genai'],
  ['@ai-sdk/mistral', 'vercel-ai', 'mistral'],
  ['@ai-sdk/cohere', 'vercel-ai', 'cohere'],
  ['@ai-sdk/amazon-bedrock', 'vercel-ai', 'bedrock'],
  ['@ai-sdk/azure', 'vercel-ai', 'azure-openai'],
  ['ollama-ai-provider', 'vercel-ai', 'ollama'],
  ['@mastra/', 'mastra', ''],
  ['openai', '', 'openai'],
  ['@azure/openai', '', 'azure-openai'],
  ['@anthropic-ai/sdk', '', 'anthropic'],
  ['@anthropic-ai/bedrock-sdk', '', 'anthropic,bedrock'],
  ['@anthropic-ai/vertex-sdk', '', 'anthropic'],
  ['@google/generative-ai', '', 'google-genai'],
  ['@google/genai', '', 'google-genai'],
  ['@google-cloud/vertexai', '', 'google-genai'],
  ['@mistralai/mistralai', '', 'mistral'],
  ['cohere-ai', '', 'cohere'],
  ['@aws-sdk/client-bedrock-runtime', '', 'bedrock'],
  ['@aws-sdk/client-bedrock-agent-runtime', '', 'bedrock'],
  ['ollama', '', 'ollama'],
  ['@modelcontextprotocol/sdk', '', '', 'mcp'],
];

// Go import paths, matched on each `/` prefix (`…/langchaingo/llms/openai` → langchaingo and openai;
// a major-version suffix such as `/v2` is a longer path and still matches).
const GO: Entry[] = [
  ['github.com/tmc/langchaingo', 'langchaingo', ''],
  ['github.com/tmc/langchaingo/llms/openai', '', 'openai'],
  ['github.com/tmc/langchaingo/llms/anthropic', '', 'anthropic'],
  ['github.com/tmc/langchaingo/llms/ollama', '', 'ollama'],
  ['github.com/tmc/langchaingo/llms/googleai', '', 'google-genai'],
  ['github.com/tmc/langchaingo/llms/bedrock', '', 'bedrock'],
  ['github.com/tmc/langchaingo/llms/mistral', '', 'mistral'],
  ['github.com/tmc/langchaingo/llms/cohere', '', 'cohere'],
  ['github.com/sashabaranov/go-openai', '', 'openai'],
  ['github.com/openai/openai-go', '', 'openai'],
  ['github.com/anthropics/anthropic-sdk-go', '', 'anthropic'],
  ['github.com/google/generative-ai-go', '', 'google-genai'],
  ['google.golang.org/genai', '', 'google-genai'],
  ['github.com/aws/aws-sdk-go-v2/service/bedrockruntime', '', 'bedrock'],
  ['github.com/Azure/azure-sdk-for-go/sdk/ai/azopenai', '', 'azure-openai'],
  ['github.com/ollama/ollama', '', 'ollama'],
  ['github.com/cohere-ai/cohere-go', '', 'cohere'],
  ['github.com/firebase/genkit/go', 'genkit', ''],
  ['github.com/cloudwego/eino', 'eino', ''],
  ['github.com/mark3labs/mcp-go', '', '', 'mcp'],
  ['github.com/modelcontextprotocol/go-sdk', '', '', 'mcp'],
];

// Java and Kotlin packages, matched on each dotted prefix.
const JAVA: Entry[] = [
  ['dev.langchain4j', 'langchain4j', ''],
  ['dev.langchain4j.model.openai', '', 'openai'],
  ['dev.langchain4j.model.anthropic', '', 'anthropic'],
  ['dev.langchain4j.model.ollama', '', 'ollama'],
  ['dev.langchain4j.model.azure', '', 'azure-openai'],
  ['dev.langchain4j.model.bedrock', '', 'bedrock'],
  ['dev.langchain4j.model.googleai', '', 'google-genai'],
  ['dev.langchain4j.model.vertexai', '', 'google-genai'],
  ['dev.langchain4j.model.mistralai', '', 'mistral'],
  ['org.springframework.ai', 'spring-ai', ''],
  ['org.springframework.ai.openai', '', 'openai'],
  ['org.springframework.ai.anthropic', '', 'anthropic'],
  ['org.springframework.ai.ollama', '', 'ollama'],
  ['org.springframework.ai.azure.openai', '', 'azure-openai'],
  ['org.springframework.ai.bedrock', '', 'bedrock'],
  ['org.springframework.ai.vertexai', '', 'google-genai'],
  ['org.springframework.ai.mistralai', '', 'mistral'],
  ['com.microsoft.semantickernel', 'semantic-kernel', ''],
  ['com.openai', '', 'openai'],
  ['com.anthropic', '', 'anthropic'],
  ['com.azure.ai.openai', '', 'azure-openai'],
  ['software.amazon.awssdk.services.bedrockruntime', '', 'bedrock'],
  ['com.google.genai', '', 'google-genai'],
  ['com.google.cloud.vertexai', '', 'google-genai'],
  ['io.github.ollama4j', '', 'ollama'],
  ['io.modelcontextprotocol', '', '', 'mcp'],
];

// Maven coordinates (pom.xml, Gradle) as `group:artifact`, matched on the group and then on the
// artifact's leading words (`dev.langchain4j:langchain4j-open-ai`).
const MAVEN: Entry[] = [
  ['dev.langchain4j', 'langchain4j', ''],
  ['dev.langchain4j:langchain4j-open-ai', '', 'openai'],
  ['dev.langchain4j:langchain4j-anthropic', '', 'anthropic'],
  ['dev.langchain4j:langchain4j-ollama', '', 'ollama'],
  ['dev.langchain4j:langchain4j-azure-open-ai', '', 'azure-openai'],
  ['dev.langchain4j:langchain4j-bedrock', '', 'bedrock'],
  ['dev.langchain4j:langchain4j-mistral-ai', '', 'mistral'],
  ['org.springframework.ai', 'spring-ai', ''],
  ['org.springframework.ai:spring-ai-openai', '', 'openai'],
  ['org.springframework.ai:spring-ai-starter-model-openai', '', 'openai'],
  ['org.springframework.ai:spring-ai-anthropic', '', 'anthropic'],
  ['org.springframework.ai:spring-ai-starter-model-anthropic', '', 'anthropic'],
  ['org.springframework.ai:spring-ai-ollama', '', 'ollama'],
  ['org.springframework.ai:spring-ai-starter-model-ollama', '', 'ollama'],
  ['com.microsoft.semantic-kernel', 'semantic-kernel', ''],
  ['com.openai', '', 'openai'],
  ['com.anthropic', '', 'anthropic'],
  ['com.azure:azure-ai-openai', '', 'azure-openai'],
  ['software.amazon.awssdk:bedrockruntime', '', 'bedrock'],
  ['com.google.genai', '', 'google-genai'],
  ['io.github.ollama4j', '', 'ollama'],
  ['io.modelcontextprotocol.sdk', '', '', 'mcp'],
];

function table(entries: Entry[]): Map<string, PackageMeaning> {
  return new Map(entries.map(([key, frameworks, clients, mcp]) => [key, { frameworks: list(frameworks), clients: list(clients), mcp: mcp === 'mcp' }]));
}

const TABLES: Record<Ecosystem, Map<string, PackageMeaning>> = {
  python: table(PYTHON),
  pypi: table(PYPI),
  npm: table(NPM),
  go: table(GO),
  java: table(JAVA),
  maven: table(MAVEN),
};

const MAX_SEGMENTS = 16;

/** Every prefix of `name` that ends at a separator, and the name itself, shortest first (bounded). */
function prefixes(name: string, separator: string): string[] {
  const out: string[] = [];
  let from = 0;
  while (out.length < MAX_SEGMENTS) {
    const next = name.indexOf(separator, from);
    if (next === -1) break;
    if (next > 0) out.push(name.slice(0, next));
    from = next + 1;
  }
  out.push(name);
  return out;
}

function merge(meanings: PackageMeaning[]): PackageMeaning | null {
  if (meanings.length === 0) return null;
  if (meanings.length === 1) return meanings[0] ?? null;
  return {
    frameworks: [...new Set(meanings.flatMap((m) => m.frameworks))],
    clients: [...new Set(meanings.flatMap((m) => m.clients))],
    mcp: meanings.some((m) => m.mcp),
  };
}

/** An npm specifier's package name: `@scope/name` or `name`, without a subpath. */
export function npmPackageName(specifier: string): string {
  const parts = specifier.split('/', 3);
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? '');
}

/** What a module, package or coordinate means, or null when it is nothing this analysis knows. */
export function meaningOf(ecosystem: Ecosystem, name: string): PackageMeaning | null {
  const map = TABLES[ecosystem];
  switch (ecosystem) {
    case 'python':
    case 'java':
      return merge(prefixes(name, '.').flatMap((key) => map.get(key) ?? []));
    case 'go':
      return merge(prefixes(name, '/').flatMap((key) => map.get(key) ?? []));
    case 'pypi': {
      const normalised = name.toLowerCase().replace(/[_.]/g, '-');
      return map.get(normalised) ?? (normalised.startsWith('langchain-') ? map.get('langchain') ?? null : normalised.startsWith('llama-index-') ? map.get('llama-index') ?? null : null);
    }
    case 'npm': {
      const pkg = npmPackageName(name);
      const exact = map.get(pkg);
      if (exact !== undefined) return exact;
      return pkg.startsWith('@') ? (map.get(`${pkg.slice(0, pkg.indexOf('/') + 1)}`) ?? null) : null;
    }
    case 'maven': {
      const colon = name.indexOf(':');
      const group = colon === -1 ? name : name.slice(0, colon);
      const artifact = colon === -1 ? '' : name.slice(colon + 1);
      const found: PackageMeaning[] = [];
      const byGroup = map.get(group);
      if (byGroup !== undefined) found.push(byGroup);
      // Artifact keys name the artifact's leading words: `spring-ai-openai` also covers `spring-ai-openai-spring-boot-starter`.
      for (const key of prefixes(artifact, '-')) {
        const byArtifact = map.get(`${group}:${key}`);
        if (byArtifact !== undefined) found.push(byArtifact);
      }
      return merge(found);
    }
  }
}
