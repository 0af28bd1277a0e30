// The code host's REST API (the common shape: /user, /user/repos, /repos/{owner}/{repo}, git
// trees, contents), read through the one outbound module under the operator's policy, with a
// timeout and a size cap on every call. Errors carry a reason safe to show and store: never the
// token, never the code host's answer.
import { outboundRequest, OutboundRefused, type OutboundPolicy } from '../../../infra/http/outbound.js';

export interface CodehostLimits {
  /** Milliseconds one call may take, answer included. */
  callTimeoutMs: number;
  /** Pages of /user/repos read at most (100 repositories a page). */
  maxRepoPages: number;
  /** Bytes of a tree answer read at most. */
  maxTreeBytes: number;
  /** Tree entries looked at at most. */
  maxTreeEntries: number;
  /** Bytes of a contents answer read at most (base64 and JSON around a file of at most 512 KiB). */
  maxContentsBytes: number;
  /** Bytes of file content read per scan at most; files past it are skipped. */
  maxScanBytes: number;
  /** Files fetched at a time. */
  fetchConcurrency: number;
  /** Milliseconds a whole scan may take. */
  scanTimeoutMs: number;
}

export const DEFAULT_CODEHOST_LIMITS: CodehostLimits = {
  callTimeoutMs: 15_000,
  maxRepoPages: 10,
  maxTreeBytes: 16 * 1_048_576,
  maxTreeEntries: 100_000,
  maxContentsBytes: 1_048_576,
  maxScanBytes: 20 * 1_048_576,
  fetchConcurrency: 4,
  scanTimeoutMs: 10 * 60_000,
};

/** What refused, failed or was unreadable; `kind` maps to an HTTP problem. */
export type CodehostErrorKind = 'token_refused' | 'not_found' | 'unreachable' | 'refused_by_policy' | 'bad_answer';

