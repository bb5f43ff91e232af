"""Build the compiled solver core; everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "solitaire_coach.core.solver._csolver",
            sources=["src/solitaire_coach/core/solver/_csolver.c"],
            extra_compile_args=["-O2"],
        )
    ],
)
