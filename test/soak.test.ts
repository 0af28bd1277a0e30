// The soak of issue 23, short: three replicas behind the round-robin balancer on a private
// PostgreSQL and Redis, about 75 s of guard and proxy traffic while every fault happens once
// (a replica SIGKILLed and replaced, PostgreSQL restarted, Redis down 5 s, the upstream failing
// 5 s and slow 5 s). Outside the fault windows no client sees an error; every answered decision
// is recorded but those the killed replica had not written yet (fewer than the write-behind
// bound); an approval passes once; the budget holds; the audit chain verifies; open files do not grow.
import { describe, expect, it } from 'vitest';
import { FD_GROWTH_MARGIN, runSoak, soakChecks, soakOptions } from './helpers/soak.js';

describe('three replicas under faults (short soak)', () => {
  it('keeps serving, recording and governing through a SIGKILL, a PostgreSQL restart, a Redis outage and a failing, then slow, upstream', async () => {
    const report = await runSoak({ ...soakOptions(1.25), redisDownMs: 5_000, upstreamFailMs: 5_000, upstreamSlowMs: 5_000 });
    process.stdout.write(`soak (short): ${JSON.stringify(report)}\n`);

    expect(report.faults.map((fault) => fault.name)).toHaveLength(5);
    expect(report.processes.replicas.filter((replica) => replica.exitedUnexpectedly !== null)).toEqual([]);
    expect(report.requests.answered['2xx']).toBeGreaterThan(500);
    expect(report.errors.outsideFaults, JSON.stringify(report.errors.outsideSamples)).toEqual({ '5xx': 0, connection: 0, timeout: 0 });

    expect(report.decisions.missingElsewhere).toBe(0);
    expect(report.decisions.lostOnKilledReplica).toBeLessThan(report.decisions.writeBehindBound);
    expect(report.decisions.recorded).toBe(report.decisions.acknowledged - report.decisions.lostOnKilledReplica);

    expect(report.approvals.passedMoreThanOnce).toBe(0);
    expect(report.approvals.passedOnce).toBeGreaterThan(0);
    expect(report.budget.forwardedCalls).toBeGreaterThan(0);
    expect(report.budget.spentUsd).toBeLessThanOrEqual(report.budget.budgetUsd + report.budget.callCostUsd + 1e-9);
    expect(report.audit).toMatchObject({ ok: true });

    const compared = report.processes.replicas.filter((replica) => replica.first !== null && replica.last !== null);
    expect(compared.length).toBeGreaterThanOrEqual(3);
    for (const replica of compared) expect(replica.last!.fdsMax - replica.first!.fdsMax).toBeLessThanOrEqual(FD_GROWTH_MARGIN);
    expect(Object.entries(soakChecks(report)).filter(([, passed]) => !passed)).toEqual([]);
  }, 300_000);
});
