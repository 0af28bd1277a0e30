// `npm run bench`: load-tests a bare Fastify hello-world, then the gateway's GET /health and authenticated
// GET /api/me (each in its own child process on 127.0.0.1), prints a table and writes bench/results/*.json.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import {
  HOST,
  benchDir,
  cpuSeconds,
  freePort,
  gatewayOverridesFromEnv,
  hasExited,
  mintToken,
  percentile,
  projectDir,
  runningChildren,
  secondsFromEnv,
  startChild,
  startGateway,
  stopChild,
  temporaryDirs,
  waitUntilAnswering,
  type Child,
  runBench,
} from './lib.js';

const CONNECTIONS = 32;
const PIPELINING = 1;
const TARGET_RATIO_PERCENT = 60;
/** Issue 3: a 1 KB guard check over HTTP reaches 30% of a bare route answering 1 KB, p99 under 20 ms. */
const GUARD_TARGET_PERCENT = 30;
const GUARD_TARGET_P99_MS = 20;
// The same route twice; the query string only tells the two measurements apart in the results.
const GUARD_DISTINCT_PATH = '/v1/guard/input?bench=distinct';
const GUARD_REPEATED_PATH = '/v1/guard/input?bench=repeated';
const TOOL_CALL_PATH = '/v1/guard/tool_call?bench=granted';


/** A 1 KB text for the guard benchmark: ordinary prose with an e-mail address in it. */
const GUARD_TEXT = (
  'Hello team, the quarterly report is attached. Please review the revenue and cost figures before Friday and ' +
  'send your comments to finance.lead@example.com so that we can merge them into the board deck. '
)
  .repeat(8)
  .slice(0, 1024);

interface Target {
  name: string;
  baseUrl: string;
  path: string;
  headers: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
  /** A fresh body for every request (defeats caching by content). */
  nextBody?: () => string;
}

interface Measurement {
  name: string;
  path: string;
  requests_per_second_mean: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  ratio_to_hello_world_percent: number;
  total_requests: number;
  /** Server CPU time (all its threads) per answered request, where /proc tells it. */
  server_cpu_us_per_request: number | null;
}

async function startHelloWorld(): Promise<{ child: Child; baseUrl: string }> {
  const port = await freePort();
  const child = startChild('hello-world', ['--import', 'tsx', path.join(benchDir, 'hello-world.ts')], {
    ...process.env,
    PORT: String(port),
  });
  const baseUrl = `http://${HOST}:${port}`;
  await waitUntilAnswering(child, `${baseUrl}/`);
  return { child, baseUrl };
}

/** Registers the agent of the tool-call target and grants it the tool it calls. */
async function prepareToolAgent(baseUrl: string, adminToken: string): Promise<void> {
  const headers = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  const steps: Array<[string, unknown]> = [
    ['/api/agents', { slug: 'bench-tools', owner_email: 'bench@example.com', declared_tools: ['db.query'] }],
    ['/api/agents/bench-tools/access', { tool_key: 'db.query', max_taint: 'untrusted' }],
  ];
  for (const [pathname, body] of steps) {
    const response = await fetch(baseUrl + pathname, { method: 'POST', headers, body: JSON.stringify(body) });
    if (response.status !== 201) throw new Error(`POST ${pathname} answered ${response.status}: ${await response.text()}`);
  }
}

