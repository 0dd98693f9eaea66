/**
 * How the extension starts the server: the command from `serverCommand` (settings.ts) run as an
 * Executable over stdio. vscode-languageclient appends `--stdio` to the arguments for this
 * transport (`--pipe=<name>` for TransportKind.pipe, `--socket=<port>` for a socket transport),
 * and `faithlint serve` accepts each of them. Kept apart from extension.ts so that a test can
 * start the server exactly as the extension does (tests/test_vscode_launch.py).
 */
import { Executable, TransportKind } from 'vscode-languageclient/node';

import type { ServerCommand } from './settings';

export function serverOptions(command: ServerCommand, cwd: string | undefined, env: NodeJS.ProcessEnv): Executable {
  return {
    command: command.command,
    args: command.args,
    transport: TransportKind.stdio,
    options: { cwd, env: { ...env, PYTHONUNBUFFERED: '1' } },
  };
}
