#!/usr/bin/env python3
"""ctest (host): the GitHub Actions workflow parses as YAML and keeps its gate.

actionlint is not in Debian; this checks what a YAML parse can: the two jobs exist, the sm90
job runs on the self-hosted sm90 runner, runs scripts/ci-sm90.sh, and its `if:` admits only
pushes to main and labelled pull requests from this repository (never forks).
Exit 77 (skip) when PyYAML is missing.
"""
import sys

try:
    import yaml
except ImportError:
    print("skipped: python3 yaml module missing")
    sys.exit(77)

wf = yaml.safe_load(open(sys.argv[1]))
jobs = wf["jobs"]
errors = []
if set(jobs) != {"cpu", "sm90"}:
    errors.append("jobs are %s, expected cpu and sm90" % sorted(jobs))
cpu = " ".join(s.get("run", "") for s in jobs["cpu"]["steps"])
if ".ci/run" not in cpu:
    errors.append("cpu job does not run .ci/run")
sm90 = jobs["sm90"]
if sm90.get("runs-on") != ["self-hosted", "linux", "sm90"]:
    errors.append("sm90 runs-on is %s" % sm90.get("runs-on"))
if "scripts/ci-sm90.sh" not in " ".join(s.get("run", "") for s in sm90["steps"]):
    errors.append("sm90 job does not run scripts/ci-sm90.sh")
gate = sm90.get("if", "")
for needle in ("refs/heads/main", "head.repo.full_name == github.repository", "run-sm90"):
    if needle not in gate:
        errors.append("sm90 gate lacks %r" % needle)
if "pull_request_target" in (wf.get(True) or wf.get("on") or {}):
    errors.append("pull_request_target would run fork code with secrets")
for e in errors:
    print("FAIL: " + e)
print("workflow: %d jobs, %d problems" % (len(jobs), len(errors)))
sys.exit(1 if errors else 0)