export class CodehostError extends Error {
  override readonly name = 'CodehostError';
  constructor(
    readonly kind: CodehostErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface RepoListing {
  full_name: string;
  default_branch: string | null;
  private: boolean;
  updated_at: string | null;
}

export interface TreeListing {
  sha: string | null;
  entries: Array<{ path: string; type: string; size?: number }>;
  truncated: boolean;
  /** Entries past maxTreeEntries, not looked at. */
  dropped: number;
}

const USER_AGENT = 'parapet-gateway-codehost-scan';
const SHA = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/;

/** One repository name as a URL path (`owner/name`, each part encoded). */
function repoPath(fullName: string): string {
  return fullName.split('/').map(encodeURIComponent).join('/');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function text(value: unknown, max: number): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= max ? value : null;
}

export class CodehostClient {
  private readonly base: string;

  constructor(
    baseUrl: string,
    private readonly token: string,
    private readonly policy: OutboundPolicy,
    private readonly limits: CodehostLimits = DEFAULT_CODEHOST_LIMITS,
    private readonly signal?: AbortSignal,
  ) {
    let end = baseUrl.length;
    while (end > 0 && baseUrl.charCodeAt(end - 1) === 0x2f) end -= 1;
    this.base = baseUrl.slice(0, end);
  }

  /** The account the token belongs to. */
  async user(): Promise<{ login: string | null }> {
    const body = await this.getJson('/user', 65_536, 'the account');
    return { login: isObject(body) ? text(body.login, 200) : null };
  }

  /** Repositories the token can read, at most `limit` (and maxRepoPages pages). */
  async repos(limit: number): Promise<RepoListing[]> {
    const found: RepoListing[] = [];
    for (let page = 1; page <= this.limits.maxRepoPages && found.length < limit; page += 1) {
      const body = await this.getJson(`/user/repos?per_page=100&page=${page}`, 4 * 1_048_576, 'the repository list');
      if (!Array.isArray(body)) throw new CodehostError('bad_answer', 'the code host answered the repository list with something other than a list');
      for (const item of body.slice(0, 100)) {
        if (!isObject(item)) continue;
        const fullName = text(item.full_name, 201);
        if (fullName === null) continue;
        found.push({ full_name: fullName, default_branch: text(item.default_branch, 255), private: item.private === true, updated_at: text(item.updated_at, 64) });
        if (found.length >= limit) break;
      }
      if (body.length < 100) break;
    }
    return found;
  }

  async defaultBranch(fullName: string): Promise<string | null> {
    const body = await this.getJson(`/repos/${repoPath(fullName)}`, 1_048_576, `repository ${fullName}`);
    return isObject(body) ? text(body.default_branch, 255) : null;
  }

  /** The commit `ref` names (a branch, tag or commit), or null when the answer carries no commit id. */
  async commitSha(fullName: string, ref: string): Promise<string | null> {
    const body = await this.getJson(`/repos/${repoPath(fullName)}/commits/${encodeURIComponent(ref)}`, 4 * 1_048_576, `commit ${ref} of ${fullName}`);
    return isObject(body) && typeof body.sha === 'string' && SHA.test(body.sha) ? body.sha : null;
  }

  /** The whole tree at `ref` (recursive), at most maxTreeEntries entries. */
  async tree(fullName: string, ref: string): Promise<TreeListing> {
    const body = await this.getJson(`/repos/${repoPath(fullName)}/git/trees/${encodeURIComponent(ref)}?recursive=1`, this.limits.maxTreeBytes, `the tree of ${fullName} at ${ref}`);
    if (!isObject(body) || !Array.isArray(body.tree)) throw new CodehostError('bad_answer', `the code host's tree of ${fullName} has no entry list`);
    const entries: TreeListing['entries'] = [];
    for (const item of body.tree.slice(0, this.limits.maxTreeEntries)) {
      if (!isObject(item)) continue;
      const path = text(item.path, 4096);
      const type = text(item.type, 20);
      if (path === null || type === null) continue;
      entries.push(typeof item.size === 'number' && Number.isFinite(item.size) ? { path, type, size: item.size } : { path, type });
    }
    const sha = typeof body.sha === 'string' && SHA.test(body.sha) ? body.sha : null;
    return { sha, entries, truncated: body.truncated === true, dropped: Math.max(0, body.tree.length - this.limits.maxTreeEntries) };
  }

  /** A file's text at `ref`, or null when the code host does not hand it out as base64. */
  async contents(fullName: string, path: string, ref: string): Promise<string | null> {
    const encodedPath = path.split('/').map(encodeURIComponent).join('/');
    let body: unknown;
    try {
      body = await this.getJson(`/repos/${repoPath(fullName)}/contents/${encodedPath}?ref=${encodeURIComponent(ref)}`, this.limits.maxContentsBytes, `file ${path}`);
    } catch (error) {
      // One file gone or too large is not the scan's failure; a refused token or an unreachable host is.
      if (error instanceof CodehostError && (error.kind === 'not_found' || error.kind === 'bad_answer')) return null;
      throw error;
    }
    if (!isObject(body) || body.encoding !== 'base64' || typeof body.content !== 'string') return null;
    return Buffer.from(body.content, 'base64').toString('utf8');
  }

  private async getJson(pathAndQuery: string, maxBytes: number, what: string): Promise<unknown> {
    let answer;
    try {
      answer = await outboundRequest(`${this.base}${pathAndQuery}`, this.policy, {
        headers: { authorization: `Bearer ${this.token}`, accept: 'application/vnd.github+json', 'user-agent': USER_AGENT },
        timeoutMs: this.limits.callTimeoutMs,
        maxBytes,
        maxRedirects: 2,
        ...(this.signal === undefined ? {} : { signal: this.signal }),
      });
    } catch (error) {
      if (error instanceof OutboundRefused) throw new CodehostError('refused_by_policy', `the call to the code host was refused: ${error.message}`);
      const name = (error as Error).name;
      const reason = name === 'TimeoutError' || name === 'AbortError' ? `no answer within ${this.limits.callTimeoutMs} ms` : 'the connection failed';
      throw new CodehostError('unreachable', `the code host did not answer for ${what}: ${reason}`);
    }
    if (answer.status === 401 || answer.status === 403) throw new CodehostError('token_refused', `the code host refused the token (HTTP ${answer.status}) for ${what}`);
    if (answer.status === 404) throw new CodehostError('not_found', `the code host answered HTTP 404 for ${what}: it does not exist or the token cannot see it`);
    if (answer.status < 200 || answer.status >= 300) {
      const kind = answer.status >= 500 || answer.status === 429 ? 'unreachable' : 'bad_answer';
      throw new CodehostError(kind, `the code host answered HTTP ${answer.status} for ${what}`);
    }
    if (answer.truncated) throw new CodehostError('bad_answer', `the code host's answer for ${what} is larger than ${maxBytes} bytes`);
    try {
      return JSON.parse(answer.body) as unknown;
    } catch {
      throw new CodehostError('bad_answer', `the code host's answer for ${what} is not JSON`);
    }
  }
}
