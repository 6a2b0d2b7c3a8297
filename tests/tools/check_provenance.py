#!/usr/bin/env python3
"""ctest (host): figures cite files, not history.

  - Comments in host/ and kernels/: no dates, no work-period or run names (session N, issue N,
    run A), no commit hashes. A date or hash inside a path to a file that exists is a citation
    and passes.
  - The docs (README.md, docs/*.md but the generated results.md, scripts/README.md,
    examples/README.md): no issue or session numbers, no commit hashes, no words about lent
    machines or device calls.
  - Every docs/data/ file named in those docs and comments exists (brace lists {a,b} and *
    expanded).
  - Every docs/data/ file is named somewhere: in the docs (results.md included), the scripts,
    the benchmarks, the tests or a comment, with or without its docs/data/ prefix (a run no
    document cites any more is deleted, not kept).

usage: check_provenance.py REPO_ROOT
"""
import fnmatch
import glob
import itertools
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
failures = []

DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
# "issue 37.4%" is ncu's issue-active figure, not an issue number.
PERIOD = re.compile(r"\b(?:[Ss]ession|[Ii]ssue)s? \d+\b(?![.%\d-])|\brun [A-Z]\b(?! ?[a-z])")
HASH = re.compile(r"(?<![0-9a-zA-Z_x/.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![0-9a-zA-Z_/.-])")
MACHINE = re.compile(r"\b(?:(?:one|a|each|per|longer than one) device call|lent (?:GPU )?machine|"
                     r"a lent\b|machine lent)", re.I)
DATA_REF = re.compile(r"docs/data/[A-Za-z0-9_.{},*?\[\]-]+")


def expand(ref):
    """A docs/data reference with {a,b} lists as the paths it names."""
    ref = ref.rstrip(".,;:)")
    parts = re.split(r"(\{[^}]*\})", ref)
    choices = [p[1:-1].split(",") if p.startswith("{") else [p] for p in parts]
    return ["".join(c) for c in itertools.product(*choices)]


def join_broken_names(text):
    """The text with file names broken over two lines (after a hyphen) joined again."""
    return re.sub(r"-\n[\s/#*]*", "-", text)


def data_refs_exist(text, where):
    text = join_broken_names(text)
    for m in DATA_REF.finditer(text):
        for path in expand(m.group(0)):
            if path.endswith("/"):
                continue
            if not glob.glob(os.path.join(root, path)):
                failures.append(f"{where}: names {path}, which does not exist")


def strip_paths(text):
    """The text without the paths it cites (a date or hash inside a file name is a citation)."""
    return DATA_REF.sub("", text)


def comments(src):
    """(line number, text) of every // and /* */ comment of a C++ or CUDA source."""
    out = []
    for n, line in enumerate(src.splitlines(), 1):
        # String literals are not comments: drop them first (roughly, enough for this tree).
        code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
        i = code.find("//")
        if i >= 0:
            out.append((n, code[i + 2:]))
    for m in re.finditer(r"/\*.*?\*/", src, re.S):
        out.append((src.count("\n", 0, m.start()) + 1, m.group(0)))
    return out


for pattern in ("host/**/*.cpp", "host/**/*.hpp", "kernels/**/*.cu", "kernels/**/*.cuh",
                "kernels/**/*.hpp", "kernels/**/*.cpp"):
    for path in sorted(glob.glob(os.path.join(root, pattern), recursive=True)):
        rel = os.path.relpath(path, root)
        if rel.endswith(".inc"):
            continue
        src = open(path, encoding="utf-8").read()
        for n, text in comments(src):
            data_refs_exist(text, f"{rel}:{n}")
            bare = strip_paths(text)
            for rx, what in ((DATE, "a date"), (PERIOD, "a work-period or run name"),
                             (HASH, "a commit hash")):
                m = rx.search(bare)
                if m:
                    failures.append(f"{rel}:{n}: comment has {what} ({m.group(0)!r}): give the "
                                    f"reason and cite a file instead")

docs = [os.path.join(root, p) for p in ("README.md", "scripts/README.md", "examples/README.md")]
docs += [p for p in sorted(glob.glob(os.path.join(root, "docs", "*.md")))
         if os.path.basename(p) != "results.md"]
for path in docs:
    if not os.path.exists(path):
        continue
    rel = os.path.relpath(path, root)
    text = open(path, encoding="utf-8").read()
    data_refs_exist(text, rel)
    for n, line in enumerate(text.splitlines(), 1):
        bare = strip_paths(line)
        for rx, what in ((PERIOD, "an issue or session number"), (HASH, "a commit hash"),
                         (MACHINE, "words about lent machines")):
            m = rx.search(bare)
            if m:
                failures.append(f"{rel}:{n}: {what} ({m.group(0)!r})")

# Every docs/data/ file cited: a file name (brace lists and * expanded) anywhere in the tree's
# documents, scripts, benchmarks, tests and sources.
NAME = re.compile(r"[A-Za-z0-9_.{},*?-]+\.(?:json\.xz|tar\.xz|json|txt|csv|md)")
cited = set()
cited_globs = []
sources = [os.path.join(root, p) for p in ("README.md", "scripts/README.md", "examples/README.md")]
for pattern in ("docs/*.md", "scripts/*", "bench/*", "tests/**/*", "host/**/*", "kernels/**/*",
                "python/**/*.py", ".ci/*"):
    sources += glob.glob(os.path.join(root, pattern), recursive=True)
for path in sources:
    if not os.path.isfile(path) or os.path.abspath(path) == os.path.abspath(__file__):
        continue
    try:
        text = open(path, encoding="utf-8", errors="ignore").read()
    except OSError:
        continue
    text = join_broken_names(text)
    for m in NAME.finditer(text):
        for name in expand(m.group(0)):
            name = os.path.basename(name)
            if "*" in name or "?" in name:
                cited_globs.append(name)
            else:
                cited.add(name)
for path in sorted(glob.glob(os.path.join(root, "docs", "data", "*"))):
    name = os.path.basename(path)
    if name not in cited and not any(fnmatch.fnmatch(name, g) for g in cited_globs):
        failures.append(f"docs/data/{name}: no document, script or source names it (delete it, "
                        f"or cite it where its figures are used)")

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
