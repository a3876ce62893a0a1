#!/usr/bin/env python3
"""Which targets, and which folders inside each target, reference each other (ARCHITECTURE.md §2).

The library targets are the folders of Sources/ that hold the layers (TARGETS below, lowest first).
A target uses another when a file of it names, in code (comments and string literals removed), a
type that the other declares at top level (struct, class, enum, protocol, typealias, actor); a name
resolves to the file's own target first. Prints, for each ordered pair of targets that cross, how many names
and files cross, then whether any two targets use each other (the compiler refuses it; a count
here would mean a name declared in both).

Inside each target a unit is a folder; with --top, each top-level folder with its subfolders.
Files directly in the target's folder form a unit of their own. Unit A uses unit B when a file of A
names a type that B declares. Extension methods that name no type are not seen, so the counts are
a lower bound. Prints each target's two-way pairs, each with the names used in both directions.

With --check (which implies --top) it exits 1, naming the offenders, when two targets use each other
or a target has more than two two-way pairs of top-level folders: the bound ARCHITECTURE.md §4 states,
kept by .ci/run.

usage: tools/folder-deps.py [--top] [--check]
"""
import os, re, sys
from collections import defaultdict
from itertools import combinations

sources = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'Sources')
TARGETS = ['StrataFormat', 'StrataText', 'StrataStorage', 'StrataQuery', 'StrataInspection', 'StrataObservation',
           'StrataImport', 'StrataMigration', 'StrataReplication', 'Strata', 'StrataStudio']
check = '--check' in sys.argv
top = '--top' in sys.argv or check
MAX_TWO_WAY = 2

def strip(text):
    text = re.sub(r'"""[\s\S]*?"""', '""', text)
    text = re.sub(r'/\*[\s\S]*?\*/', '', text)
    text = re.sub(r'//[^\n]*', '', text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)

def unit_of(target, path):
    rel = os.path.relpath(os.path.dirname(path), os.path.join(sources, target))
    if rel == '.': return '(top)'
    return rel.split(os.sep)[0] if top else rel

decl = re.compile(r'^(?:(?:public|package|internal|fileprivate|private|final|indirect|@\w+(?:\([^)]*\))?)\s+)*'
                  r'(?:struct|class|enum|protocol|typealias|actor)\s+([A-Z]\w*)', re.M)
word = re.compile(r'\b[A-Z]\w*\b')

files = {}    # path -> (target, code)
for target in TARGETS:
    for dirpath, _, names in os.walk(os.path.join(sources, target)):
        for name in names:
            if name.endswith('.swift'):
                path = os.path.join(dirpath, name)
                files[path] = (target, strip(open(path, encoding='utf-8').read()))

owner = defaultdict(dict)    # target -> type name -> unit declaring it
for path, (target, text) in files.items():
    for name in decl.findall(text):
        owner[target].setdefault(name, unit_of(target, path))

crossing = defaultdict(set)          # (A, B) -> names A uses from B
crossing_files = defaultdict(set)    # (A, B) -> files of A that use B
uses = defaultdict(lambda: defaultdict(lambda: defaultdict(set)))    # target -> A -> B -> names
for path, (target, text) in files.items():
    a = unit_of(target, path)
    for name in set(word.findall(text)):
        if name in owner[target]:
            b = owner[target][name]
            if b != a: uses[target][a][b].add(name)
            continue
        for other in TARGETS:
            if other != target and name in owner[other]:
                crossing[(target, other)].add(name)
                crossing_files[(target, other)].add(path)
                break

print('targets, lowest first: ' + ' → '.join(TARGETS))
for a, b in (pair for pair in combinations(TARGETS, 2)):
    for x, y in ((b, a), (a, b)):
        if crossing[(x, y)]:
            print(f"{x} uses {y}: {len(crossing[(x, y)])} names in {len(crossing_files[(x, y)])} files")
both = [(a, b) for a, b in combinations(TARGETS, 2) if crossing[(a, b)] and crossing[(b, a)]]
print(f"targets that use each other: {len(both)}" + ''.join(f"\n| {a} ↔ {b} | {', '.join(sorted(crossing[(a, b)])[:4])} | "
                                                        f"{', '.join(sorted(crossing[(b, a)])[:4])} |" for a, b in both))
too_many = []
for target in TARGETS:
    units = sorted(set(unit_of(t, path) for path, (t, _) in files.items() if t == target))
    pairs = [(a, b) for a, b in combinations(units, 2) if uses[target][a][b] and uses[target][b][a]]
    print(f"\n{target}: {len(units)} units, {len(units) * (len(units) - 1) // 2} pairs, {len(pairs)} two-way")
    for a, b in pairs:
        print(f"| {a} ↔ {b} | {', '.join(sorted(uses[target][a][b])[:4])} | {', '.join(sorted(uses[target][b][a])[:4])} |")
    if len(pairs) > MAX_TWO_WAY: too_many.append(f"{target} ({len(pairs)})")
if check:
    if both or too_many:
        print(f"folder-deps: FAILED: targets that use each other: {len(both)}; targets with more than "
              f"{MAX_TWO_WAY} two-way folder pairs: {', '.join(too_many) or 'none'}", file=sys.stderr)
        sys.exit(1)
    print(f"folder-deps: ok (no two targets use each other; at most {MAX_TWO_WAY} two-way folder pairs in each target)")