/** One request before the load, so a misconfigured target fails with its answer instead of a count. */
async function expectOk(target: Target): Promise<void> {
  const method = target.method ?? 'GET';
  const response = await fetch(target.baseUrl + target.path, { method, headers: target.headers, body: target.body });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${target.name}: ${method} ${target.path} answered ${response.status}: ${body}`);
}

interface LoadRun {
  result: autocannon.Result;
  serverCpuUsPerRequest: number | null;
  /** Every 2xx response time in ms; autocannon's own histogram rounds them to whole milliseconds. */
  latenciesMs: Float64Array;
  errorsByCode: Record<string, number>;
}

async function load(target: Target, seconds: number): Promise<LoadRun> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const errorsByCode: Record<string, number> = {};
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.baseUrl + target.path,
        method: target.method ?? 'GET',
        headers: target.headers,
        ...(target.body === undefined ? {} : { body: target.body }),
        ...(target.nextBody === undefined
          ? {}
          : { requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, body: target.nextBody!() }) }] }),
        connections: CONNECTIONS,
        pipelining: PIPELINING,
        duration: seconds,
      },
      (error: unknown, finished: autocannon.Result) => (error ? reject(error as Error) : resolve(finished)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
      if (statusCode < 200 || statusCode > 299) return;
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count++] = responseTimeMs;
    });
    instance.on('reqError', (error: unknown) => {
      const code = (error as { code?: unknown }).code;
      const key = typeof code === 'string' ? code : String(error);
      errorsByCode[key] = (errorsByCode[key] ?? 0) + 1;
    });
  });
  return { result, latenciesMs: latencies.slice(0, count).sort(), errorsByCode, serverCpuUsPerRequest: null };
}

async function measure(
  target: Target,
  server: Child,
  warmupSeconds: number,
  measuredSeconds: number,
): Promise<LoadRun> {
  await expectOk(target);
  process.stderr.write(`${target.name}: warm-up ${warmupSeconds} s, then ${measuredSeconds} s measured\n`);
  if (warmupSeconds > 0) await load(target, warmupSeconds);
  const cpuBefore = cpuSeconds(server.process.pid);
  const run = await load(target, measuredSeconds);
  const cpuAfter = cpuSeconds(server.process.pid);
  const { result } = run;
  run.serverCpuUsPerRequest =
    cpuBefore === null || cpuAfter === null || result.requests.total === 0 ? null : ((cpuAfter - cpuBefore) * 1e6) / result.requests.total;
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    const statuses = JSON.stringify(result.statusCodeStats ?? {});
    const serverState = hasExited(server.process)
      ? `; ${server.name} is no longer running (exit ${server.process.exitCode ?? server.process.signalCode})`
      : '';
    throw new Error(
      `${target.name}: ${result.non2xx} non-2xx responses, ${result.errors} errors, ${result.timeouts} timeouts ` +
        `out of ${result.requests.total} requests (by status: ${statuses}; errors: ${JSON.stringify(run.errorsByCode)})` +
        serverState,
    );
  }
  if (result.requests.total === 0) throw new Error(`${target.name}: no request completed`);
  return run;
}

function toMeasurement(target: Target, run: LoadRun, baselineRps: number): Measurement {
  const { result, latenciesMs } = run;
  return {
    name: target.name,
    path: target.path,
    requests_per_second_mean: result.requests.mean,
    latency_p50_ms: percentile(latenciesMs, 0.5),
    latency_p99_ms: percentile(latenciesMs, 0.99),
    ratio_to_hello_world_percent: (result.requests.mean / baselineRps) * 100,
    total_requests: result.requests.total,
    server_cpu_us_per_request: run.serverCpuUsPerRequest,
  };
}

function formatTable(measurements: Measurement[]): string {
  const header = ['target', 'req/s', 'p50 ms', 'p99 ms', 'vs hello-world', 'server CPU µs/req'];
  const rows = measurements.map((m) => [
    m.name,
    m.requests_per_second_mean.toFixed(0),
    m.latency_p50_ms.toFixed(2),
    m.latency_p99_ms.toFixed(2),
    `${m.ratio_to_hello_world_percent.toFixed(1)}%`,
    m.server_cpu_us_per_request === null ? '—' : m.server_cpu_us_per_request.toFixed(0),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

/** The same comparison by server CPU per request, which a busy neighbour does not distort. */
function cpuLine(measurements: Measurement[]): string {
  const cpuOf = (path: string) => measurements.find((m) => m.path === path)?.server_cpu_us_per_request ?? null;
  const bare = cpuOf('/1k');
  const parts = [GUARD_DISTINCT_PATH, GUARD_REPEATED_PATH, TOOL_CALL_PATH].map((path) => {
    const guard = cpuOf(path);
    const label = path === TOOL_CALL_PATH ? 'granted tool call' : `${path.split('=')[1]} text`;
    return guard === null || bare === null ? `${path}: —` : `${label} ${guard.toFixed(0)} µs (${((bare / guard) * 100).toFixed(0)}%)`;
  });
  return `info: server CPU per request, 1 KB route ${bare === null ? '—' : bare.toFixed(0)} µs; guard ${parts.join(', ')}`;
}


async function main(): Promise<void> {
  const measuredSeconds = secondsFromEnv('BENCH_SECONDS', 10, 1);
  const warmupSeconds = secondsFromEnv('BENCH_WARMUP_SECONDS', 3, 0);
  const startedAt = new Date();
  const gatewayOverrides = gatewayOverridesFromEnv();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'parapet-bench-'));
  temporaryDirs.add(dataDir);
  const adminToken = `ppt_op_bench_${randomBytes(20).toString('base64url')}`;
  const measurements: Measurement[] = [];

  try {
    const hello = await startHelloWorld();
    const helloTarget: Target = { name: 'hello-world GET /', baseUrl: hello.baseUrl, path: '/', headers: {} };
    const helloResult = await measure(helloTarget, hello.child, warmupSeconds, measuredSeconds);
    const hello1kTarget: Target = { name: 'hello-world GET /1k (1 KB JSON)', baseUrl: hello.baseUrl, path: '/1k', headers: {} };
    const hello1kResult = await measure(hello1kTarget, hello.child, warmupSeconds, measuredSeconds);
    // Stopped before the gateway starts, so the two servers never share the two cores.
    await stopChild(hello.child);
    const baselineRps = helloResult.result.requests.mean;
    const baseline1kRps = hello1kResult.result.requests.mean;
    measurements.push(toMeasurement(helloTarget, helloResult, baselineRps));
    measurements.push(toMeasurement(hello1kTarget, hello1kResult, baselineRps));

    const gateway = await startGateway(dataDir, adminToken);
    const viewerToken = await mintToken(gateway.baseUrl, adminToken, 'viewer');
    const gatewayTargets: Target[] = [
      { name: 'gateway GET /health', baseUrl: gateway.baseUrl, path: '/health', headers: {} },
      {
        name: 'gateway GET /api/me',
        baseUrl: gateway.baseUrl,
        path: '/api/me',
        headers: { authorization: `Bearer ${viewerToken}` },
      },
    ];
    for (const target of gatewayTargets) {
      const run = await measure(target, gateway.child, warmupSeconds, measuredSeconds);
      measurements.push(toMeasurement(target, run, baselineRps));
    }
    const trafficToken = await mintToken(gateway.baseUrl, adminToken, 'traffic');
    const guardHeaders = { authorization: `Bearer ${trafficToken}`, 'content-type': 'application/json' };
    let sequence = 0;
    // Every request a text never seen before, so the detection cache never answers: the honest
    // cost of checking new content, and the figure the target is judged on.
    const distinctText = (): string =>
      JSON.stringify({ agent: 'bench-agent', content: `Ref ${(sequence++).toString(36)}. ${GUARD_TEXT}`.slice(0, 1024) });
    const guardTargets: Target[] = [
      {
        name: 'gateway POST /v1/guard/input (1 KB, new text each time)',
        baseUrl: gateway.baseUrl,
        path: GUARD_DISTINCT_PATH,
        method: 'POST',
        headers: guardHeaders,
        body: distinctText(),
        nextBody: distinctText,
      },
      {
        // The same text again and again: what a proxy sees for a resent system prompt or history.
        name: 'gateway POST /v1/guard/input (1 KB, same text)',
        baseUrl: gateway.baseUrl,
        path: GUARD_REPEATED_PATH,
        method: 'POST',
        headers: guardHeaders,
        body: JSON.stringify({ agent: 'bench-agent', content: GUARD_TEXT }),
      },
    ];
    // A registered agent's granted tool with an SQL argument: grants, taint, action analysis (the
    // SQL parser) and the loop tracker all run. A new statement every time, so nothing is cached.
    await prepareToolAgent(gateway.baseUrl, adminToken);
    let toolSequence = 0;
    const toolCallBody = (): string =>
      JSON.stringify({
        agent: 'bench-tools',
        tool: 'db.query',
        session_id: 'bench',
        arguments: { query: `SELECT id, status FROM orders WHERE id = ${toolSequence++}` },
      });
    guardTargets.push({
      name: 'gateway POST /v1/guard/tool_call (granted, SQL analysed)',
      baseUrl: gateway.baseUrl,
      path: TOOL_CALL_PATH,
      method: 'POST',
      headers: guardHeaders,
      body: toolCallBody(),
      nextBody: toolCallBody,
    });
    for (const target of guardTargets) {
      const run = await measure(target, gateway.child, warmupSeconds, measuredSeconds);
      // Compared with the bare route answering 1 KB of JSON (the baseline for guard checks).
      measurements.push(toMeasurement(target, run, baseline1kRps));
    }
    await stopChild(gateway.child);
  } finally {
    await Promise.all([...runningChildren].map(stopChild));
    rmSync(dataDir, { recursive: true, force: true });
    temporaryDirs.delete(dataDir);
  }

  const me = measurements.find((m) => m.path === '/api/me');
  const guard = measurements.find((m) => m.path === GUARD_DISTINCT_PATH);
  const guardRepeated = measurements.find((m) => m.path === GUARD_REPEATED_PATH);
  if (me === undefined || guard === undefined || guardRepeated === undefined) throw new Error('missing measurements');
  const mePercent = Math.round(me.ratio_to_hello_world_percent);
  const mePass = me.ratio_to_hello_world_percent >= TARGET_RATIO_PERCENT;
  const guardPass = guard.ratio_to_hello_world_percent >= GUARD_TARGET_PERCENT && guard.latency_p99_ms < GUARD_TARGET_P99_MS;
  const pass = mePass && guardPass;
  const cpus = os.cpus();
  const machine = {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    total_memory_bytes: os.totalmem(),
  };

  const overrideText = Object.entries(gatewayOverrides).map(([name, value]) => `${name}=${value}`).join(' ');
  process.stdout.write(
    [
      `machine: ${machine.cpu}, ${machine.cores} cores, ${(machine.total_memory_bytes / 1024 ** 3).toFixed(1)} GiB RAM`,
      `node:    ${process.version}`,
      `date:    ${startedAt.toISOString()}`,
      `load:    autocannon, ${CONNECTIONS} connections, pipelining ${PIPELINING}, ` +
        `${warmupSeconds} s warm-up + ${measuredSeconds} s measured per target`,
      `gateway: ${overrideText === '' ? 'default settings' : overrideText} (SQLite, stdout discarded)`,
      '',
      formatTable(measurements),
      '',
      `${mePass ? 'PASS' : 'FAIL'}: /api/me reaches ${mePercent}% of hello-world (target >= ${TARGET_RATIO_PERCENT}%)`,
      `${guardPass ? 'PASS' : 'FAIL'}: /v1/guard/input (1 KB, new text each time) reaches ${Math.round(guard.ratio_to_hello_world_percent)}% of the ` +
        `1 KB hello-world route, p99 ${guard.latency_p99_ms.toFixed(2)} ms (targets >= ${GUARD_TARGET_PERCENT}%, < ${GUARD_TARGET_P99_MS} ms)`,
      `info: /v1/guard/input (1 KB, same text, detections from the cache) reaches ` +
        `${Math.round(guardRepeated.ratio_to_hello_world_percent)}%, p99 ${guardRepeated.latency_p99_ms.toFixed(2)} ms`,
      cpuLine(measurements),
      '',
    ].join('\n'),
  );

  const resultsDir = path.join(benchDir, 'results');
  mkdirSync(resultsDir, { recursive: true });
  // Colons are not allowed in file names on every system.
  const resultsFile = path.join(resultsDir, `http-${startedAt.toISOString().replaceAll(':', '-')}.json`);
  const report = {
    date: startedAt.toISOString(),
    machine,
    node: process.version,
    load: {
      tool: 'autocannon',
      connections: CONNECTIONS,
      pipelining: PIPELINING,
      warmup_seconds: warmupSeconds,
      measured_seconds: measuredSeconds,
    },
    gateway_settings_from_env: gatewayOverrides,
    targets: measurements,
    verdict: {
      api_me_percent_of_hello_world: mePercent,
      target_percent: TARGET_RATIO_PERCENT,
      guard_percent_of_hello_world_1k: Math.round(guard.ratio_to_hello_world_percent),
      guard_p99_ms: guard.latency_p99_ms,
      guard_same_text_percent_of_hello_world_1k: Math.round(guardRepeated.ratio_to_hello_world_percent),
      guard_same_text_p99_ms: guardRepeated.latency_p99_ms,
      pass,
    },
  };
  writeFileSync(resultsFile, `${JSON.stringify(report, null, 2)}\n`);
  process.stderr.write(`results written to ${path.relative(projectDir, resultsFile)}\n`);

  if (!pass) process.exitCode = 1;
}

await runBench('bench', main);
