#!/usr/bin/env python3
"""Oracle check: every binary DMX file levelkit writes parses to the last byte with the
independent parser notes/dmx_tools/dmxinfo.py.

Converts every corpus DMX file to binary 1-9 (where the types allow) with the levelkit CLI and
runs dmxinfo on each output. Exits 77 (skipped) when the corpus or dmxinfo.py is absent.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from oracle_setup import SKIP, setup  # noqa: E402

# What a conversion says when the target version cannot hold a type or the prefix attributes.
REFUSALS = ('cannot be stored in', 'cannot hold prefix', 'does not fit int32')


def main():
    found = setup()
    if found is None:
        return SKIP
    a, corpus, dmxinfo = found

    inputs = []
    for sub, exts in (('dmx', ('.dmx', '.vmap', '.pcf', '.txt', '.vtex', '.dmx.gz')),
                      ('model', ('.dmx', '.dmx.gz'))):
        d = os.path.join(corpus, sub)
        if os.path.isdir(d):
            inputs += sorted(os.path.join(d, f) for f in os.listdir(d) if f.lower().endswith(exts))
    written = failed = refused = 0
    with tempfile.TemporaryDirectory() as tmp:
        for version in range(1, 10):
            out = os.path.join(tmp, f'b{version}')
            os.mkdir(out)
            r = subprocess.run([a.levelkit, 'convert', *inputs, '--json', '-j', '2', '--out-dir',
                                out, '--to', '.dmx', '--encoding', f'binary:{version}',
                                '--set', 'dmx.coerce_integers=1'],
                               capture_output=True, text=True)
            for line in r.stdout.splitlines():
                if line.startswith('{') and '"failed"' in line:
                    if any(m in line for m in REFUSALS):
                        refused += 1
                    else:
                        print('conversion failed:', line)
                        failed += 1
            for f in sorted(os.listdir(out)):
                info = dmxinfo.inspect(os.path.join(out, f))
                written += 1
                if not info.get('ok') or info.get('trailing_bytes'):
                    print(f'binary {version}: {f}: dmxinfo: {info.get("error")}')
                    failed += 1
    print(f'[dmx oracle] dmxinfo.py parsed {written - failed}/{written} written binary files '
          f'(binary 1-9; {refused} conversions refused for types the version cannot hold)')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
