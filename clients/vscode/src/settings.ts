/**
 * The extension's own logic, free of any `vscode` import so that it runs (and is unit tested)
 * under plain Node: reading the `faithlint.*` settings, turning them into the settings object the
 * language server reads (initializationOptions and workspace/configuration section "faithlint"),
 * and building the command line that starts `python -m faithlint serve`.
 */

export const SECTION = 'faithlint';

/** Commands the server exposes through workspace/executeCommand. */
export const SERVER_COMMANDS = {
  recheckDocument: 'faithlint.recheckDocument',
  recheckWorkspace: 'faithlint.recheckWorkspace',
  status: 'faithlint.status',
} as const;

/** Commands this extension registers in VS Code (see package.json `contributes.commands`). */
export const CLIENT_COMMANDS = {
  recheckDocument: 'faithlint.recheckDocument',
  recheckWorkspace: 'faithlint.recheckWorkspace',
  showStatus: 'faithlint.showStatus',
  restartServer: 'faithlint.restartServer',
} as const;

/** Settings whose change needs a new server process rather than a configuration update. */
export const RESTART_SETTINGS = ['interpreter', 'serverArgs'] as const;

export const FAIL_ON = ['error', 'warning', 'info', 'never'] as const;
export const AGGREGATION = ['max', 'weighted', 'min'] as const;
export const UNIT = ['sentence', 'claim', 'both'] as const;
export const DEFAULT_DEBOUNCE_MS = 300;

/** The `faithlint.*` settings after normalisation (unset values are null / empty). */
export interface ExtensionSettings {
  /** Python to run the server with: a path/command, or a command followed by its own arguments. */
  interpreter: string[];
  serverArgs: string[];
  model: string | null;
  debounce: number | null;
  select: string[];
  ignore: string[];
  failOn: string | null;
  topP: number | null;
  aggregation: string | null;
  unit: string | null;
  extraSettings: Record<string, unknown>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringList(value: unknown): string[] {
  if (typeof value === 'string') {
    value = value.split(',');
  }
  if (!Array.isArray(value)) {
    return [];
  }
  return value.filter((x): x is string => typeof x === 'string').map((x) => x.trim()).filter((x) => x.length > 0);
}

function optionalString(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function optionalNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function optionalChoice(value: unknown, choices: readonly string[]): string | null {
  return typeof value === 'string' && choices.includes(value) ? value : null;
}

/**
 * Normalise raw setting values. `get(key)` returns the value of `faithlint.<key>` (as
 * `vscode.workspace.getConfiguration('faithlint').get(key)` does) or undefined.
 */
export function readSettings(get: (key: string) => unknown): ExtensionSettings {
  const interpreter = get('interpreter');
  const single = optionalString(interpreter);
  const serverArgs = get('serverArgs');
  return {
    interpreter: Array.isArray(interpreter) ? stringList(interpreter) : single !== null ? [single] : [],
    serverArgs: Array.isArray(serverArgs) ? serverArgs.filter((x): x is string => typeof x === 'string' && x !== '') : [],
    model: optionalString(get('model')),
    debounce: optionalNumber(get('debounce')),
    select: stringList(get('select')),
    ignore: stringList(get('ignore')),
    failOn: optionalChoice(get('failOn'), FAIL_ON),
    topP: optionalNumber(get('topP')),
    aggregation: optionalChoice(get('aggregation'), AGGREGATION),
    unit: optionalChoice(get('unit'), UNIT),
    extraSettings: isRecord(get('extraSettings')) ? { ...(get('extraSettings') as Record<string, unknown>) } : {},
  };
}

/**
 * The settings object sent to the server, both as initializationOptions and as the answer to
 * workspace/configuration for the section "faithlint". Keys use the server's snake_case names.
 * Only settings the user set are included, so `faithlint.toml` in the workspace (a lower layer
 * on the server) keeps applying for everything else. `extraSettings` is passed through as is
 * (e.g. `rules`, `max_windows`); the dedicated settings win over it.
 */
export function toServerSettings(s: ExtensionSettings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(s.extraSettings)) {
    if (value !== null && value !== undefined) {
      out[key] = value;
    }
  }
  if (s.model !== null) {
    out.model = s.model;
  }
  if (s.debounce !== null) {
    out.debounce = Math.max(0, Math.round(s.debounce));
  }
  if (s.select.length > 0) {
    out.select = [...s.select];
  }
  if (s.ignore.length > 0) {
    out.ignore = [...s.ignore];
  }
  if (s.failOn !== null) {
    out.fail_on = s.failOn;
  }
  if (s.topP !== null) {
    out.top_p = s.topP;
  }
  if (s.aggregation !== null) {
    out.aggregation = s.aggregation;
  }
  if (s.unit !== null) {
    out.unit = s.unit;
  }
  return out;
}

/**
 * Keys of the initializationOptions the server started with that are gone from the current
 * settings. The server layers workspace/configuration over initializationOptions, so a key that
 * was removed would keep its old value there: the server has to be restarted to forget it.
 */
export function droppedKeys(initOptions: Record<string, unknown>, current: Record<string, unknown>): string[] {
  return Object.keys(initOptions).filter((key) => !(key in current));
}

export interface Variables {
  workspaceFolder?: string;
  userHome?: string;
  env?: Record<string, string | undefined>;
}

/** Expand `${workspaceFolder}`, `${userHome}`, `${env:NAME}` and a leading `~` in a setting value. */
export function expandVariables(value: string, vars: Variables): string {
  let out = value.replace(/\$\{(workspaceFolder|userHome|env:([^}]+))\}/g, (match, name: string, envName?: string) => {
    if (envName !== undefined) {
      return vars.env?.[envName] ?? '';
    }
    if (name === 'workspaceFolder') {
      return vars.workspaceFolder ?? match;
    }
    return vars.userHome ?? match;
  });
  if (vars.userHome && (out === '~' || out.startsWith('~/') || out.startsWith('~\\'))) {
    out = vars.userHome + out.slice(1);
  }
  return out;
}

