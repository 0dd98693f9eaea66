"""Settings: one validated model shared by the CLI, the language server and the watcher.

Every source of settings (``faithlint.toml``, ``[tool.faithlint]`` in ``pyproject.toml``, CLI
flags, LSP ``initializationOptions``) goes through the same pydantic model, so a bad value is
reported the same way everywhere: one line naming the source, the key and the reason.
"""

from __future__ import annotations

import copy
import re
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from faithlint.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on 3.10
    import tomli as tomllib  # pyright: ignore[reportMissingImports]  # installed on 3.10 only (its marker)


# --- rule codes: the settings name rules, but know none; the registry in use says which exist -------------

#: The built-in rules' codes, in registration order: what settings may name before any registry is in use.
BUILTIN_RULES: tuple[str, ...] = ("FL100", "FL110", "FL200", "FL210", "FL300", "FL400", "FL410", "FL001",
                                   "FL002")
_registry: Collection[str] | None = None


def use_rules(rules: Collection[str]) -> None:
    """Validate rule codes against ``rules`` (rules by code, in registration order) where validation is given
    none (``Config.model_validate(data, context={"rules": ...})``, ``rules=`` of :func:`load_config`,
    :func:`merge_overrides`, :func:`validate_settings`): :data:`faithlint.rules.RULES` installs itself."""
    global _registry
    _registry = rules


def known_rules(info: ValidationInfo | None = None) -> Collection[str]:
    """The rule codes settings may name: the validation's own registry, else the one in use, else the built-ins."""
    context = info.context if info is not None else None
    given = context.get("rules") if isinstance(context, dict) else None
    if given is not None:
        return given
    return _registry if _registry is not None else BUILTIN_RULES


def _context(rules: Collection[str] | None) -> dict[str, Any] | None:
    return None if rules is None else {"rules": rules}


def _registered(code: str, info: ValidationInfo) -> str:
    known = known_rules(info)
    if code not in known:
        raise ValueError(f"unknown rule code '{code}' (known: {', '.join(known)})")
    return code


RuleCode = Annotated[str, AfterValidator(_registered)]  # any registered rule, plugins included
PLACEHOLDERS: tuple[str, ...] = ("stem", "name", "parent")
CONFIG_FILE = "faithlint.toml"
PYPROJECT = "pyproject.toml"
PYPROJECT_TABLE = "tool.faithlint"

_PLACEHOLDER_RE = re.compile(r"\{([^{}]*)\}")


def _check_placeholders(pattern: str) -> str:
    """Reject unknown ``{...}`` placeholders at load time, not when the first draft is paired."""
    for name in _PLACEHOLDER_RE.findall(pattern):
        if name not in PLACEHOLDERS:
            raise ValueError(f"unknown placeholder '{{{name}}}' in '{pattern}' (use {{stem}}, {{name}} or {{parent}})")
    return pattern


#: The kinds of context a calibrated operating point may differ by (``faithlint.rules.operating_point.context_kind``).
ContextKind = Literal["records", "question", "prose"]
CONTEXT_KINDS: tuple[ContextKind, ...] = ("records", "question", "prose")


class RuleSettings(BaseModel):
    """Per-rule overrides; ``None`` means "the rule's own default"."""

    model_config = ConfigDict(extra="forbid")

    severity: Literal["error", "warning", "info"] | None = None
    threshold: float | None = Field(default=None, ge=0.0, le=1.0)
    # the threshold for one kind of context; wins over ``threshold`` there
    by_context: dict[ContextKind, Annotated[float, Field(ge=0.0, le=1.0)]] | None = None


