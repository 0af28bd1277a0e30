// Several `parapet serve` replicas behind a round-robin load balancer, as deploy/compose.yaml runs
// them behind nginx, plus a private PostgreSQL and a private Redis that a test may stop and start
// (faults must never touch the machine's shared servers, which other tests use at the same time).
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../bench/lib.js';
import { startServerProcess, type ServerProcess } from './process.js';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Response headers naming where the balancer sent a request: the slot and the process (host:port). */
export const REPLICA_HEADER = 'x-balancer-replica';
export const UPSTREAM_HEADER = 'x-balancer-upstream';

/** Headers that describe one connection, not the message: never passed on by a proxy (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

interface BalancerTarget {
  url: string;
  down: boolean;
}

/**
 * A round-robin HTTP load balancer without stickiness: request i goes to slot i mod N. Bodies are
 * streamed both ways. When connecting to a replica fails (refused or reset before the request was
 * handed over) it tries the next slot, as nginx's default `proxy_next_upstream error` does for a
 * POST; a replica that fails after that gets a 502 (before the answer began) or a cut answer.
 */
export class Balancer {
  private readonly targets: BalancerTarget[];
  private sequence = 0;
  private server: Server | null = null;
  url = '';
  readonly stats: { forwarded: number[]; triedNext: number; badGateway: number };

  constructor(urls: readonly string[]) {
    this.targets = urls.map((url) => ({ url, down: false }));
    this.stats = { forwarded: urls.map(() => 0), triedNext: 0, badGateway: 0 };
  }

  get size(): number {
    return this.targets.length;
  }

  setTarget(slot: number, url: string): void {
    this.target(slot).url = url;
  }

  /** A slot marked down is skipped until marked up (an operator draining it, or an active health check). */
  markDown(slot: number): void {
    this.target(slot).down = true;
  }

  markUp(slot: number): void {
    this.target(slot).down = false;
  }

  async start(): Promise<void> {
    const server = createServer((request, response) => this.route(request, response));
    // Longer than any client's idle keep-alive: the balancer never closes a socket a client is about to reuse.
    server.keepAliveTimeout = 65_000;
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server === null) return;
    this.server = null;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private target(slot: number): BalancerTarget {
    const target = this.targets[slot];
    if (target === undefined) throw new Error(`no balancer slot ${slot}`);
    return target;
  }

  private route(request: IncomingMessage, response: ServerResponse): void {
    const first = this.sequence++ % this.targets.length;
    this.forward(request, response, first, 1);
  }

  private forward(request: IncomingMessage, response: ServerResponse, slot: number, attempt: number): void {
    if (attempt > this.targets.length) {
      this.badGateway(response, 'no replica could be reached');
      return;
    }
    const nextSlot = (slot + 1) % this.targets.length;
    const target = this.target(slot);
    if (target.down) {
      this.forward(request, response, nextSlot, attempt + 1);
      return;
    }
    const { hostname, port } = new URL(target.url);
    // A fresh connection per request: a failure to connect then proves no byte reached the replica,
    // which is what makes trying the next one safe for a POST.
    const upstream = httpRequest({
      hostname,
      port,
      method: request.method,
      path: request.url,
      headers: { ...endToEnd(request.headers), 'x-forwarded-for': request.socket.remoteAddress ?? '127.0.0.1' },
      agent: false,
    });
    let connected = false;
    upstream.once('socket', (socket) =>
      socket.once('connect', () => {
        connected = true;
        this.stats.forwarded[slot] = (this.stats.forwarded[slot] ?? 0) + 1;
        request.pipe(upstream);
      }),
    );
    upstream.once('response', (answer) => {
      response.writeHead(answer.statusCode ?? 502, { ...endToEnd(answer.headers), [REPLICA_HEADER]: String(slot), [UPSTREAM_HEADER]: `${hostname}:${port}` });
      // A replica dying mid-answer destroys the client's response too: the client sees a cut answer.
      pipeline(answer, response, () => undefined);
    });
    upstream.on('error', () => {
      if (!connected) {
        this.stats.triedNext += 1;
        this.forward(request, response, nextSlot, attempt + 1);
      } else if (!response.headersSent) {
        this.badGateway(response, `replica ${slot} failed before answering`);
      } else {
        response.destroy();
      }
    });
    // The client went away: so does the request to the replica.
    response.once('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
  }

  private badGateway(response: ServerResponse, detail: string): void {
    this.stats.badGateway += 1;
    if (response.headersSent || response.destroyed) return;
    response.writeHead(502, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: 'bad gateway', detail }));
  }
}

