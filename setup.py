"""Build the compiled core; everything else is in pyproject.toml.

The core is compiled for the building machine's CPU (``-march=native``), which enables the AVX2
kernels where the CPU has AVX2. Set ``OTHELLO_ENGINE_MARCH`` to build for another target, e.g.
``OTHELLO_ENGINE_MARCH=x86-64-v3`` for portable AVX2 wheels or ``x86-64`` for any x86-64 (the
scalar kernels); an empty value leaves the choice to the compiler.
"""
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

march = os.environ.get("OTHELLO_ENGINE_MARCH", "native")
extensions = [
    Extension(
        "othello_engine._core",
        ["othello_engine/_core.pyx"],
        extra_compile_args=["-O3", "-funroll-loops"] + ([f"-march={march}"] if march else []),
    )
]

setup(ext_modules=cythonize(extensions, language_level=3, compiler_directives={
    "boundscheck": False, "wraparound": False, "cdivision": True, "initializedcheck": False,
}))
