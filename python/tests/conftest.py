"""Shared fixtures: the repository's samples and the shared corpus (read in place; tests that need
it skip with a message when it is absent)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(os.environ.get("LEVELKIT_SOURCE_DIR") or Path(__file__).resolve().parents[2])


def corpus_dir() -> Path | None:
    env = os.environ.get("LEVELKIT_CORPUS")
    p = Path(env) if env else REPO.parent / "shared" / "corpus"
    return p if p.is_dir() else None


def corpus_files(sub: str, suffixes: tuple[str, ...]) -> list[Path]:
    root = corpus_dir()
    if root is None or not (root / sub).is_dir():
        return []
    return sorted(p for p in (root / sub).rglob("*")
                  if p.is_file() and p.name.lower().endswith(suffixes))


@pytest.fixture
def corpus() -> Path:
    root = corpus_dir()
    if root is None:
        pytest.skip("corpus not found: set LEVELKIT_CORPUS or put it at ../shared/corpus "
                    "(corpus tests are skipped)")
    return root


@pytest.fixture
def demo_vmf() -> Path:
    return REPO / "samples" / "demo.vmf"


@pytest.fixture
def demo_wmp() -> Path:
    return REPO / "samples" / "demo.wmp"
