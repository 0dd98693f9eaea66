import * as os from 'os';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';
import type { DynamicFeature, RegistrationData, StaticFeature } from 'vscode-languageclient/node';

import {
  CLIENT_COMMANDS,
  RESTART_SETTINGS,
  SECTION,
  SERVER_COMMANDS,
  ServerCommand,
  droppedKeys,
  formatCommandLine,
  formatStatus,
  readSettings,
  serverCommand,
  serverCommandsToRegister,
  toServerSettings,
} from './settings';
import { serverOptions } from './launch';

const CLIENT_ID = 'faithlint';
const CLIENT_NAME = 'faithlint';

/**
 * vscode-languageclient registers every command the server lists in executeCommandProvider as a
 * VS Code command. The extension registers faithlint.recheckDocument / recheckWorkspace itself
 * (they pass the active document), so those are left out here to avoid a "command already
 * exists" failure; any other server command (e.g. one a code action uses) still gets registered.
 */
class FaithlintLanguageClient extends LanguageClient {
  public registerFeature(feature: StaticFeature | DynamicFeature<any>): void {
    const dynamic = feature as DynamicFeature<any>;
    if (dynamic.registrationType?.method === ExecuteCommandRequest.method) {
      const register = dynamic.register.bind(dynamic);
      dynamic.register = (data: RegistrationData<any>) =>
        register({
          ...data,
          registerOptions: { ...data.registerOptions, commands: serverCommandsToRegister(data.registerOptions?.commands) },
        });
    }
    super.registerFeature(feature);
  }
}

let output: vscode.OutputChannel;
let statusItem: vscode.StatusBarItem;
let client: LanguageClient | undefined;
let current: ServerCommand | undefined;
let initOptions: Record<string, unknown> = {};
let queue: Promise<unknown> = Promise.resolve();

function configuration(scope?: vscode.Uri): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION, scope);
}

/** The settings object the server reads, for a resource (or the whole workspace). */
function serverSettings(scope?: vscode.Uri): Record<string, unknown> {
  const config = configuration(scope);
  return toServerSettings(readSettings((key) => config.get(key)));
}

/** The Python extension's selected interpreter, if that extension is installed. */
async function pythonExtensionInterpreter(resource?: vscode.Uri): Promise<string[] | undefined> {
  const extension = vscode.extensions.getExtension('ms-python.python');
  if (!extension) {
    return undefined;
  }
  try {
    const api: any = extension.isActive ? extension.exports : await extension.activate();
    const environments = api?.environments;
    if (environments?.getActiveEnvironmentPath) {
      const active = environments.getActiveEnvironmentPath(resource);
      const resolved = active ? await environments.resolveEnvironment(active) : undefined;
      const executable: string | undefined = resolved?.executable?.uri?.fsPath;
      if (executable) {
        return [executable];
      }
    }
    const details = api?.settings?.getExecutionDetails?.(resource);
    if (Array.isArray(details?.execCommand) && details.execCommand.length > 0) {
      return details.execCommand;
    }
  } catch (error) {
    output.appendLine(`Could not ask the Python extension for its interpreter: ${error}`);
  }
  return undefined;
}

async function buildCommand(): Promise<ServerCommand> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  const settings = readSettings((key) => configuration(folder?.uri).get(key));
  const python = settings.interpreter.length === 0 ? await pythonExtensionInterpreter(folder?.uri) : undefined;
  return serverCommand({
    interpreter: settings.interpreter,
    pythonExtension: python,
    serverArgs: settings.serverArgs,
    platform: process.platform,
    vars: { workspaceFolder: folder?.uri.fsPath, userHome: os.homedir(), env: process.env },
  });
}

function createClient(command: ServerCommand): LanguageClient {
  const folder = vscode.workspace.workspaceFolders?.[0];
  const options: ServerOptions = serverOptions(command, folder?.uri.fsPath, process.env);
  initOptions = serverSettings();
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'markdown' },
      { scheme: 'file', language: 'plaintext' },
      { scheme: 'untitled', language: 'markdown' },
      { scheme: 'untitled', language: 'plaintext' },
    ],
    initializationOptions: initOptions,
    outputChannel: output,
    middleware: {
      workspace: {
        // Answer workspace/configuration for "faithlint" with the server's settings object
        // (snake_case keys, no client-only settings such as interpreter or trace).
        configuration: async (params, token, next) => {
          const items = params.items ?? [];
          if (!items.some((item) => item.section === SECTION)) {
            return next(params, token);
          }
          return items.map((item) => {
            const scope = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
            if (item.section === SECTION) {
              return serverSettings(scope);
            }
            const value = item.section ? vscode.workspace.getConfiguration(undefined, scope).get(item.section) : null;
            return value ?? null;
          });
        },
        // Configuration changes are pushed by onConfigurationChanged() below.
        didChangeConfiguration: async () => undefined,
      },
    },
  };
  return new FaithlintLanguageClient(CLIENT_ID, CLIENT_NAME, options, clientOptions);
}

function updateStatusItem(state: State | undefined): void {
  const text = state === State.Running ? 'faithlint' : state === State.Starting ? 'faithlint $(sync~spin)' : 'faithlint $(warning)';
  statusItem.text = text;
  statusItem.tooltip = current ? `faithlint language server: ${formatCommandLine(current.command, current.args)}` : 'faithlint';
}

