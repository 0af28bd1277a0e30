// What a tool key says about the tool: the words in it, whether its arguments are SQL, shell or
// HTTP, and the capability classes escalation reasoning uses. Keys repeat on every call, so
// profiles are cached. No I/O here.

export type Capability = 'read_secret' | 'read_data' | 'write_data' | 'network_egress' | 'privilege_change' | 'exec' | 'download';

export interface ToolProfile {
  words: readonly string[];
  /** String arguments at the top level are SQL (a database tool). */
  sql: boolean;
  /** String arguments at the top level are command lines. */
  shell: boolean;
  /** Top-level strings starting with http(s):// are request URLs. */
  http: boolean;
  /** The method the key implies when the arguments name none ('' for none). */
  method: string;
  capabilities: ReadonlySet<Capability>;
}

/**
 * Splits an identifier or short text into lower-case words: `db.query` → db, query;
 * `sendEmail` → send, email; `run_command` → run, command. One linear pass.
 */
export function words(text: string, limit = 64): string[] {
  const out: string[] = [];
  let current = '';
  let previousLower = false;
  for (let i = 0; i < text.length && out.length < limit; i++) {
    const ch = text[i] ?? '';
    const code = ch.charCodeAt(0);
    const upper = code >= 65 && code <= 90;
    const lower = code >= 97 && code <= 122;
    const digit = code >= 48 && code <= 57;
    if (upper || lower || digit) {
      if (upper && previousLower && current.length > 0) {
        out.push(current);
        current = '';
      }
      current += upper ? ch.toLowerCase() : ch;
      previousLower = lower || digit;
    } else {
      if (current.length > 0) out.push(current);
      current = '';
      previousLower = false;
    }
  }
  if (current.length > 0 && out.length < limit) out.push(current);
  return out;
}

const SQL_WORDS = new Set(['sql', 'db', 'database', 'postgres', 'postgresql', 'pg', 'psql', 'mysql', 'mariadb', 'sqlite', 'sqlite3', 'mssql', 'tsql', 'oracle', 'snowflake', 'bigquery', 'redshift', 'clickhouse', 'duckdb', 'warehouse']);
/** "query" alone marks a database tool unless a word says it searches something else. */
const SEARCH_WORDS = new Set(['search', 'web', 'docs', 'doc', 'vector', 'semantic', 'kb', 'knowledge', 'rag', 'google', 'bing', 'memory', 'graphql', 'index', 'embedding', 'embeddings', 'news', 'wiki', 'wikipedia']);
const SHELL_WORDS = new Set(['shell', 'bash', 'sh', 'zsh', 'terminal', 'cmd', 'powershell', 'pwsh', 'subprocess', 'console', 'exec']);
const HTTP_WORDS = new Set(['http', 'https', 'fetch', 'request', 'requests', 'webhook', 'post', 'curl', 'wget', 'api', 'url', 'browse', 'browser']);

const SECRET_WORDS = new Set(['env', 'environ', 'dotenv', 'secret', 'secrets', 'credential', 'credentials', 'creds', 'password', 'passwords', 'passwd', 'shadow', 'key', 'keys', 'apikey', 'vault', 'keychain', 'keyring', 'token', 'tokens', 'ssm', 'kms', 'private']);
const READ_WORDS = new Set(['read', 'get', 'list', 'search', 'query', 'select', 'fetch', 'find', 'lookup', 'load', 'open', 'cat', 'view', 'show', 'describe', 'retrieve', 'download', 'export', 'dump', 'scan', 'browse', 'grep', 'ls', 'head', 'tail']);
const WRITE_WORDS = new Set(['write', 'update', 'insert', 'delete', 'remove', 'put', 'create', 'save', 'set', 'modify', 'edit', 'upsert', 'patch', 'append', 'rm', 'drop', 'move', 'rename', 'overwrite', 'commit', 'store', 'truncate']);
const EGRESS_WORDS = new Set(['email', 'mail', 'send', 'post', 'upload', 'webhook', 'slack', 'sms', 'tweet', 'publish', 'notify', 'discord', 'telegram', 'share', 'gist', 'paste', 'pastebin', 'smtp', 'ftp', 'sftp', 'scp', 'forward', 'transfer', 'sendmail', 'exfil', 'exfiltrate']);
const PRIVILEGE_WORDS = new Set(['grant', 'role', 'roles', 'sudo', 'chmod', 'chown', 'iam', 'permission', 'permissions', 'privilege', 'privileges', 'elevate', 'escalate', 'impersonate', 'acl', 'rbac', 'superuser', 'useradd', 'usermod', 'adduser', 'setuid', 'visudo', 'doas']);
const EXEC_WORDS = new Set(['shell', 'bash', 'sh', 'zsh', 'exec', 'execute', 'run', 'eval', 'terminal', 'command', 'cmd', 'python', 'interpreter', 'script', 'powershell', 'subprocess', 'spawn']);
const DOWNLOAD_WORDS = new Set(['download', 'curl', 'wget', 'fetch', 'http', 'https', 'request', 'requests', 'browse', 'browser', 'url']);
const ACCOUNT_WORDS = new Set(['user', 'users', 'account', 'accounts', 'member', 'admin']);
const CREATE_WORDS = new Set(['create', 'add', 'new', 'invite', 'make']);

