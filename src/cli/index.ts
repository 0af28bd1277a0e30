// The `parapet` command. Bootstrap commands (serve, migrate, admin ...) open the store directly;
// everything else will talk to the HTTP API as a client. Failures set process.exitCode.
import { Command, CommanderError } from 'commander';
import { GATEWAY_VERSION } from '../system/version.js';
import { registerLoginCommand } from './client.js';
import { registerAdminCommands } from './commands/admin.js';
import { registerServerCommands } from './commands/server.js';

const program = new Command()
  .name('parapet')
  .description('Parapet: a governance gateway for AI agents')
  .version(GATEWAY_VERSION)
  .showHelpAfterError()
  .exitOverride();

registerServerCommands(program);
registerAdminCommands(program);
registerLoginCommand(program);

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