/** Run lifecycle operations one after another (a restart must not overlap a start). */
function serialized<T>(operation: () => Promise<T>): Promise<T> {
  const next = queue.then(operation, operation);
  queue = next.catch(() => undefined);
  return next;
}

async function stopClient(): Promise<void> {
  const old = client;
  client = undefined;
  if (!old) {
    return;
  }
  try {
    if (old.isRunning()) {
      await old.stop(5000);
    }
  } catch (error) {
    output.appendLine(`Stopping the server failed: ${error}`);
  }
  await old.dispose().catch(() => undefined);
}

async function startClient(): Promise<void> {
  current = await buildCommand();
  output.appendLine(`Starting ${formatCommandLine(current.command, current.args)} (python from ${current.source})`);
  const next = createClient(current);
  client = next;
  next.onDidChangeState((event) => updateStatusItem(event.newState));
  updateStatusItem(State.Starting);
  try {
    await next.start();
  } catch (error) {
    updateStatusItem(State.Stopped);
    const message = `faithlint: the language server did not start (${formatCommandLine(current.command, current.args)}): ${error}`;
    output.appendLine(message);
    const choice = await vscode.window.showErrorMessage(
      `${message}. Is faithlint installed for this Python (pip install 'faithlint[server]')? See faithlint.interpreter.`,
      'Show Output',
      'Open Settings',
    );
    if (choice === 'Show Output') {
      output.show();
    } else if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'faithlint.interpreter');
    }
  }
}

function restart(): Promise<void> {
  return serialized(async () => {
    await stopClient();
    await startClient();
  });
}

async function executeServerCommand(command: string, args: unknown[]): Promise<unknown> {
  if (!client || !client.isRunning()) {
    void vscode.window.showWarningMessage('faithlint: the language server is not running (try "faithlint: Restart Server").');
    return undefined;
  }
  try {
    return await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  } catch (error) {
    void vscode.window.showErrorMessage(`faithlint: ${command} failed: ${error instanceof Error ? error.message : error}`);
    return undefined;
  }
}

async function onConfigurationChanged(event: vscode.ConfigurationChangeEvent): Promise<void> {
  if (!event.affectsConfiguration(SECTION)) {
    return;
  }
  if (RESTART_SETTINGS.some((key) => event.affectsConfiguration(`${SECTION}.${key}`))) {
    output.appendLine('faithlint.interpreter or faithlint.serverArgs changed: restarting the server');
    await restart();
    return;
  }
  const settings = serverSettings();
  const dropped = droppedKeys(initOptions, settings);
  if (dropped.length > 0) {
    // initializationOptions would keep the old value of a setting the user removed.
    output.appendLine(`Settings removed (${dropped.join(', ')}): restarting the server`);
    await restart();
    return;
  }
  if (client?.isRunning()) {
    await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { [SECTION]: settings } });
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('faithlint');
  statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 0);
  statusItem.command = CLIENT_COMMANDS.showStatus;
  updateStatusItem(undefined);
  statusItem.show();
  context.subscriptions.push(output, statusItem);

  context.subscriptions.push(
    vscode.commands.registerCommand(CLIENT_COMMANDS.recheckDocument, async (uri?: vscode.Uri) => {
      const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
      if (!target) {
        void vscode.window.showInformationMessage('faithlint: open a Markdown or text draft first.');
        return;
      }
      await executeServerCommand(SERVER_COMMANDS.recheckDocument, [target.toString()]);
    }),
    vscode.commands.registerCommand(CLIENT_COMMANDS.recheckWorkspace, async () => {
      await executeServerCommand(SERVER_COMMANDS.recheckWorkspace, []);
    }),
    vscode.commands.registerCommand(CLIENT_COMMANDS.showStatus, async () => {
      const running = client?.isRunning() ?? false;
      const result = running ? await executeServerCommand(SERVER_COMMANDS.status, []) : undefined;
      const state = client ? State[client.state] ?? String(client.state) : 'not started';
      const text = formatStatus(
        {
          state,
          commandLine: current ? formatCommandLine(current.command, current.args) : '(none)',
          source: current?.source ?? 'n/a',
        },
        result,
      );
      output.appendLine(text);
      output.show(true);
    }),
    vscode.commands.registerCommand(CLIENT_COMMANDS.restartServer, () => restart()),
    vscode.workspace.onDidChangeConfiguration((event) => serialized(() => onConfigurationChanged(event))),
  );

  // Follow the Python extension's interpreter when faithlint.interpreter is not set.
  const python = vscode.extensions.getExtension('ms-python.python');
  if (python) {
    try {
      const api: any = python.isActive ? python.exports : await python.activate();
      const onChange = api?.environments?.onDidChangeActiveEnvironmentPath;
      if (onChange) {
        context.subscriptions.push(
          onChange(() => {
            if (readSettings((key) => configuration().get(key)).interpreter.length === 0) {
              output.appendLine('The Python extension changed interpreter: restarting the server');
              void restart();
            }
          }),
        );
      }
    } catch (error) {
      output.appendLine(`Could not follow the Python extension's interpreter: ${error}`);
    }
  }

  await serialized(() => startClient());
}

export async function deactivate(): Promise<void> {
  await serialized(() => stopClient());
}