/** Capability classes named by a list of words (a tool key, or free text describing a step). */
export function capabilitiesOfWords(list: readonly string[]): Set<Capability> {
  const caps = new Set<Capability>();
  let account = false;
  let creates = false;
  for (const word of list) {
    if (SECRET_WORDS.has(word)) caps.add('read_secret');
    if (READ_WORDS.has(word)) caps.add('read_data');
    if (WRITE_WORDS.has(word)) caps.add('write_data');
    if (EGRESS_WORDS.has(word)) caps.add('network_egress');
    if (PRIVILEGE_WORDS.has(word)) caps.add('privilege_change');
    if (EXEC_WORDS.has(word)) caps.add('exec');
    if (DOWNLOAD_WORDS.has(word)) caps.add('download');
    if (ACCOUNT_WORDS.has(word)) account = true;
    if (CREATE_WORDS.has(word)) creates = true;
  }
  // "create_user", "add_admin": a new principal is a privilege change.
  if (account && creates) caps.add('privilege_change');
  // "http_post", "send_request": the request carries data out; it is not a download.
  if (caps.has('network_egress')) caps.delete('download');
  // "store_secret", "rotate_key" write a secret rather than read one.
  if (caps.has('read_secret') && caps.has('write_data') && !caps.has('read_data')) caps.delete('read_secret');
  return caps;
}

const PROFILE_CACHE_LIMIT = 1024;
// Kept over lru-cache, which hits at about half the speed of a Map here (bench/caches.ts).
const profiles = new Map<string, ToolProfile>();

export function toolProfile(tool: string): ToolProfile {
  const cached = profiles.get(tool);
  if (cached) return cached;
  const list = words(tool.slice(0, 256));
  const has = (set: ReadonlySet<string>): boolean => list.some((word) => set.has(word));
  const sql = has(SQL_WORDS) || (list.includes('query') && !has(SEARCH_WORDS) && !has(HTTP_WORDS));
  const shell = !sql && (has(SHELL_WORDS) || ((list.includes('run') || list.includes('execute')) && (list.includes('command') || list.includes('script'))));
  const http = !sql && !shell && has(HTTP_WORDS);
  let method = '';
  if (list.includes('delete') && http) method = 'DELETE';
  else if (list.includes('put') && http) method = 'PUT';
  else if (list.includes('patch') && http) method = 'PATCH';
  else if (list.some((word) => word === 'post' || word === 'webhook' || word === 'upload' || word === 'send' || word === 'submit' || word === 'publish')) method = 'POST';
  const profile: ToolProfile = { words: list, sql, shell, http, method, capabilities: capabilitiesOfWords(list) };
  // Tool keys are few; a flood of distinct keys only resets the cache, never grows it without bound.
  if (profiles.size >= PROFILE_CACHE_LIMIT) profiles.clear();
  profiles.set(tool, profile);
  return profile;
}

/** Finding kinds → capability classes, for the call being analysed and analysed earlier steps. */
export function capabilitiesOfKinds(kinds: Iterable<string>, caps: Set<Capability>): void {
  for (const kind of kinds) {
    switch (kind) {
      case 'sql.select':
        caps.add('read_data');
        break;
      case 'sql.insert':
      case 'sql.update':
      case 'sql.delete':
      case 'sql.ddl':
      case 'shell.delete':
      case 'shell.overwrite':
        caps.add('write_data');
        break;
      case 'sql.grant':
      case 'shell.privilege':
        caps.add('privilege_change');
        break;
      case 'http.read':
        caps.add('read_data');
        caps.add('download');
        break;
      case 'http.write':
      case 'shell.network':
        caps.add('network_egress');
        break;
      case 'shell.download':
        caps.add('download');
        break;
      case 'shell.remote_exec':
        caps.add('download');
        break;
    }
    if (kind.startsWith('shell.')) caps.add('exec');
  }
}

/** Paths and commands that read credentials. Literal alternatives only: linear on any input. */
export const SECRET_PATH = /\.env\b|id_rsa|id_ed25519|id_ecdsa|\/etc\/shadow|\.aws\/credentials|\.ssh\/|\.netrc|\.pgpass|\.git-credentials|\.docker\/config\.json|\.kube\/config|\bprintenv\b|\/proc\/self\/environ|credentials\.json|secrets?\.(?:ya?ml|json|toml|env)/i;
