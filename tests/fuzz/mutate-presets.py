#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Structural mutation of every shipped project and search preset, run through the CLI the way a
# user would: each mutant is written to a scratch folder and given to the commands that read
# that kind of file (validate-project and evaluate for every project; serve for projects with a
# serving section or a wafer; search for search and co-exploration projects), each with small
# run sizes and a wall-clock limit.
#
# A run is fine when it exits 0 or 2 (a refusal) and a refusal prints an `error:` line. It is a
# finding when it is killed by a signal (crash), exits 3 ("error: internal") or another code,
# refuses without an `error:` line, or runs past the limit (hang). Findings are copied to
# OUT/findings/ with the command line; a summary is printed and written to OUT/summary.json.
#
#   python3 tests/fuzz/mutate-presets.py --cli build/app/stackscope-cli --mutants 2000 --out /tmp/mut
#
# Mutations (one to three per mutant, chosen with --seed): delete a key; set a value to an
# extreme or mistyped one (0, -1, 1e308, -1e308, 5e-324, 2^63, "", "x", [], {}, null, true, a
# 10^5-deep array); scale a number (x 1e-9 ... x 1e9, negated); duplicate an array element or
# empty an array; replace a string by another preset id; rename a key.
import argparse
import copy
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
EXTREMES = [0, -1, 1, 1e308, -1e308, 5e-324, 2**63, 2**31, -2**31, 0.5, '', 'x', [], {}, None,
            True, 'auto', 'none']
SCALES = [1e-9, 1e-3, 0.1, 0.5, 2, 10, 1e3, 1e9, -1]


def paths(v, prefix=()):
    """Every (path, value) in a JSON tree, containers included."""
    yield prefix, v
    if isinstance(v, dict):
        for k, x in v.items():
            yield from paths(x, prefix + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from paths(x, prefix + (i,))


def get_parent(doc, path):
    cur = doc
    for p in path[:-1]:
        cur = cur[p]
    return cur


def mutate_once(doc, rng, ids):
    all_paths = [p for p, _ in paths(doc) if p]
    if not all_paths:
        return doc
    path = rng.choice(all_paths)
    parent = get_parent(doc, path)
    key = path[-1]
    value = parent[key]
    op = rng.randrange(7)
    if op == 0 and isinstance(parent, dict):
        del parent[key]
    elif op == 0 and isinstance(parent, list) and len(parent) > 0:
        parent.pop(key)
    elif op == 1:
        parent[key] = copy.deepcopy(rng.choice(EXTREMES))
    elif op == 2 and isinstance(value, (int, float)) and not isinstance(value, bool):
        parent[key] = value * rng.choice(SCALES)
    elif op == 3 and isinstance(value, list) and value:
        if rng.random() < 0.5:
            value.append(copy.deepcopy(rng.choice(value)))
        else:
            value.clear()
    elif op == 4 and isinstance(value, str):
        parent[key] = rng.choice(ids)
    elif op == 5 and isinstance(parent, dict):
        parent[key + rng.choice(['_', 's', 'X'])] = parent.pop(key)
    elif op == 6 and rng.random() < 0.05:
        parent[key] = 'DEEP'  # replaced by a 10^5-deep array when written
    else:
        parent[key] = copy.deepcopy(rng.choice(EXTREMES))
    return doc


def to_text(doc):
    text = json.dumps(doc, indent=1, allow_nan=True)
    return text.replace('"DEEP"', '[' * 100000 + ']' * 100000)


def commands(cli, file, doc):
    """The command lines a user would run on this file, with small run sizes."""
    runs = []
    if isinstance(doc, dict) and 'search' in doc:
        runs.append([cli, 'search', file, '--strategy', 'random', '--max-evals', '30',
                     '--threads', '1'])
        runs.append([cli, 'search', file, '--max-evals', '30', '--threads', '1'])
    elif isinstance(doc, dict) and 'coexplore' in doc:
        runs.append([cli, 'validate-project', file])
        runs.append([cli, 'search', file, '--max-points', '1'])
    else:
        runs.append([cli, 'validate-project', file])
        runs.append([cli, 'evaluate', file])
        if isinstance(doc, dict) and ('serving' in doc or 'wafer' in doc):
            runs.append([cli, 'serve', file, '--requests', '40'])
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--cli', required=True)
    ap.add_argument('--mutants', type=int, default=1000)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--timeout', type=float, default=60)
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    cli = os.path.abspath(a.cli)
    sources = sorted(glob.glob(os.path.join(ROOT, 'presets/projects/*.json')) +
                     glob.glob(os.path.join(ROOT, 'presets/search/*.json')))
    ids = [os.path.splitext(os.path.basename(f))[0]
           for f in glob.glob(os.path.join(ROOT, 'presets/*/*.json'))]
    docs = [(f, json.load(open(f))) for f in sources]
    scratch = os.path.join(a.out, 'scratch')
    findings_dir = os.path.join(a.out, 'findings')
    os.makedirs(scratch, exist_ok=True)
    os.makedirs(findings_dir, exist_ok=True)
    counts = {'runs': 0, 'ok': 0, 'refused': 0, 'crash': 0, 'internal': 0, 'hang': 0,
              'no_error_line': 0, 'other_exit': 0}
    slowest = (0.0, '')
    start = time.time()
    for m in range(a.mutants):
        src, doc = docs[m % len(docs)]
        mutant = copy.deepcopy(doc)
        for _ in range(rng.randint(1, 3)):
            mutant = mutate_once(mutant, rng, ids)
        file = os.path.join(scratch, f'mutant-{m}.json')
        with open(file, 'w') as f:
            f.write(to_text(mutant))
        for cmd in commands(cli, file, mutant):
            counts['runs'] += 1
            t0 = time.time()
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout,
                                   cwd=scratch, errors='replace')
                kind = ('ok' if p.returncode == 0 else
                        'refused' if p.returncode == 2 and 'error:' in p.stderr else
                        'no_error_line' if p.returncode == 2 else
                        'internal' if p.returncode == 3 else
                        'crash' if p.returncode < 0 else 'other_exit')
                detail = p.stderr[-2000:]
            except subprocess.TimeoutExpired:
                kind, detail = 'hang', f'> {a.timeout} s'
            dt = time.time() - t0
            if dt > slowest[0]:
                slowest = (dt, ' '.join(cmd[1:]))
            counts[kind] += 1
            if kind not in ('ok', 'refused'):
                name = f'{kind}-{m}-{cmd[1]}'
                shutil.copy(file, os.path.join(findings_dir, name + '.json'))
                with open(os.path.join(findings_dir, name + '.txt'), 'w') as f:
                    f.write(' '.join(cmd) + '\n' + os.path.relpath(src, ROOT) + '\n' + detail)
        os.remove(file)
        if (m + 1) % 100 == 0:
            print(f'{m + 1}/{a.mutants} mutants, {counts}', file=sys.stderr, flush=True)
    counts['mutants'] = a.mutants
    counts['seconds'] = round(time.time() - start, 1)
    counts['slowest_s'] = round(slowest[0], 2)
    counts['slowest_run'] = slowest[1]
    counts['sources'] = [os.path.relpath(f, ROOT) for f in sources]
    with open(os.path.join(a.out, 'summary.json'), 'w') as f:
        json.dump(counts, f, indent=1)
    print(json.dumps({k: v for k, v in counts.items() if k != 'sources'}))
    bad = sum(counts[k] for k in ('crash', 'internal', 'hang', 'no_error_line', 'other_exit'))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
