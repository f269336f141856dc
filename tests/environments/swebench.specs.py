"""Writes src/environments/swebench/data/swebench_specs.json: SWE-bench 4.1.0's evaluation specs, the data its
make_test_spec reads to build a task's eval script (MAP_REPO_VERSION_TO_SPECS's test_cmd, and per script
family the install/eval_commands or build lines), each repository's language (MAP_REPO_TO_EXT), log parser
(MAP_REPO_TO_PARSER, by function name) and whether it is graded fail-only (FAIL_ONLY_REPOS).

Usage: python swebench.specs.py <folder of SWE-bench 4.1.0 unpacked, see swebench_harness.py> <out.json>
"""
import json, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import swebench_harness

swebench_harness.load(sys.argv[1])
from swebench.harness.constants import FAIL_ONLY_REPOS, MAP_REPO_TO_EXT, MAP_REPO_VERSION_TO_SPECS
from swebench.harness.log_parsers import MAP_REPO_TO_PARSER

# What each eval-script family reads of a version's specs (swebench/harness/test_spec).
FAMILY_KEYS = {'py': ('test_cmd', 'eval_commands', 'install')}
COMMON_KEYS = ('test_cmd', 'build')

repos = {}
for repo, versions in MAP_REPO_VERSION_TO_SPECS.items():
    ext = MAP_REPO_TO_EXT[repo]
    keys = FAMILY_KEYS.get(ext, COMMON_KEYS)
    parser = MAP_REPO_TO_PARSER.get(repo)
    repos[repo] = {
        'ext': ext,
        'log_parser': parser.__name__ if parser else None,
        'fail_only': repo in FAIL_ONLY_REPOS,
        'versions': {v: {k: spec[k] for k in keys if k in spec} for v, spec in versions.items()},
    }

out = {
    'source': 'SWE-bench 4.1.0 (PyPI swebench==4.1.0), swebench/harness/constants and log_parsers; MIT License, Copyright (c) 2023 Carlos E Jimenez, John Yang, Alexander Wettig, Shunyu Yao, Kexin Pei, Ofir Press, Karthik R Narasimhan',
    'repos': repos,
}
Path(sys.argv[2]).write_text(json.dumps(out, indent=1, ensure_ascii=False) + '\n')
print(f'{len(repos)} repositories, {sum(len(r["versions"]) for r in repos.values())} versions', file=sys.stderr)
