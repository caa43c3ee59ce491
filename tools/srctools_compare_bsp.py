"""Compare `levelkit info --json` counts with srctools' BSP reader on every map given.

Run with the srctools wrapper (pure-Python srctools on Debian's python3):
    ../shared/tools/srctools-run.sh tools/srctools_compare_bsp.py build/cli/levelkit MAP...
Prints one line per map and a summary; exits 1 if any count disagrees.
Counted: entities, brushes, static props (and their model dictionary), detail props, pak
entries, planes, faces, original faces, texinfo, cubemaps, overlays. Maps srctools cannot open
are listed with its error (it has no big-endian support, for instance).
"""
import json
import subprocess
import sys

from srctools.bsp import BSP


def srctools_counts(path):
    bsp = BSP(path)
    ents = 1 + len(bsp.ents.entities)  # worldspawn is kept apart from the list
    return {
        'entities': ents,
        'brushes': len(bsp.brushes),
        'static_props': len(bsp.props),
        'static_prop_models': len(list(bsp.static_prop_models())),
        'detail_props': len(bsp.detail_props),
        'pak_entries': len(bsp.pakfile.namelist()),
        'planes': len(bsp.planes),
        'faces': len(bsp.faces),
        'original_faces': len(bsp.orig_faces),
        'texinfo': len(bsp.texinfo),
        'cubemaps': len(bsp.cubemaps),
        'overlays': len(bsp.overlays),
    }


def main():
    levelkit, maps = sys.argv[1], sys.argv[2:]
    disagree = opened = 0
    for path in maps:
        info = json.loads(subprocess.run([levelkit, 'info', '--json', path], check=True,
                                         capture_output=True, text=True).stdout)
        try:
            theirs = srctools_counts(path)
        except Exception as exc:  # noqa: BLE001 - report whatever srctools raises
            print(f'{path}: srctools cannot read it: {type(exc).__name__}: {exc}')
            continue
        opened += 1
        diffs = {k: (info.get(k), v) for k, v in theirs.items() if info.get(k) != v}
        if diffs:
            disagree += 1
            print(f'{path}: DIFFERS (levelkit, srctools): {diffs}')
        else:
            print(f'{path}: agree {theirs}')
    print(f'{opened} maps opened by srctools, {disagree} disagree')
    sys.exit(1 if disagree else 0)


if __name__ == '__main__':
    main()
