"""Runs AgentIF code checks inside Gymflow's jail, one per line of stdin ({"source", "input"} as JSON): each
defines the dataset's check_following in fresh globals (adding a missing `def`, running the source's import
lines first, as NeMo Gym does) and calls it on the input. Writes to the original stdout a line
{"started": true}, then one reply line per check, {"value": ...} or {"error": "..."}; anything a check prints
goes to stderr instead.
"""
import json
import os
import re
import sys

result = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
sys.stdout = sys.stderr

DEFINED = re.compile(r"^\s*def\s+check_following\s*\(", re.MULTILINE)
BARE = re.compile(r"^(\s*)check_following\s*\(", re.MULTILINE)
IMPORT = re.compile(r"^\s*(import\s+\S+|from\s+\S+\s+import\s+\S+)", re.MULTILINE)


def outcome(value):
    if isinstance(value, str):
        return {"value": {"type": "str", "text": value}}
    if value is None:
        return {"value": {"type": "none"}}
    return {"value": {"type": "truthy", "truthy": bool(value)}}


def run(job):
    source = job["source"]
    if source and not DEFINED.search(source):
        source = BARE.sub(r"\1def check_following(", source, count=1)
    scope = {}
    try:
        for statement in IMPORT.findall(source):
            exec(statement, scope)
        exec(source, scope)
        if "check_following" not in scope:
            return {"error": "check_following not defined"}
        return outcome(scope["check_following"](job["input"]))
    except Exception as exc:  # any failure of the dataset's code is the constraint's error
        return {"error": f"{type(exc).__name__}: {exc}"}


# Started: from here on, a missing reply is the check's own doing (it exited or crashed the interpreter).
result.write('{"started": true}\n')
result.flush()
for line in sys.stdin:
    result.write(json.dumps(run(json.loads(line)), ensure_ascii=False) + "\n")
    result.flush()
