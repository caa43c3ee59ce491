"""Builds the native module levelkit._levelkit with CMake (the repository one level up), so
`pip install ./python --no-build-isolation` works offline with Debian's setuptools.

Environment: LEVELKIT_CMAKE_ARGS adds configure arguments; CMAKE_BUILD_PARALLEL_LEVEL sets the
jobs (default: all cores); ccache is used when CMAKE_CXX_COMPILER_LAUNCHER says so.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


class CMakeExtension(Extension):
    def __init__(self, name: str) -> None:
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        if not (REPO / "CMakeLists.txt").is_file() or not (REPO / "src").is_dir():
            raise RuntimeError(f"levelkit's sources are not at {REPO}: install from a checkout")
        build_dir = HERE / "build" / "cmake"
        build_dir.mkdir(parents=True, exist_ok=True)
        configure = [
            "cmake", "-S", str(REPO), "-B", str(build_dir),
            "-DCMAKE_BUILD_TYPE=Release",
            "-DLEVELKIT_PYTHON=ON",
            "-DLEVELKIT_BUILD_CLI=OFF", "-DLEVELKIT_BUILD_TESTS=OFF", "-DLEVELKIT_BUILD_FUZZ=OFF",
            "-DLEVELKIT_BUILD_BENCH=OFF", "-DLEVELKIT_INSTALL=OFF",
            f"-DPython3_EXECUTABLE={sys.executable}",
        ]
        configure += shlex.split(os.environ.get("LEVELKIT_CMAKE_ARGS", ""))
        subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "_levelkit", "-j", jobs],
                       check=True)
        built = next((build_dir / "python" / "levelkit").glob("_levelkit*.so"))
        dest = Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, dest)


setup(
    ext_modules=[CMakeExtension("levelkit._levelkit")],
    cmdclass={"build_ext": CMakeBuild},
)
