#!/usr/bin/env python3
"""Which folders of Sources/Strata reference each other both ways (ARCHITECTURE.md §2).

A unit is a folder; with --top, each top-level folder of Sources/Strata with its subfolders. Files
directly in Sources/Strata form a unit of their own. Unit A uses unit B when a file of A names, in
code (comments and string literals removed), a type that B declares at top level (struct, class,
enum, protocol, typealias, actor). Extension methods that name no type are not seen, so the counts
are a lower bound. Prints the two-way pairs, each with the names used in both directions.

usage: tools/folder-deps.py [--top]
"""
import os, re, sys
from collections import defaultdict
from itertools import combinations

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'Sources', 'Strata')
top = '--top' in sys.argv

def unit_of(path):
    rel = os.path.relpath(os.path.dirname(path), root)
    if rel == '.': return '(top)'
    return rel.split(os.sep)[0] if top else rel

def strip(text):
    text = re.sub(r'"""[\s\S]*?"""', '""', text)
    text = re.sub(r'/\*[\s\S]*?\*/', '', text)
    text = re.sub(r'//[^\n]*', '', text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)

files = []
for dirpath, _, names in os.walk(root):
    files += [os.path.join(dirpath, n) for n in names if n.endswith('.swift')]
code = {f: strip(open(f, encoding='utf-8').read()) for f in files}
declared = defaultdict(set)
decl = re.compile(r'^(?:(?:public|package|internal|fileprivate|private|final|indirect|@\w+(?:\([^)]*\))?)\s+)*'
                  r'(?:struct|class|enum|protocol|typealias|actor)\s+([A-Z]\w*)', re.M)
for f, text in code.items():
    for name in decl.findall(text):
        declared[unit_of(f)].add(name)
owner = {}
for unit, names in declared.items():
    for name in names: owner.setdefault(name, unit)
uses = defaultdict(lambda: defaultdict(set))
word = re.compile(r'\b[A-Z]\w*\b')
for f, text in code.items():
    a = unit_of(f)
    for name in set(word.findall(text)):
        b = owner.get(name)
        if b and b != a: uses[a][b].add(name)
units = sorted(set(unit_of(f) for f in files))
pairs = [(a, b) for a, b in combinations(units, 2) if uses[a][b] and uses[b][a]]
print(f"{len(units)} units, {len(units) * (len(units) - 1) // 2} pairs, {len(pairs)} two-way")
for a, b in pairs:
    print(f"| {a} ↔ {b} | {', '.join(sorted(uses[a][b])[:4])} | {', '.join(sorted(uses[b][a])[:4])} |")
