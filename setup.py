"""Build the compiled core; everything else is in pyproject.toml."""
from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension(
        "othello_engine._core",
        ["othello_engine/_core.pyx"],
        extra_compile_args=["-O3", "-march=native", "-funroll-loops"],
    )
]

setup(ext_modules=cythonize(extensions, language_level=3, compiler_directives={
    "boundscheck": False, "wraparound": False, "cdivision": True, "initializedcheck": False,
}))
