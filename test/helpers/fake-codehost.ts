// A fake code host for tests: a node:http server on 127.0.0.1 serving the common REST shape from
// in-memory repositories (GET /user, /user/repos with per_page/page, /repos/{o}/{r},
// /repos/{o}/{r}/commits/{ref}, /repos/{o}/{r}/git/trees/{ref}?recursive=1,
// /repos/{o}/{r}/contents/{path}?ref=…), base64 contents, one accepted token (anything else 401).
// `misbehave` makes it answer garbage, huge bodies or slowly, to test the gateway's limits.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRepoFile {
  path: string;
  content: string;
}

interface FakeRepo {
  full_name: string;
  default_branch: string;
  private: boolean;
  files: Map<string, string>;
  /** Bumped by every change, so the commit id changes with the content. */
  revision: number;
}

export type Misbehaviour =
  | { kind: 'garbage'; path?: string }
  | { kind: 'huge'; path?: string; bytes: number }
  | { kind: 'slow'; path?: string; ms: number }
  | { kind: 'status'; path?: string; status: number };

export interface FakeRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  accept: string | undefined;
  userAgent: string | undefined;
}

export class FakeCodehost {
  url = '';
  readonly requests: FakeRequest[] = [];
  login = 'octo-tester';
  private readonly repos = new Map<string, FakeRepo>();
  private misbehaviour: Misbehaviour | null = null;
  private server: Server | undefined;
  private readonly pending = new Set<ServerResponse>();

  constructor(public token: string) {}

  async start(): Promise<void> {
    this.server = createServer((request, response) => this.handle(request, response));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const response of this.pending) response.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server === undefined ? resolve() : this.server.close(() => resolve())));
  }

  addRepo(fullName: string, files: readonly FakeRepoFile[], defaultBranch = 'main', isPrivate = false): void {
    this.repos.set(fullName, { full_name: fullName, default_branch: defaultBranch, private: isPrivate, files: new Map(files.map((file) => [file.path, file.content])), revision: 1 });
  }

  setFile(fullName: string, path: string, content: string | null): void {
    const repo = this.repos.get(fullName);
    if (repo === undefined) throw new Error(`no repo ${fullName}`);
    if (content === null) repo.files.delete(path);
    else repo.files.set(path, content);
    repo.revision += 1;
  }

  /** The commit id the repository is at now. */
  commitOf(fullName: string): string {
    const repo = this.repos.get(fullName);
    if (repo === undefined) throw new Error(`no repo ${fullName}`);
    return createHash('sha1').update(`${repo.full_name}#${repo.revision}`).digest('hex');
  }

  /** Misbehaves on requests whose path starts with `path` (every request without one); null: behave. */
  misbehave(misbehaviour: Misbehaviour | null): void {
    this.misbehaviour = misbehaviour;
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://fake');
    this.requests.push({
      method: request.method ?? 'GET',
      path: url.pathname + url.search,
      authorization: request.headers.authorization,
      accept: request.headers.accept,
      userAgent: request.headers['user-agent'],
    });
    const odd = this.misbehaviour;
    if (odd !== null && (odd.path === undefined || url.pathname.startsWith(odd.path))) {
      this.misbehaveOn(odd, response);
      return;
    }
    if (request.headers.authorization !== `Bearer ${this.token}`) return send(response, 401, { message: 'Bad credentials' });
    const parts = url.pathname.split('/').filter((part) => part !== '').map(decodeURIComponent);
    if (parts.length === 1 && parts[0] === 'user') return send(response, 200, { login: this.login, id: 4242 });
    if (parts.length === 2 && parts[0] === 'user' && parts[1] === 'repos') return this.listRepos(url, response);
    if (parts[0] !== 'repos' || parts.length < 3) return send(response, 404, { message: 'Not Found' });
    const repo = this.repos.get(`${parts[1]}/${parts[2]}`);
    if (repo === undefined) return send(response, 404, { message: 'Not Found' });
    const rest = parts.slice(3);
    if (rest.length === 0) return send(response, 200, { full_name: repo.full_name, default_branch: repo.default_branch, private: repo.private });
    const commit = this.commitOf(repo.full_name);
    const knownRef = (ref: string) => ref === repo.default_branch || ref === commit;
    if (rest[0] === 'commits' && rest.length >= 2) {
      return knownRef(rest.slice(1).join('/')) ? send(response, 200, { sha: commit, commit: { message: 'fake' } }) : send(response, 404, { message: 'No commit found' });
    }
    if (rest[0] === 'git' && rest[1] === 'trees' && rest.length >= 3) {
      if (!knownRef(rest.slice(2).join('/'))) return send(response, 404, { message: 'Not Found' });
      const tree: Array<{ path: string; type: string; size?: number }> = [];
      const dirs = new Set<string>();
      for (const [path, content] of [...repo.files].sort(([a], [b]) => a.localeCompare(b))) {
        const segments = path.split('/');
        for (let depth = 1; depth < segments.length; depth += 1) dirs.add(segments.slice(0, depth).join('/'));
        tree.push({ path, type: 'blob', size: Buffer.byteLength(content) });
      }
      for (const dir of dirs) tree.push({ path: dir, type: 'tree' });
      return send(response, 200, { sha: createHash('sha1').update(`tree:${commit}`).digest('hex'), tree, truncated: false });
    }
    if (rest[0] === 'contents' && rest.length >= 2) {
      const ref = url.searchParams.get('ref');
      if (ref !== null && !knownRef(ref)) return send(response, 404, { message: 'No commit found for the ref' });
      const content = repo.files.get(rest.slice(1).join('/'));
      if (content === undefined) return send(response, 404, { message: 'Not Found' });
      return send(response, 200, { type: 'file', encoding: 'base64', content: Buffer.from(content).toString('base64').replace(/(.{60})/g, '$1\n') });
    }
    return send(response, 404, { message: 'Not Found' });
  }

  private listRepos(url: URL, response: ServerResponse): void {
    const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? '30'));
    const page = Math.max(1, Number(url.searchParams.get('page') ?? '1'));
    const all = [...this.repos.values()].sort((a, b) => a.full_name.localeCompare(b.full_name));
    const items = all.slice((page - 1) * perPage, page * perPage).map((repo) => ({
      full_name: repo.full_name,
      default_branch: repo.default_branch,
      private: repo.private,
      updated_at: '2026-11-01T00:00:00Z',
    }));
    send(response, 200, items);
  }

  private misbehaveOn(odd: Misbehaviour, response: ServerResponse): void {
    switch (odd.kind) {
      case 'garbage':
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"login": <<not json');
        return;
      case 'status':
        send(response, odd.status, { message: 'misbehaving' });
        return;
      case 'huge': {
        response.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(65_536, 0x61);
        let written = 0;
        const pump = () => {
          while (written < odd.bytes) {
            written += chunk.length;
            if (!response.write(chunk)) {
              response.once('drain', pump);
              return;
            }
          }
          response.end();
        };
        response.on('error', () => undefined);
        pump();
        return;
      }
      case 'slow': {
        this.pending.add(response);
        const timer = setTimeout(() => {
          this.pending.delete(response);
          send(response, 200, { login: this.login });
        }, odd.ms);
        response.on('close', () => {
          clearTimeout(timer);
          this.pending.delete(response);
        });
        return;
      }
    }
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  if (response.destroyed) return;
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
