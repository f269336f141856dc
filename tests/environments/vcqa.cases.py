"""Differential cases for Gymflow's vcqa: NeMo Gym 0.7.0's own vcqa_agent code (materialize.py, tools.py,
judge.py) run on the same artifacts Gymflow's tests use, recording what each tool call and each judge
exchange gives.

The working trees are made by NeMo Gym's materialize_working_tree from the artifact files. Tool calls go
through NeMo Gym's dispatch_tool with a sandbox like its Apptainer one: the tree read-only at /codebase,
a writable /tmp/scratch, `bash -lc` in /codebase; here a bubblewrap jail over this machine's /usr
(Debian bookworm, ripgrep 13.0.0, fd-find 8.6.0 linked as fd, as NeMo Gym's default image installs), without /etc.
The judge cases run judge.grade with its HTTP request replaced by scripted replies.

Usage: python vcqa.cases.py <out.jsonl>    (in the nemo-gym venv, as root or with user namespaces)
"""
import asyncio, json, os, shutil, subprocess, sys, tempfile
from pathlib import Path

from responses_api_agents.vcqa_agent import judge as judge_mod
from responses_api_agents.vcqa_agent.materialize import materialize_working_tree
from responses_api_agents.vcqa_agent.sandbox import ExecResult, _exec_with_timeout
from responses_api_agents.vcqa_agent.tools import build_tool_definitions, dispatch_tool

HERE = Path(__file__).resolve().parent
ARTIFACTS = HERE.parent.parent / "src/environments/vcqa/data/artifacts"
TREES = {
    "fileset": ("fileset", ARTIFACTS / "fileset/tinykv-481693abcf53a422112895d64cb51a611145fc53.tar.gz", None),
    "githistory": ("githistory", ARTIFACTS / "githistory/tinykv.bundle", "b18293036a80841592e52abd454b296621f9ef9c"),
    "githistory_first": ("githistory", ARTIFACTS / "githistory/tinykv.bundle", "91acd4db41be3a5cf2f659e0a0a5bdf8c4412e93"),
    "edge": ("fileset", HERE / "vcqa.edge.tar.gz", None),
}


class JailSandbox:
    """NeMo Gym's ApptainerSandbox surface, with bwrap standing in for `apptainer exec instance://`."""

    codebase_path = "/codebase"
    scratch_path = "/tmp/scratch"
    todos_path = "/tmp/scratch/todos.md"

    def __init__(self, tree: Path, scratch: Path):
        self.tree, self.scratch = tree, scratch
        scratch.mkdir(parents=True, exist_ok=True)
        (scratch / "todos.md").touch()

    async def exec(self, command, timeout_s=None):
        argv = ["bwrap", "--unshare-all", "--die-with-parent", "--clearenv",
                "--setenv", "PATH", "/opt/bin:/usr/bin:/bin", "--setenv", "HOME", "/tmp/scratch", "--setenv", "LANG", "C.UTF-8",
                "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                "--dir", "/opt/bin", "--symlink", "/usr/bin/fdfind", "/opt/bin/fd",
                "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                "--ro-bind", str(self.tree), "/codebase", "--bind", str(self.scratch), "/tmp/scratch",
                "--chdir", "/codebase", "--remount-ro", "/", "bash", "-lc", command]
        return await _exec_with_timeout(argv, timeout_s=timeout_s if timeout_s is not None else 30, cwd=None)


