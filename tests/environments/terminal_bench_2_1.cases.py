"""Differential cases for Gymflow's terminal_bench_2_1 reward rule: runs NeMo Gym 0.7.0's own
TerminalBench21ResourcesServer.verify against a FAKE sandbox (it stands for the container, which cannot
run here) that answers the test script and holds a given reward.txt, or fails where told; and Python's
float() on generated reward texts.

Usage: python terminal_bench_2_1.cases.py <NeMo Gym 0.7.0 tree> <seed> <generated count> <out.jsonl>
       (this file: seed 7, 400 generated)
"""
import asyncio, json, math, random, sys, tempfile
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, sys.argv[1])
from nemo_gym.server_utils import SESSION_ID_KEY
from resources_servers.terminal_bench_2_1.app import (
    TerminalBench21ResourcesServer, TerminalBench21ResourcesServerConfig, TerminalBench21VerifyRequest)

server = TerminalBench21ResourcesServer.model_construct(config=TerminalBench21ResourcesServerConfig(
    host="x", port=1, entrypoint="", name="tb", sandbox_provider="sandbox", sandbox_config={}, evaluation_timeout=60))
folder = Path(tempfile.mkdtemp())
(folder / "tests").mkdir()
(folder / "tests" / "test.sh").write_text("echo checks\n")


class FakeSandbox:
    """FAKE: a container's exec/upload/download as NeMo Gym's verify calls them."""
    def __init__(self, case):
        self.case = case
    async def exec(self, command, timeout_s=None, **_):
        if command.startswith("mkdir"):
            return SimpleNamespace(return_code=0, stdout="", stderr="")
        if self.case.get("exec_raises"):
            raise RuntimeError("sandbox gone")
        return SimpleNamespace(return_code=self.case.get("exit_code", 0), stdout=self.case.get("stdout", ""), stderr=self.case.get("stderr", ""))
    async def upload(self, local_path, remote_path):
        pass
    async def download(self, remote_path, local_path):
        if self.case.get("reward_text") is None:
            raise FileNotFoundError(remote_path)
        Path(local_path).write_text(self.case["reward_text"])
    async def stop(self):
        pass


def verify(case):
    server._session_id_to_sandbox = {"s": FakeSandbox(case)}
    request = SimpleNamespace(session={SESSION_ID_KEY: "s"})
    body = TerminalBench21VerifyRequest.model_validate({
        "responses_create_params": {"input": [{"role": "user", "content": "do it"}]},
        "response": {"id": "r", "created_at": 0, "model": "m", "object": "response", "output": [], "parallel_tool_calls": False, "tool_choice": "auto", "tools": []},
        "task_name": "t", "docker_image": "i", "task_folder": str(folder)})
    out = asyncio.run(server.verify(request, body))
    reward = out.reward
    return {"reward": reward if math.isfinite(reward) else repr(reward), "evaluation_completed": out.evaluation_completed, "test_output": out.test_output}


TEXTS = ["1", "0", "1\n", " 0.5 ", "1.0", "0.0\n", "abc", "", "  \n", "1_000", "1__0", "_1", "1_", "+.5", "-1", "1e-3", "1E+2", ".",
         "5.", "inf", "-Infinity", "nan", "NaN", "+inf", "١", "٣.٥", "\u00a01\u2003", "\ufeff1", "\x1c1\x1f", "\x851", "0x10", "1,5",
         "True", "1 1", "５", "𝟏", "𝟗𝟗", "1\n0\n", "0b1", "१२", "infinit", "1e", "e1", "--1", "+-1", "1.5.2", "١_٢"]

cases = []
for text in TEXTS:
    cases.append({"name": f"reward.txt {text!r}", "sandbox": {"reward_text": text, "stdout": "out\n", "stderr": "err\n"}})
cases.append({"name": "no reward.txt", "sandbox": {"reward_text": None, "stdout": "ran\n"}})
cases.append({"name": "tests exit 1 but reward.txt says 1", "sandbox": {"reward_text": "1", "exit_code": 1, "stdout": "F\n"}})
cases.append({"name": "exec raises", "sandbox": {"exec_raises": True, "reward_text": "1"}})
for c in cases:
    c["verdict"] = verify(c["sandbox"])

rng = random.Random(int(sys.argv[2]))
ALPHABET = "0123456789_.eE+- infatyINF\n"
for _ in range(int(sys.argv[3])):
    text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 7)))
    try:
        value = float(text)
        verdict = {"float": value if math.isfinite(value) else repr(value)}
    except ValueError:
        verdict = {"float": None}
    cases.append({"name": f"float({text!r})", "text": text, "verdict": verdict})

with open(sys.argv[4], "w") as f:
    for c in cases:
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
