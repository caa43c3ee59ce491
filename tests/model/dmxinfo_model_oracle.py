#!/usr/bin/env python3
"""Oracle check: every DMX model levelkit writes (each corpus model re-targeted to binary 5 /
model 18, binary 9 / model 22 and binary 2 / model 1, written anew from the neutral model, converted
in place, and written from the model read back from its glTF) parses to the last byte with the
independent parser notes/dmx_tools/dmxinfo.py, and carries the model header it was asked for.
Exits 77 (skipped) when the corpus or dmxinfo.py is absent.
"""
import gzip
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from oracle_setup import SKIP, setup  # noqa: E402

EXPECTED = {'b5m18': (5, 18), 'b9m22': (9, 22), 'b2m1': (2, 1)}


def main():
    found = setup()
    if found is None:
        return SKIP
    a, corpus, dmxinfo = found
    inputs = []
    for sub in ('model', 'dmx'):
        d = os.path.join(corpus, sub)
        if os.path.isdir(d):
            inputs += sorted(os.path.join(d, f) for f in os.listdir(d)
                             if f.lower().endswith(('.dmx', '.dmx.gz')))
    failed = written = 0
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([a.levelkit, tmp, *inputs], capture_output=True, text=True)
        for line in r.stdout.splitlines():
            if line.startswith('failed'):
                print(line)
                failed += 1
        for f in sorted(os.listdir(tmp)):
            written += 1
            path = os.path.join(tmp, f)
            with open(path, 'rb') as fh:
                data = fh.read()
            if data[:2] == b'\x1f\x8b':  # a .dmx.gz converted in place stays gzipped
                path += '.inner'
                with open(path, 'wb') as fh:
                    fh.write(gzip.decompress(data))
            info = dmxinfo.inspect(path)
            want = EXPECTED[f.split('.')[-2]]
            got = (info.get('encoding_version'), info.get('format_version'))
            if not info.get('ok') or info.get('trailing_bytes') or info.get('format') != 'model' \
                    or got != want:
                print(f'{f}: dmxinfo: {info.get("error")} header {info.get("header")}')
                failed += 1
    print(f'[model oracle] dmxinfo.py parsed {written - failed}/{written} written model files '
          f'(every corpus model as binary 5/18, 9/22, 2/1; new, converted in place and via glTF)')
    return 1 if failed or written == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
