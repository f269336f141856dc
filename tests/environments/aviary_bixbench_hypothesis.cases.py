"""Differential cases for Gymflow's aviary_bixbench_hypothesis, from hypotest, the package NeMo Gym's aviary_bbh
serves (resources_servers/aviary/hypotest_app.py: its InterpreterEnv and HypotestDataset):

  prompts   the system prompt InterpreterEnv.reset interpolates and its task message.
  list_dir  tools/filesystem.list_dir_tool on generated folders (its arguments as a model may send them).
  run_cell  ExecutionResult.get_truncated_text: the text run_cell answers with after "[Cell #i] ".
  view      utils/notebook_utils.view_notebook: the notebook the rubric judge reads.
  score     InterpreterEnv.submit_answer with the rubric model answering the case's replies in turn: every
            prompt it was sent, its reply (or the exception), the raw score and the reward.

hypotest is not on PyPI: NeMo Gym pins git commit 8557273; the snapshot used here is its repository at dec8cc0
(2026-04-02), src/ on PYTHONPATH. ray (only its decorator is touched at import) is stubbed.

Usage: python aviary_bixbench_hypothesis.cases.py <seed> <out.jsonl>   (this file: seed 31)
       in a venv with fhaviary==0.37.0, aviary.notebook==0.37.0, fhlmi, tenacity, fastapi and uvicorn.
"""
import asyncio, json, os, random, sys, tempfile, types, warnings
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
warnings.simplefilter("ignore")
ray = types.ModuleType("ray")
ray.remote = lambda *a, **k: (lambda cls: cls)
sys.modules["ray"] = ray

import nbformat  # noqa: E402
from hypotest.env.config import ExecutionConfig  # noqa: E402
from hypotest.env.interpreter import ExecutionResult  # noqa: E402
from hypotest.env.interpreter_env import InterpreterEnv, InterpreterEnvConfig, InterpreterEnvState, ProblemInstance  # noqa: E402
from hypotest.env.kernel_server import NBLanguage  # noqa: E402
from hypotest.env.prompts import HYPOTHESIS_TASK_DESC, PromptingConfig  # noqa: E402
from hypotest.env.tools.filesystem import list_dir_tool  # noqa: E402
from hypotest.env.utils.notebook_utils import view_notebook  # noqa: E402

rng = random.Random(int(sys.argv[1]))
cases = []

# --- prompts -----------------------------------------------------------------------------------------
for job_timeout in [1800, 3600, 60]:
    config = ExecutionConfig(job_timeout=job_timeout, warn_submit_threshold=30, force_submit_threshold=10)
    capabilities = config.environment_capabilities_prompt.format(job_timeout=config.job_timeout)
    system = PromptingConfig().interpolate(language="Python", environment_capabilities=capabilities, job_timeout=job_timeout).system_prompt
    cases.append({"kind": "system", "job_timeout": job_timeout, "system": system})
for hypothesis, protocol in [("X raises Y.", "Test it."), ("Braces {a} stay; 'quotes' too", "Use {b} and \"c\"."), ("", "")]:
    cases.append({"kind": "task", "hypothesis": hypothesis, "protocol": protocol, "message": HYPOTHESIS_TASK_DESC.format(language="Python", hypothesis=hypothesis, protocol=protocol)})

# --- list_dir ----------------------------------------------------------------------------------------
NAMES = ["a.csv", "B.csv", "b.txt", "10.txt", "9.txt", ".hidden", ".cache", "Ünï.tsv", "raw", "data", "🧬.csv", "_x", "Z"]


def make_tree(root, depth):
    tree = {"files": [], "dirs": {}}
    for name in rng.sample(NAMES, rng.randint(0, 6)):
        if depth < 2 and rng.random() < 0.3:
            os.mkdir(root / name)
            tree["dirs"][name] = make_tree(root / name, depth + 1)
        else:
            (root / name).write_text("x")
            tree["files"].append(name)
    return tree


MAX_FILES = [20, 20, 3, 1, 0, -1, -4, "2", " 5 ", "x", "", 2.7, True, False]
HIDDEN = [False, False, True, 1, 0, "", "no", None]
for _ in range(70):
    with tempfile.TemporaryDirectory() as tmp:
        tree = make_tree(Path(tmp), 0)
        max_files, show_hidden = rng.choice(MAX_FILES), rng.choice(HIDDEN)
        cases.append({"kind": "list_dir", "tree": tree, "max_files": max_files, "show_hidden": show_hidden, "reply": list_dir_tool(tmp, max_files, show_hidden)})

# --- outputs -----------------------------------------------------------------------------------------
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
TEXTS = ["", "1\n", "hello", "a\nb\n", "ünï\tcode\n", "x" * 1499, "y" * 2999, "z" * 3000, "🧬" * 3001]
SHORT = TEXTS[:5]
short_only = False


def text():
    return rng.choice(SHORT if short_only else TEXTS)


