#!/usr/bin/env python3
"""The levelkit executable runs itself again on huge pages (cli::huge_page_tunables) for a
command that reads 1 MiB or more into memory, and only then: same output either way, one start
for a small input, a conversion, `info` on a VMF (counted piece by piece), a mapped format or
LEVELKIT_HUGE_PAGES=0; the second run keeps the executable's name.

Process starts are counted from the dynamic loader's own report (LD_DEBUG=statistics prints
"total startup time in dynamic loader" once per program it starts), against a run with
LEVELKIT_HUGE_PAGES=0 (a sanitizer's runtime may start the program again on its own).

    huge_pages_test.py --levelkit PATH [--no-reexec]   (--no-reexec: a sanitizer build)
"""
import argparse
import os
import subprocess
import sys
import tempfile

THP = '/sys/kernel/mm/transparent_hugepage/enabled'


def big_vmf(path, entities):
    with open(path, 'w', newline='\n') as f:
        f.write('versioninfo\n{\n\t"editorversion" "400"\n\t"mapversion" "1"\n}\n')
        f.write('world\n{\n\t"id" "1"\n\t"classname" "worldspawn"\n}\n')
        for i in range(entities):
            f.write(f'entity\n{{\n\t"id" "{i + 2}"\n\t"classname" "info_target"\n'
                    f'\t"targetname" "target_{i}"\n\t"origin" "{i % 512} {i // 512} 0"\n}}\n')


def clean_env(**env):
    """The caller's environment without what decides the second run, plus `env`."""
    e = dict(os.environ)
    for k in ('GLIBC_TUNABLES', 'LD_PRELOAD', 'LEVELKIT_HUGE_PAGES'):
        e.pop(k, None)
    e.update(env)
    return e


def run(levelkit, args, **env):
    e = clean_env(LD_DEBUG='statistics', **env)
    r = subprocess.run([levelkit, *args], capture_output=True, text=True, env=e)
    starts = r.stderr.count('total startup time in dynamic loader')
    return r.returncode, r.stdout, starts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--levelkit', required=True)
    ap.add_argument('--no-reexec', action='store_true')
    a = ap.parse_args()
    try:
        with open(THP) as f:
            thp = f.read()
    except OSError:
        thp = ''
    huge = not a.no_reexec and ('[always]' in thp or '[madvise]' in thp) and \
        sys.platform.startswith('linux')
    failures = []

    def check(what, cond):
        print(('ok   ' if cond else 'FAIL ') + what)
        if not cond:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        large = os.path.join(tmp, 'large.vmf')
        small = os.path.join(tmp, 'small.vmf')
        big_vmf(large, 14000)
        big_vmf(small, 100)
        check('the large input is 1 MiB or more', os.path.getsize(large) >= 1 << 20)

        rc, out, starts = run(a.levelkit, ['validate', '--json', large])
        rc0, out0, starts0 = run(a.levelkit, ['validate', '--json', large],
                                 LEVELKIT_HUGE_PAGES='0')
        check('validate on a large VMF succeeds, on huge pages or not', rc == 0 and rc0 == 0)
        check('the same report either way', out == out0 and out != '')
        if starts0 == 0:
            print('the dynamic loader reports no starts (not glibc?): starts not counted')
            return 1 if failures else 0
        more = 1 if huge else 0
        check(f'validate on a large VMF starts {more} more time(s) than with '
              f'LEVELKIT_HUGE_PAGES=0 (got {starts} and {starts0})', starts == starts0 + more)
        # The second run is started as /proc/self/exe, which the kernel names "exe"; it takes
        # its own name back (ps, top, pkill). Read from the ended process before it is reaped.
        if hasattr(os, 'waitid') and os.path.isdir('/proc/self'):
            p = subprocess.Popen([a.levelkit, 'validate', large], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL,
                                 env=clean_env())
            os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
            with open(f'/proc/{p.pid}/comm') as f:
                comm = f.read().strip()
            p.wait()
            name = os.path.basename(a.levelkit)[:15]
            check(f'the process is named {name} at its end (got {comm})', comm == name)
        _, _, s = run(a.levelkit, ['validate', large], GLIBC_TUNABLES='glibc.malloc.hugetlb=0')
        check(f"the user's glibc.malloc.hugetlb is kept (got {s} starts)", s == starts0)
        _, _, s = run(a.levelkit, ['validate', small])
        check(f'a small input starts no more (got {s})', s == starts0)
        rc, out, s = run(a.levelkit, ['info', '--json', large])
        check(f'info on a large VMF (counted piece by piece) starts no more (got {s}) and '
              f'succeeds', s == starts0 and rc == 0 and '"entities"' in out)
        rc, _, s = run(a.levelkit, ['convert', '-q', large, os.path.join(tmp, 'out.vmf')])
        check(f'a conversion starts no more (got {s}) and succeeds', s == starts0 and rc == 0)
    if failures:
        print(f'{len(failures)} check(s) failed', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