class PairRule(BaseModel):
    """Maps drafts (glob relative to the config file's folder) to their context files."""

    model_config = ConfigDict(extra="forbid")

    draft: str = Field(min_length=1)
    context: list[str] = Field(min_length=1)
    query_file: str | None = None
    query: str | None = None

    @field_validator("context", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        # `context = "sources/{stem}/*"` is the common case; don't make people write a list.
        return [value] if isinstance(value, str) else value

    @field_validator("context")
    @classmethod
    def _context_placeholders(cls, value: list[str]) -> list[str]:
        for pattern in value:
            if not pattern.strip():
                raise ValueError("context globs must not be empty")
            _check_placeholders(pattern)
        return value

    @field_validator("query_file")
    @classmethod
    def _query_file_placeholders(cls, value: str | None) -> str | None:
        return None if value is None else _check_placeholders(value)

    @model_validator(mode="after")
    def _one_query(self) -> PairRule:
        if self.query is not None and self.query_file is not None:
            raise ValueError("set either query or query_file, not both")
        return self


class Config(BaseModel):
    """All faithlint settings with their defaults (docs/configuration.md says what each one does)."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    device: Literal["auto", "cpu", "cuda"] = "auto"
    precision: Literal["auto", "fp32", "bf16", "int8"] = "auto"
    runtime: Literal["auto", "openvino", "onnx", "torch"] = "auto"
    threads: int = Field(default=0, ge=0, le=1024)
    max_length: int = Field(default=192, ge=64, le=512)
    overlap: int = Field(default=32, ge=0, le=256)
    selection: Literal["topp", "topk"] = "topp"
    top_p: float = Field(default=0.9, gt=0.0, le=1.0)
    top_k: int = Field(default=3, ge=1)
    max_windows: int = Field(default=4, ge=1)
    relevance: Literal["embedding", "lexical"] = "embedding"
    evidence: Literal["assembled", "windows"] = "assembled"
    evidence_candidates: int = Field(default=12, ge=0)
    split: Literal["senter", "parser"] = "senter"
    context_split: Literal["parser", "senter", "rules", "spacy"] = "parser"  # spacy: the parser (earlier name)
    aggregation: Literal["max", "weighted", "min"] = "max"
    query_claim: Literal["auto", "always", "never"] = "auto"
    check_headings: bool = False
    check_lead_ins: bool = False  # a sentence ending in ":" right before a list ("Here is a summary:")
    check_boilerplate: bool = False  # "Sure!", "Here is a summary in 89 words:", "Based on the passages, ..."
    check_review_rollups: bool = False  # FL200 on "Customers praise ..." against a record's reviews (else FL300)
    min_words: int = Field(default=3, ge=1)
    verbatim: bool = True
    align_values: bool = True  # the checker reads a sentence's figures as its evidence writes them ("forty" -> "40")
    batch_size: int = Field(default=8, ge=1)
    cache_dir: str | None = None  # None: the user cache directory; "off": no disk cache ($FAITHLINT_CACHE_DIR wins)
    cache_max_mb: int = Field(default=512, ge=1)
    select: list[str] = Field(default_factory=lambda: ["FL"])
    ignore: list[str] = Field(default_factory=list)
    rules: dict[RuleCode, RuleSettings] = Field(default_factory=dict)
    fail_on: Literal["error", "warning", "info", "never"] = "warning"
    max_file_size: int = Field(default=2_000_000, gt=0)
    markdown_extensions: list[str] = Field(default_factory=lambda: [".md", ".markdown", ".mdx"])
    pair: list[PairRule] = Field(default_factory=list)
    monitor: Literal["off", "on"] = "off"
    grounding: Literal["off", "on"] = "on"  # verdict + words the context lacks (evidence.grounding)
    monitor_aggregator: Literal["lr", "mlp"] = "lr"
    surrogate: str | None = None
    monitor_max_context: int = Field(default=384, ge=128, le=32768)
    monitor_model: str | None = None
    unit: Literal["sentence", "claim", "both"] = "sentence"
    claim_aggregation: Literal["strict", "soft", "major"] = "strict"
    claim_extractor: Literal["spacy", "llm"] = "spacy"
    llm_model: str | None = None
    llm_endpoint: str | None = None
    llm_endpoint_model: str | None = None
    llm_api_key_env: str = "OPENAI_API_KEY"
    llm_timeout: float = Field(default=120.0, gt=0.0, le=3600.0)
    checker: Literal["nli", "llm"] = "nli"
    rac_drop_unmentioned: bool = False
    fod_tau1: float = Field(default=0.7, ge=0.0, le=1.0)
    fod_tau2: float = Field(default=0.85, ge=0.0, le=1.0)
    fod_beams: int = Field(default=2, ge=1, le=16)
    fod_samples: int = Field(default=6, ge=1, le=32)
    fod_sentences: int = Field(default=1, ge=1, le=8)
    fod_max_new_tokens: int = Field(default=48, ge=8, le=512)
    fod_temperature: float = Field(default=0.8, gt=0.0, le=2.0)
    fod_seed: int = 0

    @model_validator(mode="before")
    @classmethod
    def _sections(cls, data: Any) -> Any:
        """``Config(retrieval={"top_p": 0.5})`` as ``Config(top_p=0.5)`` (files and overrides: :func:`_normalize`)."""
        return _flatten(data)[0] if isinstance(data, dict) else data

    @field_validator("monitor", "grounding", mode="before")
    @classmethod
    def _on_off(cls, value: Any) -> Any:
        return {True: "on", False: "off"}.get(value, value) if isinstance(value, bool) else value

    @field_validator("overlap")
    @classmethod
    def _overlap_fits(cls, value: int, info: ValidationInfo) -> int:
        # A window that overlaps its neighbour by a whole pair length never advances.
        max_length = info.data.get("max_length")
        if max_length is not None and value >= max_length:
            raise ValueError(f"must be smaller than max_length ({max_length})")
        return value

    @field_validator("select", "ignore")
    @classmethod
    def _known_prefixes(cls, value: list[str], info: ValidationInfo) -> list[str]:
        codes = known_rules(info)
        for i, prefix in enumerate(value):
            known = prefix == "ALL" or (prefix and any(code.startswith(prefix) for code in codes))
            if not known:
                raise ValueError(f"item {i}: '{prefix}' is not a rule code or prefix (known: {', '.join(codes)})")
        return value

    @field_validator("markdown_extensions")
    @classmethod
    def _dotted(cls, value: list[str]) -> list[str]:
        out = []
        for ext in value:
            ext = ext.strip().lower()
            if not ext or ext == ".":
                raise ValueError("extensions must not be empty")
            out.append(ext if ext.startswith(".") else "." + ext)
        return out

    def rule_enabled(self, code: str) -> bool:
        """Ruff semantics: the longest matching prefix decides; on a tie ``ignore`` wins."""
        selected = _longest_prefix(code, self.select)
        if selected < 0:
            return False
        return selected > _longest_prefix(code, self.ignore)

    def severity_for(self, code: str, default: str) -> str:
        settings = self.rules.get(code)  # type: ignore[call-overload]
        return settings.severity if settings and settings.severity else default

    def threshold_for(self, code: str, default: float, kind: ContextKind | None = None) -> float:
        """``rules.CODE.by_context.KIND`` where set for ``kind`` (the kind of context checked against), else
        ``rules.CODE.threshold`` where set, else ``default`` (``faithlint.rules.RULES.operating_point``)."""
        settings = self.rules.get(code)  # type: ignore[call-overload]
        if settings is None:
            return default
        if kind is not None and settings.by_context and kind in settings.by_context:
            return settings.by_context[kind]
        return settings.threshold if settings.threshold is not None else default


def _longest_prefix(code: str, prefixes: list[str]) -> int:
    """Length of the longest entry of ``prefixes`` that ``code`` starts with; ALL counts as 0, none as -1."""
    best = -1
    for prefix in prefixes:
        if prefix == "ALL":
            best = max(best, 0)
        elif code.startswith(prefix):
            best = max(best, len(prefix))
    return best


# --- sections: a file groups the settings in tables; each flat key stays valid at the top level -----------

#: Section -> its settings, in the order ``--show-settings`` prints them. ``[rules]`` also holds the per-rule
#: tables (``[rules.FL200]``), and ``[[pair]]`` stays at the top level.
SECTIONS: dict[str, tuple[str, ...]] = {
    "models": ("model", "checker", "device", "precision", "runtime", "threads", "batch_size", "max_length"),
    "drafts": ("markdown_extensions", "max_file_size", "split", "min_words", "check_headings", "check_lead_ins",
               "check_boilerplate", "check_review_rollups"),
    "retrieval": ("context_split", "relevance", "evidence", "evidence_candidates", "selection", "top_p", "top_k",
                  "max_windows", "overlap", "verbatim"),
    "scoring": ("aggregation", "align_values", "grounding", "monitor", "monitor_aggregator", "surrogate",
                "monitor_max_context", "monitor_model"),
    "claims": ("unit", "query_claim", "claim_aggregation", "claim_extractor"),
    "llm": ("llm_model", "llm_endpoint", "llm_endpoint_model", "llm_api_key_env", "llm_timeout"),
    "fix": ("rac_drop_unmentioned", "fod_tau1", "fod_tau2", "fod_beams", "fod_samples", "fod_sentences",
            "fod_max_new_tokens", "fod_temperature", "fod_seed"),
    "cache": ("cache_dir", "cache_max_mb"),
    "rules": ("select", "ignore", "fail_on"),
}
SECTION_OF = {key: section for section, keys in SECTIONS.items() for key in keys}


def _flatten(data: dict[str, Any], aliases: dict[str, str] | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """``data`` with its sections' settings at the top level, and where each came from (``{"top_p":
    "retrieval.top_p"}``). A key its section does not hold, or one set twice (flat and in its section), stays as
    ``"section.key"``, which the model rejects and :func:`_format_error` names."""
    out = {k: v for k, v in data.items() if not (k in SECTIONS and k != "rules" and isinstance(v, dict))}
    origins: dict[str, str] = {}
    for section, table in data.items():
        if section not in SECTIONS or not isinstance(table, dict):
            continue
        rest: dict[str, Any] = {}
        for key, value in (_rename(table, aliases) if aliases else table).items():
            if section == "rules" and key not in SECTION_OF:
                rest[key] = value  # a rule code's table
            elif SECTION_OF.get(key) == section and key not in out:
                out[key], origins[key] = value, f"{section}.{key}"
            else:
                out[f"{section}.{key}"] = value
        if section == "rules":
            out["rules"] = rest
    return out, origins


# --- key aliases -----------------------------------------------------------------------------------

def _aliases(model: type[BaseModel]) -> dict[str, str]:
    """``top-p`` (TOML/CLI style) and ``topP`` (LSP style) both mean ``top_p``."""
    out: dict[str, str] = {}
    for name in model.model_fields:
        head, *rest = name.split("_")
        out[name.replace("_", "-")] = name
        out[head + "".join(part.capitalize() for part in rest)] = name
    return out


_CONFIG_ALIASES = _aliases(Config)
_RULE_ALIASES = _aliases(RuleSettings)
_PAIR_ALIASES = _aliases(PairRule)


def _rename(data: dict[str, Any], aliases: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        canonical = aliases.get(key, key) if isinstance(key, str) else key
        # If both spellings are present keep the alias as-is so it is reported as an unknown key.
        out[key if canonical in data and canonical != key else canonical] = value
    return out


def _normalize(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """Aliases renamed, sections flattened: the model's own keys, and where each came from (:func:`_flatten`)."""
    data, origins = _flatten(_rename(data, _CONFIG_ALIASES), _CONFIG_ALIASES)
    rules = data.get("rules")
    if isinstance(rules, dict):
        data["rules"] = {code: _rename(v, _RULE_ALIASES) if isinstance(v, dict) else v for code, v in rules.items()}
    pairs = data.get("pair")
    if isinstance(pairs, list):
        data["pair"] = [_rename(p, _PAIR_ALIASES) if isinstance(p, dict) else p for p in pairs]
    return data, origins


