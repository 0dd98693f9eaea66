// Unit tests for src/settings.ts (no VS Code needed): `npm test` runs them with `node --test`.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import {
  CLIENT_COMMANDS,
  DEFAULT_DEBOUNCE_MS,
  ExtensionSettings,
  SERVER_COMMANDS,
  droppedKeys,
  expandVariables,
  formatCommandLine,
  formatStatus,
  readSettings,
  serverCommand,
  serverCommandsToRegister,
  toServerSettings,
} from '../src/settings';

const ROOT = path.resolve(__dirname, '..', '..'); // out/test -> clients/vscode
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const properties: Record<string, any> = manifest.contributes.configuration.properties;

/** Settings as VS Code returns them when the user set nothing (package.json defaults). */
function defaults(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(properties)) {
    out[key.replace(/^faithlint\./, '')] = schema.default;
  }
  return out;
}

function settingsFrom(values: Record<string, unknown>): ExtensionSettings {
  const all = { ...defaults(), ...values };
  return readSettings((key) => all[key]);
}

describe('readSettings / toServerSettings', () => {
  it('sends only debounce when nothing is set, so faithlint.toml still applies', () => {
    const settings = settingsFrom({});
    assert.deepEqual(settings.interpreter, []);
    assert.deepEqual(settings.serverArgs, []);
    assert.deepEqual(toServerSettings(settings), { debounce: DEFAULT_DEBOUNCE_MS });
  });

  it('maps the VS Code settings to the server keys', () => {
    const settings = settingsFrom({
      model: ' ./models/checker ',
      debounce: 120.4,
      select: ['FL1', ' FL2 ', ''],
      ignore: ['FL400'],
      failOn: 'error',
      topP: 0.8,
      aggregation: 'weighted',
      unit: 'claim',
    });
    assert.deepEqual(toServerSettings(settings), {
      model: './models/checker',
      debounce: 120,
      select: ['FL1', 'FL2'],
      ignore: ['FL400'],
      fail_on: 'error',
      top_p: 0.8,
      aggregation: 'weighted',
      unit: 'claim',
    });
  });

  it('treats "default" choices, empty strings and empty lists as unset', () => {
    const settings = settingsFrom({ model: '  ', failOn: 'default', aggregation: 'default', unit: 'default', select: [], debounce: null });
    assert.deepEqual(toServerSettings(settings), {});
  });

  it('ignores values of the wrong type instead of sending them', () => {
    const settings = settingsFrom({ model: 3, debounce: 'soon', select: 'FL1, FL2', failOn: 'sometimes', topP: NaN });
    assert.deepEqual(toServerSettings(settings), { select: ['FL1', 'FL2'] });
  });

  it('passes extraSettings through, with the dedicated settings winning', () => {
    const settings = settingsFrom({
      extraSettings: { rules: { FL100: { severity: 'error' } }, max_windows: 6, model: 'other', top_k: null },
      model: 'mine',
    });
    assert.deepEqual(toServerSettings(settings), {
      rules: { FL100: { severity: 'error' } },
      max_windows: 6,
      model: 'mine',
      debounce: DEFAULT_DEBOUNCE_MS,
    });
  });

  it('never includes client-only settings', () => {
    const sent = toServerSettings(settingsFrom({ interpreter: '/usr/bin/python3', serverArgs: ['--tcp'] }));
    for (const key of ['interpreter', 'serverArgs', 'trace', 'extraSettings']) {
      assert.ok(!(key in sent), key);
    }
  });
});

describe('droppedKeys', () => {
  it('lists initializationOptions keys that are no longer set', () => {
    assert.deepEqual(droppedKeys({ model: 'x', debounce: 300 }, { debounce: 100 }), ['model']);
    assert.deepEqual(droppedKeys({ debounce: 300 }, { debounce: 100, model: 'y' }), []);
    assert.deepEqual(droppedKeys({}, {}), []);
  });
});

