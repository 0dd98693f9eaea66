// The packaged code is dist/extension.js alone (see .vscodeignore): check that the esbuild bundle
// loads with nothing but the `vscode` module provided by the editor, and exports the entry points.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { it } from 'node:test';

import { standIn } from './stand-in';

const ROOT = path.resolve(__dirname, '..', '..'); // out/test -> clients/vscode
const BUNDLE = path.join(ROOT, 'dist', 'extension.js');

it('dist/extension.js loads with only `vscode` external and exports activate/deactivate', { skip: !fs.existsSync(BUNDLE) && 'run `npm run bundle` first' }, () => {
  const Module = require('node:module');
  const originalLoad = Module._load;
  const requested: string[] = [];
  Module._load = function (request: string, ...rest: unknown[]) {
    if (request === 'vscode') {
      return standIn('vscode');
    }
    if (!request.startsWith('node:') && !Module.builtinModules.includes(request) && request !== BUNDLE) {
      requested.push(request);
    }
    return originalLoad.call(this, request, ...rest);
  };
  try {
    const extension = require(BUNDLE);
    assert.equal(typeof extension.activate, 'function');
    assert.equal(typeof extension.deactivate, 'function');
    assert.deepEqual(requested, [], `the bundle requires modules that are not shipped: ${requested.join(', ')}`);
  } finally {
    Module._load = originalLoad;
  }
});
