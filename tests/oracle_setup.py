"""Shared start of the dmxinfo.py oracle scripts: arguments, corpus location, the oracle module.

setup() returns (args, corpus_dir, dmxinfo_module), or None when the corpus or dmxinfo.py is
absent (the caller then exits SKIP, which CTest reports as skipped).
"""
import argparse
import os
import sys

SKIP = 77


def setup():
    ap = argparse.ArgumentParser()
    ap.add_argument('--levelkit', required=True)
    ap.add_argument('--shared', required=True)
    a = ap.parse_args()
    corpus = os.environ.get('LEVELKIT_CORPUS') or os.path.join(a.shared, 'corpus')
    tools = os.path.join(a.shared, 'notes', 'dmx_tools')
    if not os.path.isfile(os.path.join(tools, 'dmxinfo.py')) or not os.path.isdir(corpus):
        print('dmxinfo.py or corpus not found: skipped')
        return None
    sys.path.insert(0, tools)
    import dmxinfo  # noqa: E402
    return a, corpus, dmxinfo
