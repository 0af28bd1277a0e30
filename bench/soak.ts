// `npm run soak`: three gateway replicas behind a round-robin balancer on a private PostgreSQL and
// Redis, under steady guard and proxy traffic while faults follow one another (a replica SIGKILLed
// and replaced, PostgreSQL restarted, Redis stopped, the upstream failing and then slow). Runs for
// SOAK_MINUTES (default 10) and prints a JSON report; exits non-zero when a check fails. The core
// is test/helpers/soak.ts, which test/soak.test.ts runs briefly in `npm test`.
import { runSoak, soakChecks, soakOptions } from '../test/helpers/soak.js';

const minutes = Number(process.env.SOAK_MINUTES ?? 10);
if (!Number.isFinite(minutes) || minutes < 1) throw new Error(`SOAK_MINUTES must be a number of minutes >= 1 (got ${process.env.SOAK_MINUTES})`);

const report = await runSoak(soakOptions(minutes, (line) => process.stderr.write(`${line}\n`)));
const checks = soakChecks(report);
process.stdout.write(`${JSON.stringify({ ...report, checks }, null, 2)}\n`);
const failed = Object.entries(checks).filter(([, passed]) => !passed);
process.stderr.write(failed.length === 0 ? 'soak: PASS\n' : `soak: FAIL (${failed.map(([name]) => name).join(', ')})\n`);
if (failed.length > 0) process.exitCode = 1;
