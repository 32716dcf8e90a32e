#!/usr/bin/env python3
"""The tiny execute's own work, counted: instructions per execute on each side
and any rep-string instruction on the path.

Wall time of a tiny execute on these shared machines moves with where the
host places the client and the DSP process (docs/performance.md); the work
each side does per execute does not. This runs bench_execute's tiny
executes under callgrind (valgrind, a Debian package; not part of the build
or the tests), twice with different lengths, and differences the two, so
that start-up and the first calls cancel out:

  - instructions per execute in the client (inside QnnGraph_execute) and in
    the DSP process (inside its slot threads), the spin-waits for the other
    side left out (their count depends on how long the other side took);
  - with --functions, the same per function;
  - the instructions that cost far more than one, per execute, with their
    function: locked read-modify-writes, fences, divisions, and rep strings
    (on the CPUs here a short `rep stos`/`rep movs` costs ~4 ns more than
    the same bytes as vector moves, and GCC emits one for any clear or
    variable-size copy of 11 words or more: the path should have none).

  bench/execute_path_profile.py [build_dir] [--mode memhandle|inproc] [--functions]
"""
import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Functions whose instructions are waiting, not work: the spin and futex
# waits on both sides and the loops around them.
WAIT = re.compile(r'futex_wait_change|clock_gettime|steady_clock|sched_yield|syscall|await_response|'
                  r'slot_loop|nanosleep|interval_ticks')


# Instructions that cost far more than their count: rep strings, locked
# read-modify-writes (and xchg with memory, locked implicitly), fences,
# divisions, time-stamp reads.
COSTLY = re.compile(r'rep[a-z]* +[a-z]+|lock +[a-z]+|xchg|mfence|sfence|lfence|i?div[a-z]*|rdtscp?|cpuid|pause')


def run_callgrind(build, mode, min_time, out_dir):
    for f in glob.glob(os.path.join(out_dir, 'out.*')):
        os.remove(f)
    subprocess.run(['valgrind', '--tool=callgrind', '--dump-instr=yes', '--trace-children=yes',
                    '--toggle-collect=QnnGraph_execute', '--toggle-collect=*ClientChannel::slot_loop*',
                    '--callgrind-out-file=' + os.path.join(out_dir, 'out.%p'),
                    os.path.join(build, 'bin', 'bench_execute'),
                    f'--benchmark_filter=BM_TinyExecute/{mode}/manual_time$', f'--benchmark_min_time={min_time}'],
                   check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # The client is the lower pid (it starts the DSP process).
    return sorted(glob.glob(os.path.join(out_dir, 'out.*')), key=lambda p: int(p.rsplit('.', 1)[1]))


def parse(path):
    """Self cost per (object, function, address), and the executes seen (the
    calls of ExecuteMemo::of_this_thread, once per QnnGraph_execute)."""
    objs, fns = {}, {}
    ob = fn = callee = None
    addr = 0
    after_calls = False
    cost = collections.Counter()
    executes = 0
    for line in open(path):
        line = line.rstrip('\n')
        m = re.match(r'(c?)(ob|fn)=\((\d+)\)(?: (.*))?$', line)
        if m:
            table = objs if m.group(2) == 'ob' else fns
            if m.group(4):
                table[m.group(3)] = m.group(4)
            if not m.group(1):
                if m.group(2) == 'ob':
                    ob = table.get(m.group(3))
                else:
                    fn = table.get(m.group(3))
            elif m.group(2) == 'fn':
                callee = table.get(m.group(3))
            continue
        if line.startswith('calls='):
            after_calls = True
            if callee and callee.startswith('openhtp::qnn::ExecuteMemo::of_this_thread'):
                executes += int(line.split('=')[1].split()[0])
            continue
        if not line or line[0] not in '0123456789+-*':
            continue
        tok = line.split()
        a = tok[0]
        addr = addr if a == '*' else addr + int(a, 0) if a[0] in '+-' else int(a, 0)
        if after_calls:  # the inclusive cost of the call just named
            after_calls = False
            continue
        if len(tok) >= 3:
            cost[(ob, fn, addr)] += int(tok[2])
    return cost, executes


def disassembly(obj, cache={}):
    if obj not in cache:
        text = subprocess.run(['objdump', '-d', '--no-show-raw-insn', obj], capture_output=True, text=True).stdout
        cache[obj] = {int(m.group(1), 16): m.group(2) for m in re.finditer(r'^\s*([0-9a-f]+):\s+(.*)$', text, re.M)}
    return cache[obj]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('build', nargs='?', default='build')
    ap.add_argument('--mode', default='memhandle', choices=['memhandle', 'inproc', 'clientbuf'])
    ap.add_argument('--functions', action='store_true', help='list instructions per function')
    args = ap.parse_args()
    for tool in ('valgrind', 'objdump'):
        if shutil.which(tool) is None:
            sys.exit(f'execute_path_profile: needs {tool} (apt-get install valgrind binutils)')
    out_dir = tempfile.mkdtemp(prefix='execute_path_')
    runs = []
    for min_time in (0.01, 0.04):
        files = run_callgrind(args.build, args.mode, min_time, out_dir)
        runs.append([parse(f) for f in files])
    shutil.rmtree(out_dir, ignore_errors=True)
    executes = runs[1][0][1] - runs[0][0][1]
    if executes <= 0:
        sys.exit('execute_path_profile: no executes counted (did bench_execute run?)')
    sides = ['client', 'DSP process']
    for i, side in enumerate(sides[:len(runs[1])]):
        a, b = runs[0][i][0], runs[1][i][0]
        per_fn = collections.Counter()
        for key in set(a) | set(b):
            per_fn[key[1]] += b[key] - a[key]
        work = {f: c / executes for f, c in per_fn.items() if f and not WAIT.search(f)}
        print(f'{side}: {sum(work.values()):.0f} instructions per execute, waits excluded ({executes} executes)')
        if args.functions:
            for f, c in sorted(work.items(), key=lambda kv: -kv[1]):
                if c >= 3:
                    print(f'  {c:7.1f}  {f[:120]}')
        costly = collections.Counter()
        for (obj, fn, addr), c in b.items():
            per = (c - a.get((obj, fn, addr), 0)) / executes
            if per >= 0.5 and obj and obj.startswith('/') and not (fn and WAIT.search(fn)):
                ins = disassembly(obj).get(addr, '')
                kind = COSTLY.match(ins)
                if kind:
                    # callgrind counts a rep instruction once per iteration
                    costly[(kind.group(0).strip(), fn)] += 1 if ins.startswith('rep') else per
        for (kind, fn), n in sorted(costly.items(), key=lambda kv: -kv[1]):
            print(f'  {kind:12s} x{n:4.1f}  {fn[:100]}')
        if not any(k.startswith('rep') for k, _ in costly):
            print('  no rep-string instruction on the path')


if __name__ == '__main__':
    main()