/** One gateway process that has occupied a balancer slot. */
export interface ReplicaInstance {
  slot: number;
  server: ServerProcess;
  pid: number;
  url: string;
  /** host:port, as UPSTREAM_HEADER names it: unique per process, since each listens on a port of its own. */
  address: string;
  dataDir: string;
  startedAt: number;
  /** When the test SIGKILLed it. */
  killedAt: number | null;
  /** How and when the process ended, whoever ended it; null while it runs. */
  exit: { code: number | null; signal: string | null; at: number } | null;
}

export interface ClusterOptions {
  replicas: number;
  /** Every replica's environment: DATABASE_URL, PARAPET_REDIS_URL, PARAPET_ADMIN_TOKEN, PARAPET_SECRET_KEY and the rest. */
  env: Record<string, string>;
  /** How long a new replica may take to answer GET /ready 200 before it is added to the balancer anyway. */
  readyTimeoutMs?: number;
}

/** Resolves once GET /ready answers 200, or false after `timeoutMs`. */
export async function waitReady(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.status === 200) return true;
    } catch {
      // Not answering yet.
    }
    await sleep(50);
  }
  return false;
}

/** N replicas of `parapet serve` on one database and one Redis, each with its own data dir, behind a Balancer. */
export class Cluster {
  /** The process in each slot now. */
  readonly replicas: ReplicaInstance[] = [];
  /** Every process that ever held a slot, replaced ones included. */
  readonly instances: ReplicaInstance[] = [];

  private constructor(
    readonly balancer: Balancer,
    private readonly options: ClusterOptions,
  ) {}

  static async start(options: ClusterOptions): Promise<Cluster> {
    const slots = Array.from({ length: options.replicas }, (_, slot) => slot);
    // Started together, as an orchestrator starts them: migrations and the bootstrap must not race.
    const started = await Promise.allSettled(slots.map((slot) => Cluster.launch(slot, options)));
    const failed = started.find((result) => result.status === 'rejected');
    if (failed !== undefined) {
      await Promise.all(started.map((result) => (result.status === 'fulfilled' ? result.value.server.stop() : undefined)));
      throw (failed as PromiseRejectedResult).reason;
    }
    const replicas = started.map((result) => (result as PromiseFulfilledResult<ReplicaInstance>).value);
    const balancer = new Balancer(replicas.map((replica) => replica.url));
    await balancer.start();
    const cluster = new Cluster(balancer, options);
    cluster.replicas.push(...replicas);
    cluster.instances.push(...replicas);
    return cluster;
  }

  private static async launch(slot: number, options: ClusterOptions): Promise<ReplicaInstance> {
    const cwd = mkdtempSync(path.join(tmpdir(), `parapet-replica-${slot}-`));
    const dataDir = path.join(cwd, 'data');
    const server = await startServerProcess({ ...options.env, PARAPET_DATA_DIR: dataDir }, cwd, 60_000);
    await waitReady(server.url, options.readyTimeoutMs ?? 20_000);
    const pid = server.child.pid;
    if (pid === undefined) throw new Error(`replica ${slot} has no pid`);
    const instance: ReplicaInstance = { slot, server, pid, url: server.url, address: new URL(server.url).host, dataDir: cwd, startedAt: Date.now(), killedAt: null, exit: null };
    server.child.once('exit', (code, signal) => (instance.exit = { code, signal, at: Date.now() }));
    return instance;
  }

  get url(): string {
    return this.balancer.url;
  }

  replica(slot: number): ReplicaInstance {
    const replica = this.replicas[slot];
    if (replica === undefined) throw new Error(`no replica in slot ${slot}`);
    return replica;
  }

  /** The process a response came from, by its UPSTREAM_HEADER. */
  instanceAt(address: string | null): ReplicaInstance | undefined {
    return this.instances.find((instance) => instance.address === address);
  }

