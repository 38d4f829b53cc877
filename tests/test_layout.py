"""The arrows of DESIGN.md point one way: device → vision → scoring, models → vision."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ALLOWED = {
    "scoring": {"scoring", "numpy"},
    "vision": {"vision", "scoring", "numpy", "cv2", "onnxruntime", "skimage"},
}


def _imports(package: str) -> set[str]:
    found = set()
    for path in (ROOT / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_what_design_allows(package: str) -> None:
    import sys

    third_party = _imports(package) - set(sys.stdlib_module_names)
    assert third_party <= ALLOWED[package], third_party - ALLOWED[package]


def test_scoring_is_found_by_the_check() -> None:
    # the check above must see real imports, or it would pass on nothing
    assert "scoring" in _imports("device")