CALLS = {
    "edge": [
        ("read_file", {"path": "src/greet.txt"}),
        ("read_file", {"path": "/codebase/src/greet.txt"}),
        ("read_file", {"path": "./src/../src/greet.txt", "max_bytes": 7}),
        ("read_file", {"path": "src/greet.txt", "max_bytes": 0}),
        ("read_file", {"path": "src/greet.txt", "max_bytes": -5}),
        ("read_file", {"path": "src/greet.txt", "max_bytes": "4"}),
        ("read_file", {"path": "src/greet.txt", "max_bytes": 2.0}),
        ("read_file", {"path": "src/greet.txt", "max_bytes": 2.5}),
        ("read_file", {"path": "src/greet.txt", "max_bytes": True}),
        ("read_file", {"path": "src/greet.txt", "max_bytes": None}),
        ("read_file", {"path": "src/unicode.txt", "max_bytes": 5}),
        ("read_file", {"path": "src/latin1.txt"}),
        ("read_file", {"path": "src/blob.bin"}),
        ("read_file", {"path": "src/crlf.txt"}),
        ("read_file", {"path": "src/wide.txt"}),
        ("read_file", {"path": "src/big.txt"}),
        ("read_file", {"path": "src/link.txt"}),
        ("read_file", {"path": "src/escape.txt"}),
        ("read_file", {"path": "src/missing.txt"}),
        ("read_file", {"path": "src"}),
        ("read_file", {"path": ""}),
        ("read_file", {"path": "../etc/passwd"}),
        ("read_file", {"path": "/etc/passwd"}),
        ("read_file", {"path": "/codebase/../etc/passwd"}),
        ("read_file", {"path": "/codebasex/a"}),
        ("read_file", {}),
        ("read_file", {"path": 3}),
        ("read_file", {"path": "src/greet.txt", "extra": 1}),
        ("read_file", ["src/greet.txt"]),
        ("list_dir", {"path": "src/deep/er"}),
        ("list_dir", {"path": "../"}),
        ("list_dir", {"path": "nope"}),
        ("list_dir", {"path": "src/greet.txt"}),
        ("grep", {"pattern": "hello"}),
        ("grep", {"pattern": "hello", "case_insensitive": True}),
        ("grep", {"pattern": "hello", "path": "src/greet.txt"}),
        ("grep", {"pattern": "HELLO|World", "path": "src"}),
        ("grep", {"pattern": "hello", "path": ".hidden"}),
        ("grep", {"pattern": "hello", "path": "src/debug.log"}),
        ("grep", {"pattern": "line 1[0-9]{2} ", "path": "src/big.txt", "max_count": 3}),
        ("grep", {"pattern": "line 19", "path": "src/big.txt", "max_count": 0}),
        ("grep", {"pattern": "line 199", "path": "src/big.txt", "max_count": None}),
        ("grep", {"pattern": "padding", "path": "src/big.txt", "max_count": 0}),
        ("grep", {"pattern": "a.b(", "fixed_strings": True}),
        ("grep", {"pattern": "(unclosed"}),
        ("grep", {"pattern": "^def \\w+", "path": "src/deep"}),
        ("grep", {"pattern": "\\bfind_me\\b", "case_insensitive": True}),
        ("grep", {"pattern": "na.ve"}),
        ("grep", {"pattern": "second$", "path": "src/crlf.txt"}),
        ("grep", {"pattern": "absent-token"}),
        ("grep", {"pattern": "x", "path": "missing/dir"}),
        ("grep", {"pattern": "x", "path": "/tmp"}),
        ("grep", {"pattern": "-e"}),
        ("grep", {"pattern": ""}),
        ("glob", {"pattern": "*.py"}),
        ("glob", {"pattern": "*.PY"}),
        ("glob", {"pattern": "*.txt", "path": "src"}),
        ("glob", {"pattern": "mod.py"}),
        ("glob", {"pattern": "src/*.txt"}),
        ("glob", {"pattern": "**/*.py"}),
        ("glob", {"pattern": "{greet,crlf}.txt"}),
        ("glob", {"pattern": "g?eet.*"}),
        ("glob", {"pattern": "[bc]*"}),
        ("glob", {"pattern": ".*"}),
        ("glob", {"pattern": "er"}),
        ("glob", {"pattern": "*", "path": "src/deep"}),
        ("glob", {"pattern": "nothing*"}),
        ("glob", {"pattern": "*", "path": "nope"}),
        ("glob", {"pattern": "*", "path": "/etc"}),
        ("write_todos", {"items": ["look at store.py", "it's \"quoted\" $HOME"]}),
        ("write_todos", {"items": []}),
        ("write_todos", {"items": "one"}),
        ("bash", {"command": "cat /tmp/scratch/todos.md"}),
        ("bash", {"command": "echo out; echo err >&2; exit 3"}),
        ("bash", {"command": "pwd; ls src/deep"}),
        ("bash", {"command": "touch /codebase/new.txt"}),
        ("bash", {"command": "cat src/greet.txt | wc -l", "timeout": 120}),
        ("bash", {"command": "sleep 5; echo late", "timeout": 1}),
        ("bash", {"command": "true", "timeout": 0}),
        ("bash", {"command": "true", "timeout": 121}),
        ("bash", {"command": "true", "timeout": "7"}),
        ("bash", {"command": "head -c 40000 src/wide.txt"}),
        ("install_package", {"name": "numpy", "manager": "pip"}),
        ("send_pr_review", {"comments": "LGTM"}),
        ("websearch", {"query": "  lru cache  "}),
        ("websearch", {"query": "   "}),
        ("ask_user", {"question": "Which commit do you mean?"}),
        ("ask_user", {"question": "Q" * 100 + " it's"}),
        ("make_coffee", {}),
    ],
    "fileset": [
        ("list_dir", {"path": "."}),
        ("grep", {"pattern": "ttl"}),
        ("grep", {"pattern": "DEFAULT_CAPACITY", "path": "tinykv"}),
        ("glob", {"pattern": "*.md"}),
        ("glob", {"pattern": "*"}),
        ("read_file", {"path": "tinykv/store.py"}),
        ("bash", {"command": "git log --oneline 2>&1; echo exit=$?"}),
    ],
    "githistory": [
        ("bash", {"command": "git log --format='%H %ad %s' --date=iso-strict"}),
        ("bash", {"command": "git log -S ttl --format=%h -- tinykv/store.py"}),
        ("bash", {"command": "git show --stat --format=%s HEAD"}),
        ("bash", {"command": "git status --porcelain; git rev-parse HEAD"}),
        ("grep", {"pattern": "ttl"}),
        ("glob", {"pattern": "*.py"}),
        ("read_file", {"path": "CHANGELOG.md"}),
    ],
    "githistory_first": [
        ("bash", {"command": "git rev-parse HEAD; git log --oneline | wc -l"}),
        ("glob", {"pattern": "*.md"}),
        ("grep", {"pattern": "ttl", "path": "tinykv/store.py"}),
    ],
}


