"""Gymflow's stand-in for a DeepSWE v1.1 grader: runs the held-out tests with unittest, then writes a CTRF report
and the reward file NeMo Gym's deepswe server reads (reward 1.0 only when the patch applied and every
fail-to-pass and pass-to-pass test passed; f2p, p2p and partial the shares that did)."""
import json
import re
import subprocess
import sys

config = json.load(open("/tests/config.json"))
apply_failed = "--apply-failed" in sys.argv[1:]
run = subprocess.run([sys.executable, "-m", "unittest", "-v", *config["test_modules"]], cwd="/app", capture_output=True, text=True)
print(run.stderr, end="")

statuses = {}
for line in run.stderr.splitlines():
    m = re.match(r"^\w+ \(([\w.]+)\) \.\.\. (ok|FAIL|ERROR|skipped.*)$", line)
    if m:
        statuses[m.group(1)] = "passed" if m.group(2) == "ok" else "skipped" if m.group(2).startswith("skipped") else "failed"


def passed(tests):
    return sum(1 for test in tests if statuses.get(test) == "passed")


f2p, p2p = config["fail_to_pass"], config["pass_to_pass"]
f2p_passed, p2p_passed = passed(f2p), passed(p2p)
total = len(f2p) + len(p2p)
resolved = not apply_failed and f2p_passed == len(f2p) and p2p_passed == len(p2p)
reward = {
    "reward": 1.0 if resolved else 0.0,
    "apply_failed": apply_failed,
    "f2p_total": len(f2p),
    "f2p_passed": f2p_passed,
    "p2p_total": len(p2p),
    "p2p_passed": p2p_passed,
    "f2p": f2p_passed / len(f2p) if f2p else 1.0,
    "p2p": p2p_passed / len(p2p) if p2p else 1.0,
    "partial": (f2p_passed + p2p_passed) / total if total else 1.0,
}
tests = [{"name": name, "status": status} for name, status in statuses.items()]
summary = {"tests": len(tests), **{s: sum(1 for t in tests if t["status"] == s) for s in ("passed", "failed", "skipped")}, "pending": 0, "other": 0}
with open("/logs/verifier/ctrf.json", "w") as f:
    json.dump({"results": {"tool": {"name": "unittest"}, "summary": summary, "tests": tests}}, f, indent=1)
with open("/logs/verifier/reward.json", "w") as f:
    json.dump(reward, f)
print(f"reward {reward['reward']}: fail-to-pass {f2p_passed}/{len(f2p)}, pass-to-pass {p2p_passed}/{len(p2p)}{', the patch did not apply' if apply_failed else ''}")
