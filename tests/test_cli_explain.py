"""Explain and show: ``faithlint rule``, ``check --show-settings / --show-pairing / --statistics``, the status line
while models load, help texts and shell completion. Real subprocesses; only the tests marked slow load models."""

from __future__ import annotations

import argparse
import json
import os
import pty
import select
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from faithlint.cli.app import build_parser
from faithlint.config import Config, load_config, merge_overrides
from faithlint.rules import RULES, docs

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "rag-answer"
HEAVY = ("onnxruntime", "openvino", "torch", "transformers")
# runs the CLI, then says on stderr's last line which model runtimes were imported
PROBE = ("import sys\nfrom faithlint.cli.app import main\ntry:\n    raise SystemExit(main(sys.argv[1:]))\nfinally:\n"
         f"    print('LOADED', [m for m in {HEAVY!r} if m in sys.modules], file=sys.stderr)")


def run(*args: str, cwd: Path = ROOT, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "faithlint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, **kw)


def run_light(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """Run the CLI and assert that no model runtime was even imported."""
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    last = proc.stderr.strip().splitlines()[-1]
    assert last == "LOADED []", proc.stderr
    proc.stderr = proc.stderr.rsplit("LOADED", 1)[0]
    return proc


# ------------------------------------------------------------------------------------------- faithlint rule
def test_rule_prints_its_documentation_offline():
    proc = run_light("rule", "FL100")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    rule = RULES["FL100"]
    default = rule.threshold.default
    for needle in ("FL100 contradiction", rule.summary, "Default severity: error",
                   f"{docs.grounded_thresholds()['FL100']:g} with grounding (the default), {default:g} without",
                   "compared with P(contradiction)", "A contradiction needs common ground", rule.example.draft,
                   "[rules.FL100]", "--ignore FL100", "<!-- faithlint-disable-next-line FL100 -->",
                   "<!-- faithlint-disable-line FL100 -->", "docs/rules.md#fl100"):
        assert needle in out, needle


def test_rule_shows_what_the_config_here_makes_of_it(tmp_path: Path):
    (tmp_path / "faithlint.toml").write_text('ignore = ["FL3"]\n[rules.FL200]\nthreshold = 0.2\nseverity = "error"\n')
    fl200 = run_light("rule", "fl200", cwd=tmp_path).stdout
    assert "on, severity error, threshold 0.2" in fl200 and "faithlint.toml" in fl200
    assert "off (select/ignore)" in run_light("rule", "FL300", cwd=tmp_path).stdout


def test_rule_without_code_lists_every_registered_rule():
    proc = run_light("rule")
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert len(lines) == len(RULES)
    for line, rule in zip(lines, RULES.values()):
        assert line.split()[:3] == [rule.code, rule.name, rule.severity] and line.endswith(rule.summary)


def test_rule_json():
    one = json.loads(run_light("rule", "FL400", "--output-format", "json").stdout)
    assert one["code"] == "FL400" and one["severity"] == "warning" and one["threshold"] == 0.3
    assert "<!-- faithlint-disable-next-line FL400 -->" in one["suppress"]
    every = json.loads(run_light("rule", "--output-format", "json").stdout)
    assert [r["code"] for r in every] == list(RULES)


@pytest.mark.parametrize("args", [("rule", "FL999"), ("rule", "nope")])
def test_unknown_rule_is_one_line_exit_2(args):
    proc = run_light(*args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [f"faithlint: error: unknown rule code '{args[1]}' (known: "
                                                f"{', '.join(RULES)})"]


def test_every_rule_is_documented_and_docs_rules_md_is_generated_from_the_registry():
    for rule in RULES.values():
        assert rule.summary and rule.explanation.strip() and rule.example is not None, rule.code
        assert rule.severity in ("error", "warning", "info")
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert docs.markdown_all(list(RULES.values())) in text, \
        "docs/rules.md is out of date: python -m faithlint.rules.docs docs/rules.md"
    for code in RULES:
        assert f"\n## {code}\n" in text
    generated = run_light("rule", "--all", "--output-format", "markdown").stdout
    assert generated == docs.markdown_all(list(RULES.values()))


@pytest.mark.slow
def test_each_rules_documented_example_triggers_it(tmp_path):
    """The examples `faithlint rule` shows are true of the bundled model (a record as the file it names)."""
    from faithlint import api

    for rule in RULES.values():
        ex = rule.example
        context: str | Path = ex.context
        if ex.context_file:
            (context := tmp_path / ex.context_file).write_text(ex.context, encoding="utf-8")
        res = api.check(ex.draft, context, config=dict(ex.settings), markdown=False)
        assert rule.code in {f.code for f in res.findings}, (rule.code, [f.code for f in res.findings])


# ------------------------------------------------------------------------------------------- --show-settings
def _toml_blocks(out: str) -> list[tuple[list[str], dict]]:
    blocks = []
    for block in out.split("\n# drafts: "):
        block = block.removeprefix("# drafts: ")
        blocks.append((block.splitlines()[0].split(", "), tomllib.loads("# " + block)))
    return blocks


def test_show_settings_on_the_example_are_the_defaults(tmp_path: Path):
    proc = run_light("check", "examples/rag-answer/answer.md", "--show-settings")
    assert proc.returncode == 0, proc.stderr
    assert "# drafts: examples/rag-answer/answer.md\n# config file: none found (defaults)\n" in proc.stdout
    (_, data), = _toml_blocks(proc.stdout)
    assert Config(**data) == Config()  # the TOML printed is valid and is exactly the settings
    assert list(data) == ["models", "drafts", "retrieval", "scoring", "claims", "llm", "fix", "cache", "rules"]
    assert "\n[retrieval]\ncontext_split = \"parser\"\n" in proc.stdout and "\n# surrogate is unset\n" in proc.stdout
    (tmp_path / "faithlint.toml").write_text(proc.stdout, encoding="utf-8")  # in sections, as a config file
    assert load_config(tmp_path / "faithlint.toml")[0] == Config()


def test_show_settings_per_draft_config_with_overrides(tmp_path: Path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "faithlint.toml").write_text(
        'top_p = 0.8\n[rules.FL200]\nthreshold = 0.2\n[[pair]]\ndraft = "*.md"\ncontext = ["src/"]\n')
    (tmp_path / "b" / "pyproject.toml").write_text('[tool.faithlint]\nunit = "claim"\n')
    for name in ("a/one.md", "a/two.md", "b/three.md"):
        (tmp_path / name).write_text("A sentence.\n")
    proc = run_light("check", "a", "b/three.md", "--show-settings", "--select", "FL2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    blocks = _toml_blocks(proc.stdout)
    assert [b[0] for b in blocks] == [["a/one.md", "a/two.md"], ["b/three.md"]]
    assert "# config file: a/faithlint.toml" in proc.stdout and "# config file: b/pyproject.toml" in proc.stdout
    assert proc.stdout.count("# command line: --select") == 2
    assert "top_p = 0.8  # default: 0.9" in proc.stdout
    for (_, data), folder in zip(blocks, ("a", "b")):
        expected = merge_overrides(load_config(None, start=tmp_path / folder)[0], {"select": ["FL2"]})
        assert Config(**data) == expected
        assert data["rules"]["select"] == ["FL2"] and data["retrieval"]["top_p"] == expected.top_p
    rows = json.loads(run_light("check", "a", "b/three.md", "--show-settings", "--format", "json",
                                cwd=tmp_path).stdout)
    assert [r["config_file"] for r in rows] == ["a/faithlint.toml", "b/pyproject.toml"]
    assert rows[0]["settings"]["rules"]["FL200"]["threshold"] == 0.2 and rows[1]["settings"]["unit"] == "claim"


def test_show_settings_bad_config_is_one_line_exit_2(tmp_path: Path):
    (tmp_path / "faithlint.toml").write_text("top_p = 7\n")
    (tmp_path / "d.md").write_text("A sentence.\n")
    proc = run_light("check", "d.md", "--show-settings", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("faithlint: error:") and "top_p" in proc.stderr


# ------------------------------------------------------------------------------------------- --show-pairing
def test_show_pairing_on_the_example():
    proc = run_light("check", "examples/rag-answer", "--show-pairing")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ("examples/rag-answer/answer.md\n"
                           "  context: examples/rag-answer/answer.context.md  [sibling of the draft]\n"
                           "  query:   What changed at the Riverside Public Library?  [front matter 'query:']\n"
                           "  config:  none found (defaults)\n")


def test_show_pairing_every_source_and_an_unpaired_draft(tmp_path: Path):
    (tmp_path / "faithlint.toml").write_text('[[pair]]\ndraft = "rules/*.md"\ncontext = ["src/{stem}.txt"]\n'
                                             'query_file = "q/{stem}.txt"\n')
    for name, text in {"src/r.txt": "Source.", "q/r.txt": "What is it?", "rules/r.md": "A sentence.",
                       "fm.md": "---\ncontext: src/r.txt\n---\nA sentence.", "lone.md": "A sentence.",
                       "cli.md": "A sentence."}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text + "\n")
    proc = run_light("check", "fm.md", "lone.md", "rules/r.md", "--show-pairing", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr  # lone.md cannot be paired: shown, and the exit code says so
    out = proc.stdout
    assert "fm.md\n  context: src/r.txt  [front matter 'context:']\n  query:   none\n" in out
    assert ("rules/r.md\n  context: src/r.txt  [[[pair]] rule 1 in faithlint.toml]\n"
            "  query:   What is it?  [[[pair]] rule 1 in faithlint.toml]\n  config:  faithlint.toml\n") in out
    lone = out.split("lone.md\n", 1)[1].split("rules/r.md", 1)[0]
    assert lone.startswith("  context: none\n  query:   none\n  config:  faithlint.toml\n"
                           "  error: lone.md: no context found")
    rows = json.loads(run_light("check", "cli.md", "--context", "src/", "--query", "Why?", "--show-pairing",
                                "--format", "json", cwd=tmp_path).stdout)
    assert rows == [{"draft": "cli.md", "config_file": "faithlint.toml", "context": ["src/"],
                     "context_from": "--context", "query": "Why?", "query_from": "--query", "problems": []}]


@pytest.mark.parametrize("extra", [("--format", "sarif"), ("-o", "out.txt"), ("--fix",)])
def test_views_refuse_what_they_cannot_do(extra):
    proc = run_light("check", "examples/rag-answer", "--show-pairing", *extra)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().startswith("faithlint: error: --show-pairing")


# ------------------------------------------------------------------------------------------- --statistics, status
def _in_pty(*args: str) -> tuple[int, str]:
    """Run the CLI with stdout and stderr on a terminal; returns its exit code and everything it wrote."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: stdin, stdout and stderr are the pty
        os.chdir(ROOT)
        os.execv(sys.executable, [sys.executable, "-m", "faithlint", *args])
    chunks = []
    while True:
        ready, _, _ = select.select([fd], [], [], 300)
        if not ready:
            break
        try:
            data = os.read(fd, 4096)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.slow
def test_statistics_and_the_loading_status_line():
    report = run("check", "examples/rag-answer", "--format", "json", "--no-progress")
    counts = Counter(f["code"] for r in json.loads(report.stdout)["results"] for f in r["findings"])
    assert counts, report.stdout
    assert "loading models" not in report.stderr  # a pipe: no status line

    proc = run("check", "examples/rag-answer", "--statistics")
    assert proc.returncode == report.returncode == 1
    expected = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    width = len(str(expected[0][1]))
    assert proc.stdout == "".join(f"{n:>{width}}  {c:<6} {RULES[c].name}\n" for c, n in expected)
    assert "loading models" not in proc.stderr
    rows = json.loads(run("check", "examples/rag-answer", "--statistics", "--format", "json").stdout)
    assert {r["code"]: r["count"] for r in rows} == counts

    code, out = _in_pty("check", "examples/rag-answer", "--statistics")
    assert code == 1
    assert "faithlint: loading models\u2026\r\x1b[2K" in out  # shown in a terminal, then cleared
    assert out.replace("\r\n", "\n").endswith(proc.stdout)
    code, out = _in_pty("check", "examples/rag-answer", "--statistics", "--no-progress")
    assert code == 1 and "loading models" not in out


def test_statistics_refuses_diff_and_jsonl():
    for extra in (("--diff",), ("--format", "jsonl")):
        proc = run_light("check", "examples/rag-answer", "--statistics", *extra)
        assert proc.returncode == 2 and proc.stderr.startswith("faithlint: error: --statistics"), proc.stderr


# ------------------------------------------------------------------------------------------- help, completion
def _actions(parser: argparse.ArgumentParser, prog: str = "faithlint"):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _actions(sub, f"{prog} {name}")
        elif not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            yield prog, action


def test_every_flag_of_every_command_has_help_naming_its_default():
    seen = set()
    for prog, action in _actions(build_parser()):
        seen.add(prog)
        name = action.option_strings[0] if action.option_strings else action.dest
        assert action.help, f"{prog} {name}: no help text"
        if action.default not in (None, False, [], argparse.SUPPRESS):
            assert "default" in action.help, f"{prog} {name}: the help does not say its default ({action.default!r})"
    assert {f"faithlint {c}" for c in ("check", "fix", "synth", "train", "train-monitor", "serve", "watch", "rule",
                                       "completion")} <= seen


def test_check_help_has_description_exit_codes_and_examples():
    out = run_light("check", "--help").stdout
    assert "Every sentence the context does not support is reported" in out
    assert "exit codes:\n  0 " in out and "\n  1 " in out and "\n  2 " in out
    assert "examples:\n  faithlint check answer.md" in out and "--show-pairing" in out and "faithlint rule" in out


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_script(shell):
    proc = run_light("completion", shell)
    assert proc.returncode == 0 and "faithlint" in proc.stdout and "_ARGCOMPLETE" in proc.stdout


def _complete(line: str, tmp_path: Path, shell: str = "bash") -> list[str]:
    out = tmp_path / "completions"
    env = {**os.environ, "_ARGCOMPLETE": "1", "COMP_LINE": line, "COMP_POINT": str(len(line)),
           "_ARGCOMPLETE_STDOUT_FILENAME": str(out), "_ARGCOMPLETE_SHELL": shell}
    proc = subprocess.run([sys.executable, "-m", "faithlint"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    if shell == "zsh":  # "choice:description", one per vertical tab
        return out.read_text().split("\x0b")
    return out.read_text().replace("\x0b", " ").split()


def test_argcomplete_completes_commands_flags_and_rule_codes(tmp_path: Path):
    assert _complete("faithlint ch", tmp_path) == ["check"]
    assert _complete("faithlint check --show-", tmp_path) == ["--show-settings", "--show-pairing"]
    assert _complete("faithlint rule FL2", tmp_path) == ["FL200", "FL210"]
    assert _complete("faithlint check --format j", tmp_path) == ["json", "jsonl"]


def test_format_completion_shows_each_formats_help_line_from_the_registry(tmp_path: Path):
    from faithlint.report import get, names

    got = _complete("faithlint check --format ", tmp_path, shell="zsh")
    assert got == [f"{name}:{get(name).help}" for name in names()]
    assert "sarif:SARIF 2.1.0 for code scanning" in got[names().index("sarif")]


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_completes_with_the_printed_script(tmp_path: Path):
    """bash itself: source `faithlint completion bash` and call the function it registered for faithlint."""
    script = ('eval "$(faithlint completion bash)"; COMP_LINE="faithlint ch"; COMP_POINT=${#COMP_LINE}; '
              'COMP_WORDS=(faithlint ch); COMP_CWORD=1; "$(complete -p faithlint | sed "s/.*-F \\([^ ]*\\) .*/\\1/")" '
              'faithlint ch faithlint; printf "%s\\n" "${COMPREPLY[@]}"')
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["check"], (proc.stdout, proc.stderr)
