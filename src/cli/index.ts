// The `parapet` command. Bootstrap commands (serve, migrate, admin ...) open the store directly;
// everything else will talk to the HTTP API as a client. Failures set process.exitCode.
import { Command, CommanderError } from 'commander';
import { GATEWAY_VERSION } from '../areas/system/version.js';
import { registerLoginCommand } from './client.js';
import { registerAdminCommands } from './commands/admin.js';
import { registerAuditCommands } from './commands/audit.js';
import { registerEvalCommands } from './commands/eval.js';
import { registerEvidenceCommands } from './commands/evidence.js';
import { registerFindingsCommands } from './commands/findings.js';
import { registerJobsCommands } from './commands/jobs.js';
import { registerPolicyCommands } from './commands/policy.js';
import { registerServerCommands } from './commands/server.js';
import { registerWorkerCommand } from './commands/worker.js';
import { registerWorkspaceCommands } from './commands/workspace.js';

const program = new Command()
  .name('parapet')
  .description('Parapet: a governance gateway for AI agents')
  .version(GATEWAY_VERSION)
  // Program options count only before a subcommand: `policy mode k enforce --version 2` is the
  // subcommand's --version, not the program's.
  .enablePositionalOptions()
  .showHelpAfterError()
  .exitOverride();

registerServerCommands(program);
registerAdminCommands(program);
registerAuditCommands(program);
registerLoginCommand(program);
registerEvidenceCommands(program);
registerJobsCommands(program);
registerWorkerCommand(program);
registerFindingsCommands(program);
registerPolicyCommands(program);
registerEvalCommands(program);
registerWorkspaceCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode;
  } else if (error instanceof Error && error.name === 'ConfigError') {
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`parapet: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
