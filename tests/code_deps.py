"""The code each DVC stage runs, derived from what its commands import.

A DVC stage reruns when one of its ``deps`` changes, so its code deps must
name every file its command can execute, and no more: a too-short list lets
`dvc status` call stale results current, a too-long one throws away and
rebuilds sets or scores that no changed line can affect. This module derives
the list from the code itself, the same way for every stage:

1. the rules a stage may run are its command's ``--allowed-rules``;
2. each rule's ``nlistress <subcommand>`` is found in ``rules/*.smk``, and the
   subcommand's handler module from the CLI's own parser;
3. the files are the static import closure (``ast``, no import executed) of
   what the handler functions import (their module's top-level imports, the
   imports in their bodies and in the module's functions they call), where
   from there on imports inside functions count, as do registry strings such
   as ``"nlistress.perturb.antonymy:Antonymy"``; plus what loads
   when ``nlistress.cli`` starts and when Snakemake parses the ``.smk`` files,
   top-level imports only: that code registers the other subcommands and
   decides which jobs exist, but what a job writes comes from its handler;
4. a string literal naming a folder or file next to a module (``"schemas"``,
   ``"papers"``) adds that package data.

``python -m tests.code_deps`` prints every stage's list in dvc.yaml's form;
``tests/test_pipeline_contract.py`` fails when dvc.yaml differs from it.
"""

from __future__ import annotations

import ast
import re
import shlex
import sys
from collections.abc import Iterable
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE_ROOT = ROOT / "workflow"
PACKAGE = "nlistress"
#: a module named in a string, as the generator registry names its classes
_REGISTRY_STRING = re.compile(rf"^{PACKAGE}(\.\w+)+(:\w+)?$")
_RULE = re.compile(r"^\s*(?:rule (\w+)\s*:|use rule \w+ as (\w+) with\s*:)", re.M)
_USE_RULE = re.compile(r"^\s*use rule (\w+) as (\w+) with\s*:", re.M)
_SUBCOMMAND = re.compile(rf"[\"']{PACKAGE} ([a-z][a-z-]*)")
_SMK_IMPORT = re.compile(rf"^\s*(?:from ({PACKAGE}[\w.]*) import|import ({PACKAGE}[\w.]*))", re.M)
#: the parts of a package that are never code or data of a run
_SKIP = {"__pycache__"}


def module_path(name: str) -> Path | None:
    """The file of module ``name`` under workflow/, or None if it is not one of ours."""
    base = SOURCE_ROOT.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _statements(tree: ast.Module, top_level_only: bool) -> Iterable[ast.AST]:
    """Every node, or only those run at import (class bodies yes, function bodies no)."""
    if not top_level_only:
        yield from ast.walk(tree)
        return
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                stack.append(child)


def _imports_in(nodes: Iterable[ast.AST], path: Path, registry_strings: bool) -> set[str]:
    """The package's modules that these nodes of ``path`` import (relative imports resolved)."""
    here = _module_name(path)
    package = here if _is_package(path) else here.rpartition(".")[0]
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            found.add(base)
            # `from . import x` and `from .pkg import mod` import submodules by name.
            found |= {f"{base}.{alias.name}" for alias in node.names}
        elif (
            registry_strings
            and isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and _REGISTRY_STRING.match(node.value)
        ):
            found.add(node.value.split(":")[0])
    return {name for name in found if module_path(name) is not None}


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


@cache
def direct_imports(path: Path, top_level_only: bool) -> frozenset[str]:
    """The package's modules that ``path`` imports: all of them, or only those run at import."""
    nodes = _statements(_tree(path), top_level_only)
    return frozenset(_imports_in(nodes, path, registry_strings=not top_level_only))


def handler_imports(module: str, handlers: Iterable[str]) -> set[str]:
    """What running these functions of ``module`` imports: the module's top-level imports,
    those inside the functions, and those inside the module's functions they call."""
    path = module_path(module)
    assert path is not None
    functions = {
        node.name: node
        for node in _tree(path).body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    found = set(direct_imports(path, top_level_only=True))
    seen: set[str] = set()
    todo = list(handlers)
    while todo:
        name = todo.pop()
        if name in seen or name not in functions:
            continue
        seen.add(name)
        body = list(ast.walk(functions[name]))
        found |= _imports_in(body, path, registry_strings=True)
        todo += [node.id for node in body if isinstance(node, ast.Name) and node.id in functions]
    return found


def _parents(name: str) -> list[str]:
    """Importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` first."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def closure(roots: Iterable[str], top_level_only: bool) -> set[str]:
    """Every module that importing (and, unless ``top_level_only``, running) ``roots`` loads."""
    seen: set[str] = set()
    todo = [name for name in roots if module_path(name) is not None]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path = module_path(name)
        assert path is not None
        todo += [*direct_imports(path, top_level_only), *_parents(name)]
    return seen


def _data_files(path: Path) -> set[Path]:
    """Package data a module names by a string literal: a sibling file or folder that is not code."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "/" not in node.value
    }
    found: set[Path] = set()
    for entry in path.parent.iterdir():
        if entry.name not in names or entry.name in _SKIP or entry.suffix == ".py":
            continue
        if entry.is_file():
            found.add(entry)
        elif not (entry / "__init__.py").exists():  # a data folder, not a subpackage
            found |= {f for f in entry.rglob("*") if f.is_file() and not _SKIP & set(f.parts)}
    return found


