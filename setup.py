"""Build the compiled core; everything else is in pyproject.toml.

The core is compiled for the building machine's CPU (``-march=native``), which enables the AVX2
kernels where the CPU has AVX2. Set ``OTHELLO_ENGINE_MARCH`` to build for another target, e.g.
``OTHELLO_ENGINE_MARCH=x86-64-v3`` for portable AVX2 wheels or ``x86-64`` for any x86-64 (the
scalar kernels); an empty value leaves the choice to the compiler.

Where the target has BMI2, the pattern evaluation and the solver's last move gather squares with
``pext``. AMD's Zen 1 and Zen 2 (CPU family 23) have BMI2 but run ``pext`` in microcode, at
hundreds of cycles, so a native build on such a CPU leaves it out (the core then reads the
board's images, as without BMI2). ``OTHELLO_ENGINE_PEXT=0`` or ``1`` decides it by hand, for
example ``0`` for an ``x86-64-v3`` build meant for those CPUs.

Where the target has AVX-512 with VBMI and VNNI (Intel since Ice Lake, AMD since Zen 4), the
search computes the pattern evaluation's indices with vector instructions instead (about a
quarter more nodes a second); ``OTHELLO_ENGINE_AVX512=0`` leaves that path out.
"""
import os
import re

from Cython.Build import cythonize
from setuptools import Extension, setup


def slow_pext() -> bool:
    """Whether this machine's CPU has a microcoded pext (AMD, CPU family 23: Zen 1 and 2)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return False
    vendor = re.search(r"^vendor_id\s*:\s*(\S+)", text, re.M)
    family = re.search(r"^cpu family\s*:\s*(\d+)", text, re.M)
    return bool(vendor and family and vendor.group(1) == "AuthenticAMD" and int(family.group(1)) == 23)


march = os.environ.get("OTHELLO_ENGINE_MARCH", "native")
pext = os.environ.get("OTHELLO_ENGINE_PEXT", "")
use_pext = pext == "1" if pext in ("0", "1") else not (march == "native" and slow_pext())
use_avx512 = os.environ.get("OTHELLO_ENGINE_AVX512", "") != "0"
extensions = [
    Extension(
        "othello_engine._core",
        ["othello_engine/_core.pyx"],
        extra_compile_args=["-O3", "-funroll-loops"] + ([f"-march={march}"] if march else []),
        define_macros=([] if use_pext else [("OE_NO_PEXT", "1")])
        + ([] if use_avx512 else [("OE_NO_AVX512", "1")]),
    )
]

setup(ext_modules=cythonize(extensions, language_level=3, compiler_directives={
    "boundscheck": False, "wraparound": False, "cdivision": True, "initializedcheck": False,
}))