  /** SIGKILL: no drain, no flush. Resolves once the process is gone; its slot refuses connections meanwhile. */
  async kill(slot: number): Promise<ReplicaInstance> {
    const replica = this.replica(slot);
    const { child } = replica.server;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      replica.killedAt = Date.now();
      child.kill('SIGKILL');
      await exited;
    }
    return replica;
  }

  /** Kills the slot's process (when alive) and starts a replacement, which the balancer gets once it is ready. */
  async replace(slot: number): Promise<ReplicaInstance> {
    await this.kill(slot);
    const replacement = await Cluster.launch(slot, this.options);
    this.replicas[slot] = replacement;
    this.instances.push(replacement);
    this.balancer.setTarget(slot, replacement.url);
    return replacement;
  }

  /** SIGTERM to every live replica (each drains and flushes its recorder), then the balancer closes. */
  async stop(): Promise<void> {
    await Promise.all(this.replicas.map((replica) => replica.server.stop()));
    await this.balancer.close();
    for (const instance of this.instances) rmSync(instance.dataDir, { recursive: true, force: true });
  }
}

export interface ProcessSample {
  rssBytes: number;
  openFds: number;
}

/** RSS and open file handles of a live process, from /proc; null once it is gone. */
export function sampleProcess(pid: number): ProcessSample | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? Number.NaN);
    return { rssBytes: rssKb * 1024, openFds: readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    return null;
  }
}

/** The newest PostgreSQL server binaries installed (Debian's /usr/lib/postgresql/<version>/bin). */
function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  if (versions[0] === undefined) throw new Error(`no PostgreSQL under ${root}`);
  return path.join(root, versions[0], 'bin');
}

/**
 * A PostgreSQL server of the test's own, in a temp dir, run as the `postgres` user (the server
 * refuses root): trust auth on 127.0.0.1 and a free port, durability off (fsync, synchronous
 * commit), since a test stops and starts it and never needs its data after.
 */
export class PrivatePostgres {
  private readonly onExit = () => this.stopNow();

  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly bin: string,
  ) {}

  static async create(): Promise<PrivatePostgres> {
    const bin = postgresBinDir();
    const dir = mkdtempSync(path.join(tmpdir(), 'parapet-pg-'));
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
    const server = new PrivatePostgres(dir, await freePort(), bin);
    await server.asPostgres('initdb', ['-D', server.dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
    process.once('exit', server.onExit);
    await server.start();
    return server;
  }

  private get dataDir(): string {
    return path.join(this.dir, 'data');
  }

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    const settings = [
      `-p ${this.port}`,
      `-k ${this.dir}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=200',
    ].join(' ');
    await this.asPostgres('pg_ctl', ['-D', this.dataDir, '-l', path.join(this.dir, 'server.log'), '-w', '-t', '60', '-o', settings, 'start']);
  }

  /** `fast` disconnects every client and shuts down cleanly; `immediate` is a crash. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.asPostgres('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
  }

  async createDatabase(name: string): Promise<string> {
    const admin = new pg.Client({ connectionString: this.url() });
    await admin.connect();
    try {
      await admin.query(`create database ${name}`);
    } finally {
      await admin.end();
    }
    return this.url(name);
  }

  async destroy(): Promise<void> {
    process.removeListener('exit', this.onExit);
    await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Synchronous, for process exit: a test that crashed must not leave a server running. */
  private stopNow(): void {
    try {
      execFileSync('runuser', ['-u', 'postgres', '--', path.join(this.bin, 'pg_ctl'), '-D', this.dataDir, '-m', 'immediate', 'stop'], { stdio: 'ignore' });
    } catch {
      // Already stopped.
    }
  }

  private async asPostgres(program: string, args: string[]): Promise<void> {
    await run('runuser', ['-u', 'postgres', '--', path.join(this.bin, program), ...args], { cwd: this.dir });
  }
}

/** A redis-server of the test's own on a free port, no persistence; stop() and start() keep the port. */
export class PrivateRedis {
  private child: ChildProcess | null = null;
  private readonly onExit = () => this.child?.kill('SIGKILL');

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    process.once('exit', redis.onExit);
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== null;
  }

  async start(): Promise<void> {
    if (this.child !== null) return;
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
      child.stdout.on('data', (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-4000);
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}:\n${output}`));
      });
    });
    // Drained from now on so that its log never fills the pipe.
    child.stdout.resume();
    child.stderr.resume();
    this.child = child;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child === null) return;
    this.child = null;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }

  async destroy(): Promise<void> {
    process.removeListener('exit', this.onExit);
    await this.stop();
  }
}