def output():
    kind = rng.choice(["stream", "stream", "execute_result", "error", "display_text", "display_image", "display_html", "display_widget", "display_empty"])
    if kind == "stream":
        return {"output_type": "stream", "name": rng.choice(["stdout", "stderr"]), "text": text()}
    if kind == "execute_result":
        return {"output_type": "execute_result", "data": {"text/plain": text()}, "metadata": {}, "execution_count": rng.randint(1, 9)}
    if kind == "error":
        return {"output_type": "error", "ename": rng.choice(["ValueError", "KeyError"]), "evalue": text(), "traceback": [text(), "\x1b[31mValueError\x1b[39m"]}
    if kind == "display_text":
        return {"output_type": "display_data", "data": {"text/plain": text()}, "metadata": {}}
    if kind == "display_image":
        return {"output_type": "display_data", "data": {"text/plain": "<Figure size 640x480 with 1 Axes>", "image/png": PNG}, "metadata": {}}
    if kind == "display_html":
        return {"output_type": "display_data", "data": {"text/html": "<b>t</b>", "text/plain": text()}, "metadata": {}}
    if kind == "display_widget":
        return {"output_type": "display_data", "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "m"}, "text/plain": "W"}, "metadata": {}}
    return {"output_type": "display_data", "data": {"image/png": PNG}, "metadata": {}}


for _ in range(40):
    outputs = [output() for _ in range(rng.randint(0, 3))]
    result = ExecutionResult(notebook_outputs=[nbformat.from_dict(o) for o in outputs])
    cases.append({"kind": "run_cell", "outputs": outputs, "text": result.get_truncated_text()})


def cell():
    if rng.random() < 0.1:
        return nbformat.v4.new_markdown_cell("# notes")
    source = rng.choice(["print(1)", "", "import pandas as pd\ndf = pd.read_csv('x.csv')", "x = 'ü🧬'\nx"])
    return nbformat.v4.new_code_cell(source, outputs=[nbformat.from_dict(output()) for _ in range(rng.randint(0, 3))], execution_count=rng.randint(1, 5))


for _ in range(30):
    cells = [cell() for _ in range(rng.randint(0, 3))]
    cases.append({"kind": "view", "cells": cells, "markdown": view_notebook(cells, "python")[0]})

# --- score -------------------------------------------------------------------------------------------
SCORE_REPLIES = ["<score>2</score>", "Reasoning...\n<score>1</score>", "<score> 3 </score>", "<score>+2</score>", "<score>-1</score>", "<score>7</score>",
                 "<score>1_0</score>", "<score>٢</score>", "<score>2.0</score>", "<score>x</score>", "no score here", "", "<score>1</score> then <score>2</score>",
                 "<score>2", "<SCORE>2</SCORE>", "<score>0</score>"]
HYPOTHESES = ["Deleting GAL4 impairs growth on galactose.", "It's the 'best' model", "Braces {x} and \"quotes\"", "Ünïcödé 🧬 hypothesis"]


class Rubric:
    def __init__(self, replies):
        self.replies, self.prompts = list(replies), []

    async def call_single(self, prompt, timeout=None):
        self.prompts.append(prompt)
        return types.SimpleNamespace(text=self.replies[min(len(self.prompts), len(self.replies)) - 1])


async def scored(problem, cells, answer, replies, normalize):
    with tempfile.TemporaryDirectory() as tmp:
        rubric = Rubric(replies)
        env = InterpreterEnv(problem=problem, work_dir=Path(tmp), rubric_model=rubric, config=InterpreterEnvConfig(normalize_reward=normalize))
        env.state = InterpreterEnvState(work_dir=Path(tmp), language=NBLanguage.PYTHON, use_docker=False)
        env.state.nb.cells = cells
        try:
            message = await env.submit_answer(answer)
        except Exception as e:  # noqa: BLE001 - hypotest's scoring gave up: NeMo Gym's tool call answers with the exception
            message = f"{type(e).__name__}"
        return {"prompts": rubric.prompts, "message": message, "raw_score": env.state.raw_score, "score": env.state.score, "total_reward": env.state.total_reward}


short_only = True  # the rubric cases are about the prompt and the score, not long outputs
for _ in range(60):
    replies = [rng.choice(SCORE_REPLIES) for _ in range(rng.randint(1, 3))]
    problem = {"id": "6f2b8c1e-4d7a-4e39-8a55-0c9e3b7d2f10", "hypothesis": rng.choice(HYPOTHESES), "protocol": "p", "answer": rng.random() < 0.5,
               "rubric": rng.choice(["1 point: a.\n1 point: b.", "{curly} rubric", "3 points"]), "max_points": rng.choice([1, 2, 3])}
    cells = [cell() for _ in range(rng.randint(0, 2))]
    answer = rng.choice(["Supported: 0.41 vs 0.06.", "", "Rejected {x}"])
    normalize = rng.random() < 0.8
    result = asyncio.run(scored(ProblemInstance.model_validate(problem), cells, answer, replies, normalize))
    cases.append({"kind": "score", "problem": problem, "cells": cells, "answer": answer, "replies": replies, "normalize": normalize, **result})

with open(sys.argv[2], "w") as f:
    for case in cases:
        f.write(json.dumps(case, ensure_ascii=False) + "\n")
print(len(cases), "cases")
