"""End-to-end tests of the Neovim client (clients/nvim) in a real headless Neovim.

* ``test_nvim_plugin_with_fake_server``: the plugin against a tiny stdlib LSP server
  (tests/fixtures/nvim/fake_server.py); fast, no models. Checks that the plugin starts the
  server for Markdown and text buffers, passes settings as initializationOptions and answers
  workspace/configuration, reuses one client per root, and runs server commands.
* ``test_nvim_real_server_publishes_diagnostics``: the plugin against
  ``sys.executable -m faithlint serve`` on (a copy of) examples/rag-answer/answer.md and its
  sibling answer.context.md; polls (up to ~120 s, the models load) for diagnostics and checks
  one has source "faithlint" and a code starting with "FL". It stops waiting early when the
  server exits, or when it has published only other diagnostics (e.g. "the model is missing")
  that stayed unchanged for 20 s.

Both skip only when ``nvim`` is not installed. The diagnostics Neovim received are written to
JSON (in the test's tmp folder, and also to ``$FAITHLINT_ARTIFACTS_DIR`` when that is set).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLUGIN_DIR = ROOT / "clients" / "nvim"
FAKE_SERVER = Path(__file__).resolve().parent / "fixtures" / "nvim" / "fake_server.py"
EXAMPLE_DIR = ROOT / "examples" / "rag-answer"

# $FAITHLINT_TEST_NVIM picks another Neovim binary (e.g. to try a newer version than the system's).
NVIM = os.environ.get("FAITHLINT_TEST_NVIM") or shutil.which("nvim")
needs_nvim = pytest.mark.skipif(NVIM is None, reason="nvim (Neovim) is not installed; apt-get install -y neovim")

# Runs inside Neovim (`nvim --headless -u NONE ... -S driver.lua`). Parameters come from the
# JSON file named by $FAITHLINT_NVIM_PARAMS; results go to params.output as JSON.
DRIVER_LUA = r"""
local params = vim.fn.json_decode(table.concat(vim.fn.readfile(os.getenv("FAITHLINT_NVIM_PARAMS")), "\n"))
local out = { steps = {} }
local uv = vim.uv or vim.loop

local function write_out()
  vim.fn.writefile({ vim.fn.json_encode(out) }, params.output)
end

local function plain(diags)
  local list = {}
  for _, d in ipairs(diags) do
    local lsp = (type(d.user_data) == "table" and type(d.user_data.lsp) == "table") and d.user_data.lsp or {}
    local code = d.code
    if code == nil then code = lsp.code end
    table.insert(list, {
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      severity = d.severity, message = d.message, source = d.source, code = code,
    })
  end
  return list
end

local function client_ids(bufnr)
  local ids = {}
  for _, c in ipairs(require("faithlint").clients(bufnr)) do
    table.insert(ids, c.id)
  end
  table.sort(ids)
  return ids
end

