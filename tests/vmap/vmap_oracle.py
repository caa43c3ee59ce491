#!/usr/bin/env python3
"""Oracle check: vmaps levelkit writes from VMFs (binary 9 and keyvalues2 4) parse to the last
byte with the independent parser notes/dmx_tools/dmxinfo.py, and re-read with levelkit.

Converts a spread of corpus VMFs (the three smallest and the largest of vmf/ and bsp/vmf/) with
the levelkit CLI. Exits 77 (skipped) when the corpus or dmxinfo.py is absent.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from oracle_setup import SKIP, setup  # noqa: E402



def main():
    found = setup()
    if found is None:
        return SKIP
    a, corpus, dmxinfo = found

    inputs = []
    for sub in ('vmf', os.path.join('bsp', 'vmf')):
        d = os.path.join(corpus, sub)
        if not os.path.isdir(d):
            continue
        files = sorted((os.path.join(d, f) for f in os.listdir(d) if f.lower().endswith('.vmf')),
                       key=os.path.getsize)
        inputs += files[:3] + files[-1:]
    if not inputs:
        print('no corpus VMFs: skipped')
        return SKIP
    written = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        # Text is three times the size and the Python parser slow: keyvalues2 for the small maps.
        small = [f for f in inputs if os.path.getsize(f) < (1 << 20)]
        for enc, ext, files in (('binary:9', '.vmap', inputs), ('keyvalues2:4', '.vmap.txt', small)):
            out = os.path.join(tmp, enc.replace(':', ''))
            os.mkdir(out)
            r = subprocess.run([a.levelkit, 'convert', *files, '--json', '-j', '2', '--out-dir',
                                out, '--to', ext, '--encoding', enc],
                               capture_output=True, text=True)
            for line in r.stdout.splitlines():
                if line.startswith('{') and json.loads(line).get('result') == 'failed':
                    print('conversion failed:', line)
                    failed += 1
            for f in sorted(os.listdir(out)):
                path = os.path.join(out, f)
                written += 1
                info = dmxinfo.inspect(path)
                if not info.get('ok') or info.get('trailing_bytes') or info.get('format') != 'vmap':
                    print(f'{enc}: {f}: dmxinfo: {info.get("error")}')
                    failed += 1
                    continue
                v = subprocess.run([a.levelkit, 'validate', path], capture_output=True, text=True)
                if v.returncode != 0:
                    print(f'{enc}: {f}: levelkit validate: {v.stdout}{v.stderr}')
                    failed += 1
    print(f'[vmap oracle] {written - failed}/{written} written vmaps (binary 9 and keyvalues2 4 '
          f'from {len(inputs)} VMFs) parse with dmxinfo.py and validate with levelkit')
    return 1 if failed or not written else 0


if __name__ == '__main__':
    sys.exit(main())