export function defaultPython(platform: string): string {
  return platform === 'win32' ? 'python' : 'python3';
}

export interface ServerCommandOptions {
  /** `faithlint.interpreter` (normalised): empty means "not set". */
  interpreter: string[];
  /** The Python extension's selected interpreter (its command line), when available. */
  pythonExtension?: string[] | undefined;
  serverArgs: string[];
  platform: string;
  vars?: Variables;
}

export interface ServerCommand {
  command: string;
  args: string[];
  /** Where the interpreter came from, for the status report and the log. */
  source: 'setting' | 'python-extension' | 'default';
}

/**
 * `<python> -m faithlint serve [serverArgs...]`: python is `faithlint.interpreter` if set, else
 * the Python extension's selected interpreter, else `python3` (`python` on Windows).
 */
export function serverCommand(opts: ServerCommandOptions): ServerCommand {
  const vars = opts.vars ?? {};
  let python: string[];
  let source: ServerCommand['source'];
  if (opts.interpreter.length > 0) {
    python = opts.interpreter.map((part) => expandVariables(part, vars));
    source = 'setting';
  } else if (opts.pythonExtension && opts.pythonExtension.length > 0 && opts.pythonExtension[0]) {
    python = [...opts.pythonExtension];
    source = 'python-extension';
  } else {
    python = [defaultPython(opts.platform)];
    source = 'default';
  }
  const serverArgs = opts.serverArgs.map((arg) => expandVariables(arg, vars));
  return { command: python[0], args: [...python.slice(1), '-m', 'faithlint', 'serve', ...serverArgs], source };
}

/** Quote a command line for display (logs, status). */
export function formatCommandLine(command: string, args: string[]): string {
  return [command, ...args].map((part) => (/^[\w@%+=:,./\\-]+$/.test(part) ? part : JSON.stringify(part))).join(' ');
}

/**
 * Server commands that vscode-languageclient may register as VS Code commands: those the
 * extension registers itself are left out (they add the active document and would clash).
 */
export function serverCommandsToRegister(commands: readonly string[] | undefined): string[] {
  const own = new Set<string>(Object.values(CLIENT_COMMANDS));
  return (commands ?? []).filter((command) => !own.has(command));
}

/** Text for `faithlint.showStatus`: the client's view plus whatever `faithlint.status` returned. */
export function formatStatus(client: { state: string; commandLine: string; source: string }, server: unknown): string {
  const lines = [
    `client: ${client.state}`,
    `server command: ${client.commandLine} (python from ${client.source})`,
  ];
  if (server === undefined) {
    lines.push('server status: unavailable');
  } else if (typeof server === 'string') {
    lines.push(`server status: ${server}`);
  } else {
    lines.push('server status:', JSON.stringify(server, null, 2));
  }
  return lines.join('\n');
}