async def tool_cases():
    out = []
    with tempfile.TemporaryDirectory(prefix="vcqa-cases-") as tmp:
        for name, (kind, artifact, head) in TREES.items():
            scratch = Path(tmp) / name
            scratch.mkdir()
            tree = await materialize_working_tree(dataset_kind=kind, artifact_url=str(artifact), head_sha=head, scratch_dir=scratch)
            sandbox = JailSandbox(tree, scratch / "sandbox_scratch")
            for tool, args in CALLS[name]:
                result = await dispatch_tool(tool, args, sandbox)
                out.append({"kind": "tool", "tree": name, "tool": tool, "args": args, "result": result})
    return out


RUBRICS = [
    {"judge": [{"id": "a", "title": "Names Store._evict.", "importance": "must have", "evidence_required": ["tinykv/store.py", 3, "Store._evict"]},
               {"id": "b", "title": "  Mentions capacity  ", "importance": "Must Have"},
               {"id": "c", "title": "Nice extra.", "importance": "good to have"},
               {"id": "d", "title": "", "description": "falls back to description", "importance": "must"},
               {"id": "e", "title": "   ", "importance": "must-have"},
               {"id": "f", "category": "must_have", "description": "Legacy item."},
               {"id": "g", "title": "Empty evidence.", "importance": "must_have", "evidence_required": []},
               {"id": "h", "title": "Evidence not a list.", "importance": "must have", "evidence_required": "x"},
               "not a dict",
               {"id": "i", "title": "No importance."}]},
    {"judge": []},
    {"other": [{"title": "x", "importance": "must have"}]},
    None,
    {"judge": [{"title": "Only good.", "importance": "good to have"}]},
    {"judge": [{"title": "T", "importance": "must have", "evidence_required": ["only", None, "strings"]}]},
]

REPLIES = ["YES", "NO", "yes", " No. ", "YES.\nBecause", "Yes, it does", "", None, "\nYES", "YES..", "NO\n\nexplanation", "maybe", "Y E S", "ＹＥＳ", "ß", "yes!"]


async def judge_cases():
    out = []
    for reply in REPLIES:
        try:
            out.append({"kind": "parse", "text": reply, "parsed": judge_mod.parse_yes_no(reply)})
        except Exception as e:
            out.append({"kind": "parse", "text": reply, "raises": type(e).__name__})
    for ws in ["  ", "\n\n", " \t "]:
        try:
            judge_mod.parse_yes_no(ws)
            out.append({"kind": "parse", "text": ws, "parsed": "no error"})
        except Exception as e:
            out.append({"kind": "parse", "text": ws, "raises": f"{type(e).__name__}: {e}"})
    for rubric in RUBRICS:
        items = judge_mod.extract_must_have_items(rubric)
        out.append({"kind": "rubric", "rubric": rubric, "criteria": [i.description for i in items]})

    # grade() end to end, the HTTP call answered by a script keyed on the criterion.
    sent = []

    class Reply:
        ok = True

        def __init__(self, text):
            self.text = text

    async def fake_request(method, url, headers, data, cookies):
        body = json.loads(data)
        sent.append(body)
        user = body["messages"][1]["content"]
        for key, text in SCRIPT.items():
            if f"CRITERION:\n{key}" in user:
                return Reply(text)
        raise AssertionError("unscripted criterion")

    async def fake_json(response):
        return {"choices": [{"message": {"content": response.text}}]}

    judge_mod.request = fake_request
    judge_mod.get_response_json = fake_json
    SCRIPT = {"Names Store._evict.": "YES", "Mentions capacity": "NO", "falls back to description": "yes.", "Legacy item.": "perhaps", "Empty evidence.": None, "Evidence not a list.": "YES", "T": "NO"}
    for rubric, answer in [(RUBRICS[0], "Store._evict in tinykv/store.py drops LRU keys."), (RUBRICS[0], "   "), (RUBRICS[1], "x"), (RUBRICS[4], "x"), (RUBRICS[5], "An answer")]:
        sent.clear()
        result = await judge_mod.grade(rubric=rubric, problem_statement="Where is eviction?", model_answer=answer, base_url="http://judge/v1/", api_key="k", model_name="judge-model")
        out.append({"kind": "grade", "rubric": rubric, "answer": answer, "result": result.model_dump(), "sent": sent[:]})
    return out


async def main():
    rows = [{"kind": "tool_definitions", "include_distractors": flag, "tools": build_tool_definitions(include_distractors=flag)} for flag in (True, False)]
    rows += await tool_cases()
    rows += await judge_cases()
    with open(sys.argv[1], "w") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


asyncio.run(main())