# --- error messages --------------------------------------------------------------------------------

def _loc_str(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _format_error(err: Any, table: str | None = None, origins: dict[str, str] | None = None) -> str:
    """One pydantic error -> ``key.path: reason`` (the caller prefixes the source); ``origins``: the section
    each flattened key came from (:func:`_flatten`)."""
    loc = tuple(err.get("loc", ()))
    kind = err.get("type", "")
    if loc and isinstance(loc[0], str) and (origin := (origins or {}).get(loc[0])):
        loc = (*origin.split("."), *loc[1:])
    if kind == "extra_forbidden" and len(loc) == 1 and "." in str(loc[0]):  # kept by _flatten
        section, key = str(loc[0]).split(".", 1)
        where = ".".join(x for x in (table, section) if x)
        if SECTION_OF.get(key) == section:
            return f"{'.'.join(x for x in (table, key) if x)}: set twice, at the top level and in [{where}]"
        home = f" ({key} belongs in [{SECTION_OF[key]}])" if key in SECTION_OF else ""
        return f"unknown key '{key}' in [{where}]{home}"
    if kind == "extra_forbidden" and loc:
        section = ".".join(x for x in (table, _loc_str(loc[:-1])) if x)
        return f"unknown key '{loc[-1]}'" + (f" in [{section}]" if section else "")
    if len(loc) > 3 and loc[-1] == "[key]":  # a key of a table below a rule's ("rules.FL200.by_context.tables")
        loc = loc[:-1]
    where = ".".join(x for x in (table, _loc_str(loc)) if x)
    msg = str(err.get("msg", "invalid value"))
    if len(loc) == 3 and loc[0] == "rules" and loc[-1] == "[key]":
        where = ".".join(x for x in (table, f"rules.{loc[1]}") if x)
        return f"{where}: {msg.removeprefix('Value error, ')}"
    msg = msg.removeprefix("Value error, ")
    value = err.get("input")
    if kind != "missing" and isinstance(value, (str, int, float, bool)) and not kind.startswith("value_error"):
        msg += f" (got {value!r})"
    return f"{where}: {msg}" if where else msg


def _raise_validation(exc: ValidationError, source: str, table: str | None = None,
                      origins: dict[str, str] | None = None) -> None:
    errors = exc.errors()
    first = _format_error(errors[0], table, origins)
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    raise ConfigError(f"{source}: {first}{more}") from None


def _validate(data: dict[str, Any], source: str, table: str | None = None,
              rules: Collection[str] | None = None) -> Config:
    data, origins = _normalize(data)
    try:
        return Config.model_validate(data, context=_context(rules))
    except ValidationError as exc:
        _raise_validation(exc, source, table, origins)
        raise  # unreachable; keeps type checkers happy


# --- files ------------------------------------------------------------------------------------------

def _display(path: Path) -> str:
    """Paths relative to the cwd when possible: short and still clickable in a terminal."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def _read_toml(path: Path) -> dict[str, Any]:
    name = _display(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{name}: is a directory") from None
    except PermissionError:
        raise ConfigError(f"{name}: permission denied") from None
    except OSError as exc:
        raise ConfigError(f"{name}: cannot read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{name}: invalid UTF-8 at byte offset {exc.start}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        match = re.search(r"\s*\(at line (\d+), column (\d+)\)$", msg)
        if match:
            reason = msg[: match.start()]
            raise ConfigError(f"{name}: line {match[1]}: invalid TOML: {reason} (column {match[2]})") from None
        match = re.search(r"\s*\(at end of document\)$", msg)
        if match:
            line = text.count("\n") + (0 if text.endswith("\n") else 1)
            raise ConfigError(f"{name}: line {max(line, 1)}: invalid TOML: {msg[: match.start()]}") from None
        raise ConfigError(f"{name}: invalid TOML: {msg}") from None


def _pyproject_table(path: Path, data: dict[str, Any]) -> dict[str, Any] | None:
    tool = data.get("tool")
    if not isinstance(tool, dict) or "faithlint" not in tool:
        return None
    table = tool["faithlint"]
    if not isinstance(table, dict):
        raise ConfigError(f"{_display(path)}: [{PYPROJECT_TABLE}] must be a table")
    return table


def _config_from_file(path: Path, explicit: bool, rules: Collection[str] | None = None) -> Config | None:
    data = _read_toml(path)
    if path.name == PYPROJECT:
        table = _pyproject_table(path, data)
        if table is None:
            if explicit:
                raise ConfigError(f"{_display(path)}: no [{PYPROJECT_TABLE}] table")
            return None
        return _validate(table, _display(path), PYPROJECT_TABLE, rules)
    return _validate(data, _display(path), rules=rules)


def find_config(start: Path | None = None) -> Path | None:
    """The config file that applies to ``start`` (a folder or a file): nearest folder upwards wins."""
    here = (start or Path.cwd()).resolve()
    if here.is_file() or not here.exists() and here.suffix:
        here = here.parent
    for folder in (here, *here.parents):
        candidate = folder / CONFIG_FILE
        if candidate.is_file():
            return candidate
        candidate = folder / PYPROJECT
        if candidate.is_file() and _pyproject_table(candidate, _read_toml(candidate)) is not None:
            return candidate
    return None


def load_config(path: Path | None = None, start: Path | None = None,
                rules: Collection[str] | None = None) -> tuple[Config, Path | None]:
    """Load ``path`` or discover the nearest config from ``start``; returns (config, absolute file or None).
    ``rules``: the registry whose codes the settings may name (default: :func:`known_rules`)."""
    if path is not None:
        path = Path(path)
        config = _config_from_file(path, explicit=True, rules=rules)
        assert config is not None
        return config, path.resolve()
    found = find_config(start)
    if found is None:
        return Config(), None
    config = _config_from_file(found, explicit=False, rules=rules)
    assert config is not None
    return config, found


# --- overrides (CLI flags, LSP settings) ------------------------------------------------------------

def _merged(base: Config, overrides: dict[str, Any]) -> dict[str, Any]:
    """``base`` as plain data with ``overrides`` on top; ``rules`` merge per code and per field."""
    data = base.model_dump()
    for key, value in overrides.items():
        if key == "rules" and isinstance(value, dict):
            rules = dict(data.get("rules", {}))
            for code, settings in value.items():
                old = rules.get(code)
                rules[code] = {**old, **settings} if isinstance(old, dict) and isinstance(settings, dict) else settings
            data["rules"] = rules
        else:
            data[key] = value
    return data


def merge_overrides(config: Config, overrides: dict[str, Any], source: str = "overrides",
                    rules: Collection[str] | None = None) -> Config:
    """``config`` with ``overrides`` applied; keys whose value is None are ignored (flag not given).

    Raises ConfigError naming ``source`` (e.g. ``--top-p`` or ``initializationOptions``).
    """
    if not isinstance(overrides, dict):
        raise ConfigError(f"{source}: expected a table of settings, got {type(overrides).__name__}")
    given, origins = _normalize({k: v for k, v in overrides.items() if v is not None})
    try:
        return Config.model_validate(_merged(config, given), context=_context(rules))
    except ValidationError as exc:
        _raise_validation(exc, source, None, origins)
        raise  # unreachable; keeps type checkers happy


def _drop(data: dict[str, Any], loc: tuple[Any, ...]) -> bool:
    """Remove the setting an error points at: the deepest dict key before any list index."""
    path: list[Any] = []
    for part in loc:
        if isinstance(part, int):
            path = path[:1]  # an error inside a list item: drop the whole list
            break
        if part == "[key]":
            break
        path.append(part)
    if not path:
        return False
    node: Any = data
    for part in path[:-1]:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    if isinstance(node, dict) and path[-1] in node:
        del node[path[-1]]
        return True
    return False


def validate_settings(data: Any, source: str, base: Config | None = None,
                      rules: Collection[str] | None = None) -> tuple[Config, list[str]]:
    """Lenient validation for the language server: bad keys are ignored, one message each.

    An editor must keep working with a typo in its settings, so nothing here raises.
    """
    base = base or Config()
    if data is None:
        return base, []
    if not isinstance(data, dict):
        return base, [f"{source}: expected an object of settings, got {type(data).__name__} (ignored)"]
    overrides, origins = _normalize(copy.deepcopy({k: v for k, v in data.items() if v is not None}))
    messages: list[str] = []
    for _ in range(100):
        try:
            return Config.model_validate(_merged(base, overrides), context=_context(rules)), messages
        except ValidationError as exc:
            progress = False
            for err in exc.errors():
                message = f"{source}: {_format_error(err, origins=origins)} (ignored)"
                if message not in messages:
                    messages.append(message)
                progress = _drop(overrides, tuple(err.get("loc", ()))) or progress
            if not progress:
                break
    messages.append(f"{source}: settings could not be applied (ignored)")
    return base, messages