describe('serverCommand', () => {
  it('defaults to python3 -m faithlint serve (python on Windows)', () => {
    const posix = serverCommand({ interpreter: [], serverArgs: [], platform: 'linux' });
    assert.deepEqual(posix, { command: 'python3', args: ['-m', 'faithlint', 'serve'], source: 'default' });
    const windows = serverCommand({ interpreter: [], serverArgs: [], platform: 'win32' });
    assert.equal(windows.command, 'python');
  });

  it('prefers faithlint.interpreter, then the Python extension', () => {
    const fromSetting = serverCommand({
      interpreter: ['/opt/venv/bin/python'],
      pythonExtension: ['/ext/python'],
      serverArgs: [],
      platform: 'linux',
    });
    assert.equal(fromSetting.command, '/opt/venv/bin/python');
    assert.equal(fromSetting.source, 'setting');
    const fromExtension = serverCommand({ interpreter: [], pythonExtension: ['/ext/python'], serverArgs: [], platform: 'linux' });
    assert.deepEqual(fromExtension, { command: '/ext/python', args: ['-m', 'faithlint', 'serve'], source: 'python-extension' });
  });

  it('keeps an interpreter command line and appends serverArgs after serve', () => {
    const cmd = serverCommand({
      interpreter: ['conda', 'run', '-n', 'lint', 'python'],
      serverArgs: ['--log-file', '${workspaceFolder}/faithlint.log'],
      platform: 'linux',
      vars: { workspaceFolder: '/ws' },
    });
    assert.equal(cmd.command, 'conda');
    assert.deepEqual(cmd.args, ['run', '-n', 'lint', 'python', '-m', 'faithlint', 'serve', '--log-file', '/ws/faithlint.log']);
  });

  it('expands variables in the interpreter', () => {
    const cmd = serverCommand({
      interpreter: ['${workspaceFolder}/.venv/bin/python'],
      serverArgs: [],
      platform: 'linux',
      vars: { workspaceFolder: '/ws' },
    });
    assert.equal(cmd.command, '/ws/.venv/bin/python');
  });

  it('reads the interpreter setting as a string or a list', () => {
    assert.deepEqual(settingsFrom({ interpreter: ' /usr/bin/python3.11 ' }).interpreter, ['/usr/bin/python3.11']);
    assert.deepEqual(settingsFrom({ interpreter: ['py', '-3'] }).interpreter, ['py', '-3']);
    assert.deepEqual(settingsFrom({ interpreter: '' }).interpreter, []);
  });
});

describe('expandVariables', () => {
  const vars = { workspaceFolder: '/ws', userHome: '/home/me', env: { VENV: '/venvs/a' } };
  it('expands workspaceFolder, userHome, env and ~', () => {
    assert.equal(expandVariables('${workspaceFolder}/x', vars), '/ws/x');
    assert.equal(expandVariables('${userHome}/y', vars), '/home/me/y');
    assert.equal(expandVariables('${env:VENV}/bin/python', vars), '/venvs/a/bin/python');
    assert.equal(expandVariables('${env:MISSING}', vars), '');
    assert.equal(expandVariables('~/venv/bin/python', vars), '/home/me/venv/bin/python');
    assert.equal(expandVariables('a~b', vars), 'a~b');
  });
  it('leaves unknown variables and missing folders alone', () => {
    assert.equal(expandVariables('${workspaceFolder}/x', {}), '${workspaceFolder}/x');
    assert.equal(expandVariables('${other}', vars), '${other}');
  });
});

describe('commands', () => {
  it('keeps the server commands the extension registers itself out of the client registration', () => {
    assert.deepEqual(
      serverCommandsToRegister([SERVER_COMMANDS.recheckDocument, SERVER_COMMANDS.recheckWorkspace, SERVER_COMMANDS.status, 'faithlint.applyFix']),
      [SERVER_COMMANDS.status, 'faithlint.applyFix'],
    );
    assert.deepEqual(serverCommandsToRegister(undefined), []);
  });

  it('formats the command line and the status', () => {
    assert.equal(formatCommandLine('/a b/python', ['-m', 'faithlint', 'serve']), '"/a b/python" -m faithlint serve');
    const text = formatStatus({ state: 'Running', commandLine: 'python3 -m faithlint serve', source: 'default' }, { documents: 2 });
    assert.match(text, /client: Running/);
    assert.match(text, /"documents": 2/);
    assert.match(formatStatus({ state: 'Stopped', commandLine: 'x', source: 'default' }, undefined), /unavailable/);
  });
});

describe('package.json', () => {
  it('contributes every command the extension registers', () => {
    const contributed = manifest.contributes.commands.map((c: { command: string }) => c.command).sort();
    assert.deepEqual(contributed, Object.values(CLIENT_COMMANDS).sort());
  });

  it('contributes the documented settings', () => {
    for (const key of ['interpreter', 'serverArgs', 'model', 'debounce', 'select', 'ignore', 'failOn', 'trace.server']) {
      assert.ok(`faithlint.${key}` in properties, key);
    }
    assert.equal(properties['faithlint.debounce'].default, DEFAULT_DEBOUNCE_MS);
  });

  it('keeps the vscode module out of the logic module', () => {
    const source = fs.readFileSync(path.join(ROOT, 'src', 'settings.ts'), 'utf8');
    assert.doesNotMatch(source, /from ['"]vscode['"]|require\(['"]vscode['"]\)/);
  });
});
