// Start the faithlint server as the extension does and run one LSP session with it, driven by the
// client's own libraries (not a test of its own: tests/test_vscode_launch.py runs it).
//
// The command is the extension's (serverCommand for the default settings, serverOptions from
// src/launch.ts); vscode-languageclient's own LanguageClient.createMessageTransports spawns it, so
// the server gets exactly the arguments that transport appends (`--stdio`, `--pipe=...`,
// `--socket=...`); the session runs over vscode-jsonrpc's protocol connection, the one the client
// uses. A `vscode` stand-in only satisfies the libraries' `require('vscode')`: any use of it after
// loading is recorded and reported (`vscodeUsed`), and the test requires none.
//
//   node out/test/server-session.js --transport stdio|pipe|socket --root DIR --draft FILE [--timeout S]
//
// Prints one JSON object: the spawned argv, the diagnostics published for the draft once its check
// is complete, the status, the server's exit code, its log, and `error` when something failed.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

import { standIn } from './stand-in';

const vscodeUsed: string[] = [];
let armed = false;

/** Every use of the `vscode` stand-in once `armed`. */
function note(what: string): void {
  if (armed) {
    vscodeUsed.push(what);
  }
}

const Module = require('node:module');
const originalLoad = Module._load;
Module._load = function (request: string, ...rest: unknown[]) {
  return request === 'vscode' ? standIn('vscode', note) : originalLoad.call(this, request, ...rest);
};
// eslint-disable-next-line @typescript-eslint/no-var-requires
const lc = require('vscode-languageclient/node') as typeof import('vscode-languageclient/node');
const { readSettings, serverCommand, toServerSettings } = require('../src/settings') as typeof import('../src/settings');
const { serverOptions } = require('../src/launch') as typeof import('../src/launch');
armed = true;

function option(name: string, fallback?: string): string {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0 && i + 1 < process.argv.length) {
    return process.argv[i + 1];
  }
  if (fallback === undefined) {
    throw new Error(`--${name} is required`);
  }
  return fallback;
}

/** The `faithlint.*` settings when the user set nothing: package.json's defaults. */
function defaultSettings(): Record<string, unknown> {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries<any>(manifest.contributes.configuration.properties)) {
    out[key.replace(/^faithlint\./, '')] = schema.default;
  }
  return out;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<Record<string, unknown>> {
  const transport = option('transport', 'stdio');
  const root = path.resolve(option('root'));
  const draft = path.resolve(option('draft'));
  const deadline = Date.now() + Number(option('timeout', '240')) * 1000;
  const result: Record<string, unknown> = { transport };
  let log = '';
  const channel = {
    name: 'faithlint', append: (s: string) => { log += s; }, appendLine: (s: string) => { log += `${s}\n`; },
    clear() {}, show() {}, hide() {}, dispose() {}, replace: (s: string) => { log = s; },
  };

  // the extension's buildCommand with no faithlint.* setting and no Python extension
  const settings = readSettings((key) => defaultSettings()[key]);
  const command = serverCommand({
    interpreter: settings.interpreter, pythonExtension: undefined, serverArgs: settings.serverArgs,
    platform: process.platform, vars: { workspaceFolder: root, userHome: process.env.HOME, env: process.env },
  });
  const options: any = serverOptions(command, root, process.env);
  if (transport === 'pipe') {
    options.transport = lc.TransportKind.pipe;
  } else if (transport === 'socket') {
    options.transport = { kind: lc.TransportKind.socket, port: await freePort() };
  } else if (transport !== 'stdio') {
    throw new Error(`unknown --transport ${transport}`);
  }
  result.command = [command.command, ...command.args];

  const client: any = Object.create(lc.LanguageClient.prototype);
  Object.assign(client, { _serverOptions: options, _clientOptions: {}, _outputChannel: channel });
  let child: any;
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) => {
    const watch = setInterval(() => {
      if (client._serverProcess && !child) {
        child = client._serverProcess;
        result.argv = child.spawnargs;
        child.on('exit', (code: number | null) => { exitCode = code; clearInterval(watch); resolve(); });
      }
    }, 5);
  });
  const timeout = (what: string) => new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`timed out: ${what}`)), Math.max(0, deadline - Date.now())).unref());
  const died = exited.then((): never => { throw new Error(`the server exited with code ${exitCode}`); });
  /** `promise`, unless the deadline passes or the server exits first. */
  const guard = <T>(promise: Promise<T>, what: string): Promise<T> => Promise.race([promise, timeout(what), died]);

  try {
    const streams = await guard<any>(client.createMessageTransports('utf-8'), 'the server to connect');
    const connection = lc.createProtocolConnection(streams.reader, streams.writer);
    const published = new Map<string, any[]>();
    connection.onNotification(lc.PublishDiagnosticsNotification.type, (params) => {
      published.set(params.uri, params.diagnostics);
    });
    // the extension answers workspace/configuration "faithlint" with the server settings object
    connection.onRequest(lc.ConfigurationRequest.type, (params) => params.items.map((item) =>
      item.section === 'faithlint' ? toServerSettings(settings) : null));
    connection.onRequest(lc.RegistrationRequest.type, () => undefined);
    connection.onRequest(lc.WorkDoneProgressCreateRequest.type, () => undefined);
    connection.listen();

    const rootUri = pathToFileURL(root).href;
    const init = await guard(connection.sendRequest(lc.InitializeRequest.type, {
      processId: process.pid,
      clientInfo: { name: 'faithlint-vscode-launch-test' },
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: path.basename(root) }],
      initializationOptions: toServerSettings(settings),
      capabilities: {
        workspace: { configuration: true, workspaceFolders: true },
        window: { workDoneProgress: true },
        textDocument: { publishDiagnostics: { versionSupport: true } },
      },
    }), 'initialize');
    result.serverInfo = init.serverInfo;
    await connection.sendNotification(lc.InitializedNotification.type, {});
    const uri = pathToFileURL(draft).href;
    await connection.sendNotification(lc.DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'markdown', version: 1, text: fs.readFileSync(draft, 'utf8') },
    });
    // the extension's faithlint.showStatus asks the same: is version 1's check delivered in full?
    for (;;) {
      const status: any = await guard(connection.sendRequest(lc.ExecuteCommandRequest.type,
        { command: 'faithlint.status', arguments: [] }), 'faithlint.status');
      const doc = status?.documents?.[uri];
      if (doc?.version === 1 && doc?.complete && published.has(uri)) {
        result.status = { version: doc.version, complete: doc.complete, modelErrors: status.modelErrors };
        break;
      }
      if (Date.now() > deadline) {
        throw new Error(`the check of ${uri} was not complete in time: ${JSON.stringify(doc)}`);
      }
      await sleep(200);
    }
    result.diagnostics = published.get(uri);
    await guard(connection.sendRequest(lc.ShutdownRequest.type, undefined), 'shutdown');
    await connection.sendNotification(lc.ExitNotification.method, undefined);
    await Promise.race([exited, timeout('the server to exit')]);
    result.exitCode = exitCode;
    connection.dispose();
  } catch (error) {
    result.error = String(error instanceof Error ? error.message : error);
    child?.kill();
  }
  result.vscodeUsed = vscodeUsed;
  result.serverLog = log;
  return result;
}

main().then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(result.error ? 1 : 0);
  },
  (error) => {
    process.stdout.write(`${JSON.stringify({ error: String(error), vscodeUsed })}\n`);
    process.exit(1);
  },
);