-- Wait until the buffer has a diagnostic (with a code starting with params.want_code_prefix, when
-- given). Stops early when the server exits, or when params.settle_ms is set and other
-- diagnostics have stayed unchanged that long (the server settled on something else).
local function open_and_wait(file)
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  local last, changed_at = nil, uv.now()
  local ok = vim.wait(params.timeout_ms, function()
    if out.server_exit then return true end -- the server died: no point waiting any longer
    local diags = vim.diagnostic.get(bufnr)
    for _, d in ipairs(diags) do
      local code = d.code ~= nil and tostring(d.code) or ""
      if params.want_code_prefix == nil or code:sub(1, #params.want_code_prefix) == params.want_code_prefix then
        return true
      end
    end
    local now = vim.fn.json_encode(plain(diags))
    if now ~= last then last, changed_at = now, uv.now() end
    return params.settle_ms ~= nil and #diags > 0 and uv.now() - changed_at >= params.settle_ms
  end, 100)
  return bufnr, ok
end

local ok, err = xpcall(function()
  local v = vim.version()
  out.nvim_version = string.format("%d.%d.%d", v.major, v.minor, v.patch)
  out.has_lsp_start = vim.lsp.start ~= nil
  out.log_path = require("vim.lsp.log").get_filename()
  vim.opt.runtimepath:prepend(params.plugin_dir)
  vim.cmd("filetype on")
  if params.force_legacy then
    vim.lsp.start = nil -- exercise the Neovim 0.7 code path on newer versions too
  end
  local opts = {
    cmd = params.cmd,
    root_markers = params.root_markers,
    on_exit = function(code, signal)
      if not out.quitting then out.server_exit = { code = code, signal = signal } end
    end,
  }
  if params.settings ~= vim.NIL and params.settings ~= nil then
    opts.settings = params.settings
  end
  require("faithlint").setup(opts)

  for i, file in ipairs(params.files) do
    local bufnr, got = open_and_wait(file)
    local step = {
      file = file, filetype = vim.bo[bufnr].filetype, got = got,
      diagnostics = plain(vim.diagnostic.get(bufnr)), clients = client_ids(bufnr),
    }
    if got and params.recheck and i == 1 then
      require("faithlint").recheck_document(bufnr)
      step.recheck_got = vim.wait(params.timeout_ms, function()
        for _, d in ipairs(vim.diagnostic.get(bufnr)) do
          if d.message ~= step.diagnostics[1].message then return true end
        end
        return false
      end, 50)
      step.after_recheck = plain(vim.diagnostic.get(bufnr))
    end
    table.insert(out.steps, step)
    write_out()
  end
  for _, file in ipairs(params.ignored_files or {}) do
    vim.cmd("edit " .. vim.fn.fnameescape(file))
    local bufnr = vim.api.nvim_get_current_buf()
    vim.wait(300, function() return false end, 50)
    table.insert(out.steps, { file = file, filetype = vim.bo[bufnr].filetype, clients = client_ids(bufnr),
                              diagnostics = plain(vim.diagnostic.get(bufnr)), ignored = true })
  end
  out.all_clients = client_ids(nil)
  if params.status then
    require("faithlint").execute("faithlint.status", {}, function(result) out.status = result end)
    vim.wait(params.timeout_ms, function() return out.status ~= nil end, 50)
  end
  if params.restart then
    local before = out.all_clients
    require("faithlint").restart()
    vim.wait(params.timeout_ms, function()
      local now = client_ids(nil)
      return #now > 0 and now[1] ~= before[1]
    end, 50)
    out.clients_after_restart = client_ids(nil)
    -- Both drafts get diagnostics from the new client (so its server has seen them opened).
    local new_id = out.clients_after_restart[1]
    out.restart_diagnostics = new_id ~= nil and vim.wait(params.timeout_ms, function()
      for _, file in ipairs(params.files) do
        local ns = vim.lsp.diagnostic.get_namespace(new_id)
        if #vim.diagnostic.get(vim.fn.bufnr(file), { namespace = ns }) == 0 then return false end
      end
      return true
    end, 50)
    out.buffer_clients_after_restart = {}
    for _, file in ipairs(params.files) do
      table.insert(out.buffer_clients_after_restart, client_ids(vim.fn.bufnr(file)))
    end
  end
end, debug.traceback)

if not ok then out.error = err end
out.quitting = true
write_out()
vim.cmd("qa!")
"""


def run_nvim(tmp_path: Path, params: dict[str, Any], timeout: float) -> dict[str, Any]:
    """Run headless Neovim with the driver; return the JSON it wrote (plus log text for messages)."""
    assert NVIM is not None
    out_path = tmp_path / "nvim-result.json"
    params = {"plugin_dir": str(PLUGIN_DIR), "output": str(out_path), **params}
    params_path = tmp_path / "nvim-params.json"
    params_path.write_text(json.dumps(params), encoding="utf-8")
    driver = tmp_path / "driver.lua"
    driver.write_text(DRIVER_LUA, encoding="utf-8")
    env = dict(os.environ)
    env.update({
        "FAITHLINT_NVIM_PARAMS": str(params_path),
        # lsp.log (cache dir on 0.7, state dir on >= 0.8) and shada stay inside tmp_path.
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        # The server runs as `sys.executable -m faithlint serve` from tmp_path: import this checkout.
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    })
    cmd = [NVIM, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-S", str(driver)]
    try:
        proc = subprocess.run(cmd, cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=timeout)
        nvim_output = (proc.stdout + proc.stderr)[-4000:]
    except subprocess.TimeoutExpired as exc:
        nvim_output = f"nvim did not exit within {timeout} s: {exc}"
    result: dict[str, Any] = json.loads(out_path.read_text(encoding="utf-8")) if out_path.exists() else {}
    log_path = Path(result.get("log_path") or "")
    log_tail = log_path.read_text(encoding="utf-8", errors="replace")[-6000:] if log_path.is_file() else ""
    result["_debug"] = f"nvim output:\n{nvim_output}\nlsp.log tail:\n{log_tail}"
    return result


def save_artifact(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    text = json.dumps(data, indent=2, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    artifacts = os.environ.get("FAITHLINT_ARTIFACTS_DIR")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        (Path(artifacts) / name).write_text(text, encoding="utf-8")
    return path


def copy_example(tmp_path: Path) -> Path:
    """The example draft and its sibling context, in a folder of their own (the server's root)."""
    work = tmp_path / "rag-answer"
    shutil.copytree(EXAMPLE_DIR, work)
    return work


# ----------------------------------------------------------------------------------- fake server
@needs_nvim
@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_nvim_plugin_with_fake_server(tmp_path: Path, mode: str) -> None:
    work = copy_example(tmp_path)
    (work / "faithlint.toml").write_text("", encoding="utf-8")  # root marker
    notes = work / "notes.txt"
    notes.write_text("A plain text draft.\n", encoding="utf-8")
    script = work / "script.py"
    script.write_text("print('not a draft')\n", encoding="utf-8")
    settings = {"model": "tiny-test-model", "debounce": 50, "select": ["FL1", "FL2"], "fail_on": "error"}

    result = run_nvim(tmp_path, {
        "cmd": [sys.executable, str(FAKE_SERVER), "--record", str(tmp_path / "fake-record-{n}.json")],
        "settings": settings,
        "root_markers": ["faithlint.toml", ".git"],
        "files": [str(work / "answer.md"), str(notes)],
        "ignored_files": [str(script)],
        "recheck": True,
        "status": True,
        "restart": True,
        "force_legacy": mode == "legacy",
        "timeout_ms": 15000,
    }, timeout=60)
    save_artifact(tmp_path, f"nvim-fake-diagnostics-{mode}.json", result.get("steps"))
    debug = result.get("_debug", "")
    assert "error" not in result, f"{result.get('error')}\n{debug}"
    md, txt, py = result["steps"]

    # Markdown buffer: attached, one diagnostic as published, recheck command round-trips.
    assert md["filetype"] == "markdown"
    assert md["got"], f"no diagnostics in the Markdown buffer\n{debug}"
    assert md["diagnostics"][0]["source"] == "faithlint"
    assert md["diagnostics"][0]["code"] == "FL100"
    assert md["diagnostics"][0]["message"] == "fake diagnostic #1"
    assert md["recheck_got"], f"recheckDocument did not publish again\n{debug}"
    assert md["after_recheck"][0]["message"] == "fake diagnostic #2"
    # Text buffer: same root, so the same client is reused.
    assert txt["filetype"] == "text"
    assert txt["got"], f"no diagnostics in the text buffer\n{debug}"
    assert txt["clients"] == md["clients"] and len(md["clients"]) == 1
    # Other filetypes get no client.
    assert py["filetype"] == "python" and py["clients"] == []
    assert result["all_clients"] == md["clients"]
    # Server commands answer; a restart replaces the client and re-attaches the open buffers.
    assert result["status"] == {"server": "faithlint-fake", "documents": 2}
    assert len(result["clients_after_restart"]) == 1 and result["clients_after_restart"] != md["clients"]
    assert result["restart_diagnostics"], f"no diagnostics from the restarted server\n{debug}"
    assert result["buffer_clients_after_restart"] == [result["clients_after_restart"]] * 2  # answer.md, notes.txt

    record = json.loads((tmp_path / "fake-record-1.json").read_text(encoding="utf-8"))
    init = record["initialize"]
    assert init["initializationOptions"] == settings
    assert init["rootUri"] == work.resolve().as_uri()
    assert [f["uri"] for f in init["workspaceFolders"]] == [work.resolve().as_uri()]
    assert record["configuration"] == [settings]
    assert record["did_change_configuration"] == [{"faithlint": settings}]
    assert record["commands"][0] == {"command": "faithlint.recheckDocument",
                                     "arguments": [(work / "answer.md").resolve().as_uri()]}
    assert (work / "answer.md").resolve().as_uri() in record["opened"]
    assert notes.resolve().as_uri() in record["opened"]
    assert record["shutdown"], "the first server was not shut down by the restart"
    # The server started by the restart got the same settings and both open drafts.
    second = json.loads((tmp_path / "fake-record-2.json").read_text(encoding="utf-8"))
    assert second["initialize"]["initializationOptions"] == settings
    assert sorted(second["opened"]) == sorted([(work / "answer.md").resolve().as_uri(), notes.resolve().as_uri()])
    assert not (tmp_path / "fake-record-3.json").exists()


@needs_nvim
def test_nvim_plugin_sends_objects_for_empty_settings(tmp_path: Path) -> None:
    """With no settings the server must still get JSON objects ({}), never arrays ([])."""
    work = copy_example(tmp_path)
    record_path = tmp_path / "fake-record.json"
    result = run_nvim(tmp_path, {
        "cmd": [sys.executable, str(FAKE_SERVER), "--record", str(record_path)],
        "settings": None,
        "root_markers": ["faithlint.toml"],  # none present: single-file mode, root = the file's folder
        "files": [str(work / "answer.md")],
        "timeout_ms": 15000,
    }, timeout=60)
    debug = result.get("_debug", "")
    assert "error" not in result, f"{result.get('error')}\n{debug}"
    assert result["steps"][0]["got"], f"no diagnostics\n{debug}"
    record = json.loads(record_path.read_text(encoding="utf-8"))
    assert record["initialize"]["initializationOptions"] == {}
    assert record["initialize"]["rootUri"] == work.resolve().as_uri()
    assert record["configuration"] == [{}]
    assert record["did_change_configuration"] == [{"faithlint": {}}]


# ----------------------------------------------------------------------------------- real server
@needs_nvim
@pytest.mark.slow
def test_nvim_real_server_publishes_diagnostics(tmp_path: Path) -> None:
    work = copy_example(tmp_path)
    result = run_nvim(tmp_path, {
        "cmd": [sys.executable, "-m", "faithlint", "serve"],
        "settings": {"debounce": 100},
        "root_markers": ["faithlint.toml", ".git"],
        "files": [str(work / "answer.md")],
        "want_code_prefix": "FL",  # the server may publish other diagnostics (e.g. a setup problem) first
        "settle_ms": 20_000,  # ...and if that is all it publishes for 20 s, stop waiting
        "timeout_ms": 120_000,
    }, timeout=180)
    steps = result.get("steps") or [{}]
    diagnostics = steps[0].get("diagnostics") or []
    path = save_artifact(tmp_path, "nvim-diagnostics.json", diagnostics)
    debug = result.get("_debug", "")
    assert "error" not in result, f"{result.get('error')}\n{debug}"
    assert "server_exit" not in result, f"the server exited early: {result['server_exit']}\n{debug}"
    assert steps[0].get("filetype") == "markdown"
    assert diagnostics, f"Neovim got no diagnostics within 120 s (saved: {path})\n{debug}"
    ours = [d for d in diagnostics if d.get("source") == "faithlint" and str(d.get("code") or "").startswith("FL")]
    assert ours, (f"no diagnostic with source 'faithlint' and an FL code (saved: {path}):\n"
                  f"{json.dumps(diagnostics, indent=2, ensure_ascii=False)}\n{debug}")