def rule_subcommands() -> dict[str, str]:
    """Each rule's ``nlistress`` subcommand (a ``use rule`` inherits its base's)."""
    found: dict[str, str] = {}
    inherited: dict[str, str] = {}
    for smk in sorted((ROOT / "rules").glob("*.smk")):
        text = smk.read_text(encoding="utf-8")
        headers = list(_RULE.finditer(text))
        for i, header in enumerate(headers):
            name = header.group(1) or header.group(2)
            end = headers[i + 1].start() if i + 1 < len(headers) else len(text)
            if command := _SUBCOMMAND.search(text, header.end(), end):
                found[name] = command.group(1)
        inherited |= {alias: base for base, alias in _USE_RULE.findall(text)}
    for alias, base in inherited.items():
        found.setdefault(alias, found[base])
    return found


def handlers() -> dict[str, tuple[str, str]]:
    """Each subcommand's handler (module, function), as the CLI registers it."""
    sys.path.insert(0, str(SOURCE_ROOT))
    from nlistress.cli import build_parser

    parser = build_parser()
    [sub] = [a for a in parser._actions if a.dest == "command"]
    funcs = {name: p.get_default("func") for name, p in sub.choices.items()}
    return {name: (func.__module__, func.__name__) for name, func in funcs.items()}


def smk_imports() -> set[str]:
    """The modules the Snakefile and rules import while Snakemake parses them."""
    found: set[str] = set()
    for smk in [ROOT / "Snakefile", *sorted((ROOT / "rules").glob("*.smk"))]:
        for match in _SMK_IMPORT.finditer(smk.read_text(encoding="utf-8")):
            found.add(match.group(1) or match.group(2))
    return found


def allowed_rules(cmd: str) -> list[str]:
    """The rules a stage's ``snakemake`` command may run (its ``--allowed-rules``)."""
    words = shlex.split(cmd)
    start = words.index("--allowed-rules") + 1
    end = next((i for i in range(start, len(words)) if words[i].startswith("-")), len(words))
    return words[start:end]


def stage_files(cmd: str) -> set[Path]:
    """Every code and package-data file the stage's command runs."""
    subcommands, registered = rule_subcommands(), handlers()
    used: dict[str, set[str]] = {}
    for rule in allowed_rules(cmd):
        if rule in subcommands:
            module, function = registered[subcommands[rule]]
            used.setdefault(module, set()).add(function)
    roots = set(used) | {name for module, fs in used.items() for name in handler_imports(module, fs)}
    modules = closure(roots - set(used), top_level_only=False) | set(used)
    modules |= closure({*smk_imports(), f"{PACKAGE}.cli"}, top_level_only=True)
    files: set[Path] = set()
    for name in modules:
        path = module_path(name)
        assert path is not None
        files |= {path, *_data_files(path)}
    return files


def covering(files: set[Path]) -> list[str]:
    """The fewest paths that name exactly ``files``: a folder only when all it holds is needed."""

    def wanted(folder: Path) -> bool:
        inside = [f for f in folder.rglob("*") if f.is_file() and not _SKIP & set(f.parts)]
        return all(f in files for f in inside)

    out: set[Path] = set()
    for path in files:
        top = path
        for parent in path.relative_to(SOURCE_ROOT).parents:
            folder = SOURCE_ROOT / parent
            if folder == SOURCE_ROOT:
                break
            if wanted(folder):
                top = folder
        out.add(top)
    return sorted(p.relative_to(ROOT).as_posix() for p in out)


def stage_code_deps(stages: dict[str, dict]) -> dict[str, list[str]]:
    """dvc.yaml's code deps of each stage (a ``foreach`` stage's ``do`` counts once)."""
    out = {}
    for name, stage in stages.items():
        cmd = (stage.get("do") or stage)["cmd"]
        out[name] = covering(stage_files(cmd))
    return out


CODE_DEPS_NOTE = "      # code: derived from its imports (python -m tests.code_deps --write)\n"


def rewrite_dvc_yaml(text: str, deps: dict[str, list[str]]) -> str:
    """dvc.yaml's text with each stage's ``workflow/`` deps replaced by ``deps[stage]``.

    Only those lines change, so comments and the other deps stay as written; the
    derived lines follow the stage's other deps, after a note naming this module.
    """
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    stage = None
    for line in lines:
        if re.match(r"^  (\w+):\s*$", line):
            stage = line.strip()[:-1]
        if line.strip() == CODE_DEPS_NOTE.strip() or re.match(r"^\s+- workflow/", line):
            continue
        out.append(line)
        if stage in deps and re.match(r"^\s+- rules\s*$", line):
            indent = line[: line.index("-")]
            out.append(CODE_DEPS_NOTE.replace("      ", indent, 1))
            out += [f"{indent}- {dep}\n" for dep in deps.pop(stage)]
    missing = sorted(deps)
    if missing:
        raise SystemExit(f"dvc.yaml: no `- rules` dep to put the code deps after in {missing}")
    return "".join(out)


if __name__ == "__main__":
    import yaml

    dvc_yaml = ROOT / "dvc.yaml"
    stages = yaml.safe_load(dvc_yaml.read_text(encoding="utf-8"))["stages"]
    derived = stage_code_deps(stages)
    if sys.argv[1:] == ["--write"]:
        dvc_yaml.write_text(rewrite_dvc_yaml(dvc_yaml.read_text(encoding="utf-8"), derived), encoding="utf-8")
    else:
        for stage, deps in derived.items():
            print(f"{stage}:")
            print("\n".join(f"  - {dep}" for dep in deps))
