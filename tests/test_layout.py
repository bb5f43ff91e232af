"""The line between the pure core and the I/O stays visible: core imports nothing from
vision, capture or app, and does no I/O; vision and capture never decide rules."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "solitaire_coach"
IO_MODULES = {
    "os",
    "io",
    "pathlib",
    "socket",
    "serial",
    "cv2",
    "onnxruntime",
    "subprocess",
    "shutil",
    "tempfile",
    "select",
}


def _type_checking_blocks(tree: ast.AST) -> set[int]:
    """The ids of the import nodes under ``if TYPE_CHECKING:`` (names for annotations alone,
    never imported when the program runs)."""
    return {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
        for stmt in node.body
        for n in ast.walk(stmt)
    }


def _imports(path: Path, *, typing_only: bool = True) -> set[str]:
    """Absolute names of the modules ``path`` imports (relative imports resolved); with
    ``typing_only`` False, not those imported for annotations alone (``if TYPE_CHECKING:``)."""
    package = ["solitaire_coach", *path.relative_to(PACKAGE).parent.parts]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = set() if typing_only else _type_checking_blocks(tree)
    names = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                names.add(".".join(base + ([node.module] if node.module else [])))
            else:
                names.add(node.module or "")
    return names


def _calls_open(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("open", "print", "input")
        for n in ast.walk(tree)
    )


def test_core_imports_no_io_and_nothing_outside_core():
    core_files = sorted((PACKAGE / "core").rglob("*.py"))
    assert core_files
    for path in core_files:
        for name in _imports(path):
            parts = name.split(".")
            assert parts[0] not in IO_MODULES, f"{path.relative_to(PACKAGE)} imports {name}"
            if parts[0] == "solitaire_coach":
                assert parts[1:2] == ["core"], f"{path.relative_to(PACKAGE)} reaches outside core: {name}"
        assert not _calls_open(path), f"{path.relative_to(PACKAGE)} does I/O (open/print/input)"


def test_vision_and_capture_do_not_use_the_rules_engine():
    """(The window's drawing, vision/overlay.py, names the advice's and the tracker's value
    types in its annotations: imported for the type checker alone, they run no rule.)"""
    for folder in ("vision", "capture"):
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            for name in _imports(path, typing_only=False):
                for forbidden in ("tracker", "advisor", "baseline", "best", "solver", "virtual_table"):
                    assert forbidden not in name.split("."), f"{folder}/{path.name} imports {name}"


def test_nothing_below_app_imports_app():
    """vision, capture and core never import app (docs/architecture.md): the layers run one way."""
    for folder in ("core", "vision", "capture"):
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            for name in _imports(path):
                assert name.split(".")[:2] != ["solitaire_coach", "app"], f"{folder}/{path.name} imports {name}"
