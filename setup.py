"""Build the compiled solver core and put the shipped folders into the package; everything
else is in pyproject.toml.

* ``build_py``: a wheel carries the repository's ``models/`` (every file there at build
  time), ``calibration/*.json`` (the example calibration) and ``fixtures/games`` (the
  built-in recorded games) in ``solitaire_coach/data/``, where ``solitaire_coach.repo``
  finds them. An editable install copies nothing: it reads the repository's folders.
* ``build_ext``: the solver is C, so building needs a C compiler; without one the build
  stops with a message that says which to install, not a compiler's traceback."""

import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py
from setuptools.errors import CCompilerError, CompileError, ExecError, PlatformError

HERE = Path(__file__).resolve().parent

#: (folder in the repository, glob of the files shipped from it); kept under the same
#: relative path in ``solitaire_coach/data``.
SHIPPED = (
    ("models", "**/*"),
    ("calibration", "*.json"),
    ("fixtures/games", "**/*"),
)
#: Files of those folders that only the tests read (a game's true snapshots).
NOT_SHIPPED = {"truth.jsonl"}

NO_COMPILER = """
solitaire-coach: the solver is written in C, so building it needs a working C compiler (and
Python's headers); compiling it failed:
    {error}
Install them and run the install again:
    Debian/Ubuntu: sudo apt install build-essential python3-dev    Fedora: sudo dnf install gcc python3-devel
    macOS: xcode-select --install    Windows: "Build Tools for Visual Studio" (the C++ workload)
(the CC environment variable picks a compiler other than the default one)
"""


def shipped_files(root: Path = HERE):
    """(source file, path relative to the package's data folder) of every shipped file."""
    for folder, pattern in SHIPPED:
        base = root / folder
        for path in sorted(base.glob(pattern)):
            if path.is_file() and "__pycache__" not in path.parts and not path.name.startswith(".") \
                    and path.name not in NOT_SHIPPED:
                yield path, path.relative_to(root)


class BuildPyWithData(build_py):
    """``build_py`` that also copies the shipped folders into ``solitaire_coach/data``."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the repository's own folders
        target = Path(self.build_lib) / "solitaire_coach" / "data"
        missing = [folder for folder, _ in SHIPPED if not (HERE / folder).is_dir()]
        if missing:
            raise SystemExit(f"solitaire-coach: cannot build a wheel without {', '.join(missing)} "
                             f"(looked in {HERE})")
        if target.exists():
            shutil.rmtree(target)  # a file gone from models/ since the last build must not ship
        for source, relative in shipped_files():
            out = target / relative
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, out)


class BuildExtSaysWhichCompiler(build_ext):
    """``build_ext`` that turns a missing or failing C compiler into a message saying what
    to install."""

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except (CCompilerError, CompileError, ExecError, PlatformError) as exc:
            sys.stderr.write(NO_COMPILER.format(error=exc))
            raise SystemExit(1) from None


setup(
    cmdclass={"build_py": BuildPyWithData, "build_ext": BuildExtSaysWhichCompiler},
    ext_modules=[
        Extension(
            "solitaire_coach.core.solver._csolver",
            sources=["src/solitaire_coach/core/solver/_csolver.c"],
            extra_compile_args=["-O2"],
        )
    ],
)
