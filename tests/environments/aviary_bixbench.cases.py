"""Differential cases for Gymflow's aviary_bixbench, from the Aviary code NeMo Gym's BixBench runs
(fhaviary 0.37.0, aviary.notebook 0.37.0; resources_servers/aviary/notebook_app.py):

  judge    eval_answer(proposed, ideal, question, eval_mode="llm"), the grading NeMo Gym's submit_solution
           does, with the judge call answered by the case's reply: the prompt it sent and the score.
  view     utils.view_notebook(cells, "python"): the notebook's markdown view the model reads every step.
  edit     NBEnvironment.edit_cell through exec_tool_calls (as NeMo Gym's /step calls it), the notebook run
           after each edit left out: each call's reply and the cells' sources after.
  listing  NBEnvironment._list_dir, dumped as list_workdir dumps it, on generated folders.

Usage: python aviary_bixbench.cases.py <seed> <out.jsonl>   (this file: seed 29)
       in a venv with fhaviary==0.37.0 and aviary.notebook==0.37.0 (with their dependencies).
"""
import asyncio, base64, io, json, os, random, sys, tempfile, warnings
from pathlib import Path
from unittest import mock

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
warnings.simplefilter("ignore")
import nbformat  # noqa: E402
from PIL import Image  # noqa: E402
import aviary.utils  # noqa: E402
from aviary.core import EvalAnswerMode, Tool, ToolCall, ToolRequestMessage, eval_answer  # noqa: E402
from aviary.envs.notebook import NBEnvironment, NBEnvironmentState  # noqa: E402
from aviary.envs.notebook.utils import NBLanguage, view_notebook  # noqa: E402

rng = random.Random(int(sys.argv[1]))
cases = []

# --- judge -------------------------------------------------------------------------------------------
REPLIES = ["YES", "yes", "Yes", " yes\n", "\u00a0Yes\u2003", "Yes.", "yes!", "YES YES", "NO", "no", "", " ", "Yesterday", "y",
           "YE\u017f", "\u017fyes", "yes\u200b", "Ｙｅｓ", "Yes, it is correct.", "'YES'", "\tyEs\r\n", "NO.\nYES", "oui"]
QUESTIONS = ["What is the odds ratio?", "Which gene {is} it?", "Rate {0} of x", "Who's there?", "Ünïcödé ✓ question 𝔘?", ""]
IDEALS = ["0.5", "GATA1", "{x}", "24.0", "", "a\nb"]
PROPOSED = ["0.50", "gata1", "about 24", "{correct_answer}", "", "The answer is GATA1.", "𝔘"]


async def judged(question, ideal, proposed, reply):
    sent = []

    async def run_prompt(prompt, model=None, temperature=None):
        sent.append({"prompt": prompt, "model": model, "temperature": temperature})
        return reply

    with mock.patch.object(aviary.utils, "run_prompt", run_prompt):
        # What notebook_app.py's submit_solution passes.
        score = await eval_answer(proposed=proposed, correct=ideal, question=question, eval_mode=EvalAnswerMode.LLM, llm_eval_config={"name": "gpt-5-mini"})
    return sent, score


for reply in REPLIES:
    q, i, p = rng.choice(QUESTIONS), rng.choice(IDEALS), rng.choice(PROPOSED)
    sent, score = asyncio.run(judged(q, i, p, reply))
    cases.append({"kind": "judge", "question": q, "ideal": i, "proposed": p, "reply": reply, "sent": sent, "score": score})
for _ in range(30):
    q, i, p, r = rng.choice(QUESTIONS), rng.choice(IDEALS), rng.choice(PROPOSED), rng.choice(REPLIES)
    sent, score = asyncio.run(judged(q, i, p, r))
    cases.append({"kind": "judge", "question": q, "ideal": i, "proposed": p, "reply": r, "sent": sent, "score": score})

# --- view --------------------------------------------------------------------------------------------
buf = io.BytesIO()
Image.new("RGB", (2, 2), (200, 30, 30)).save(buf, format="PNG")
PNG = base64.b64encode(buf.getvalue()).decode()
TEXTS = ["", "1\n", "hello", "a\nb\n", "ünï\tcode\n", "x" * 1499, "y" * 1500, "x" * 2999, "y" * 3000, "🧬" * 3001, "tail " * 700]


def text():
    return rng.choice(TEXTS)


def output():
    kind = rng.choice(["stream", "stream", "execute_result", "error", "display_text", "display_image", "display_html", "display_mixed"])
    if kind == "stream":
        return nbformat.v4.new_output("stream", name=rng.choice(["stdout", "stderr"]), text=text())
    if kind == "execute_result":
        return nbformat.v4.new_output("execute_result", data={"text/plain": text()}, execution_count=rng.randint(1, 9))
    if kind == "error":
        return nbformat.v4.new_output("error", ename="ValueError", evalue="bad", traceback=[text(), "\x1b[31mValueError\x1b[39m: bad", text()])
    if kind == "display_text":
        return nbformat.v4.new_output("display_data", data={"text/plain": text()})
    if kind == "display_image":
        return nbformat.v4.new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure size 640x480 with 1 Axes>"})
    if kind == "display_html":
        return nbformat.v4.new_output("display_data", data={"text/html": "<b>t</b>", "text/plain": text()})
    return nbformat.v4.new_output("display_data", data={"text/plain": "<Figure>", "image/png": PNG})


def cell():
    kind = rng.random()
    if kind < 0.1:
        return nbformat.v4.new_markdown_cell(rng.choice(["# Title", "", "*note*"]))
    source = rng.choice(["print(1)", "", "import pandas as pd\ndf = pd.read_csv('x.csv')", "x = 'ü🧬'\nx", "# only a comment"])
    return nbformat.v4.new_code_cell(source, outputs=[output() for _ in range(rng.randint(0, 3))])


for n in [0, 1, 2]:
    cells = [cell() for _ in range(n)]
    cases.append({"kind": "view", "cells": cells, "markdown": view_notebook(cells, "python")[0]})
for _ in range(40):
    cells = [cell() for _ in range(rng.randint(1, 3))]
    cases.append({"kind": "view", "cells": cells, "markdown": view_notebook(cells, "python")[0]})

# --- edit --------------------------------------------------------------------------------------------
IDXS = [None, 0, 1, 2, 5, -1, -2, -3, -7, "0", " 1 ", "2", "-1", "x", "1.5", "", "١", 1.9, -0.5, True, False, 10**6]


async def edits(calls):
    with tempfile.TemporaryDirectory() as tmp:
        env = NBEnvironment(work_dir=tmp, use_tmp_work_dir=False, use_docker=False)
        env.state = NBEnvironmentState(nb_path=Path(tmp) / "notebook.ipynb", work_dir=Path(tmp), use_docker=False, language=NBLanguage.PYTHON)

        async def no_run(**_kwargs):
            return "Executed all cells."

        env.run_notebook = no_run
        env.tools = [Tool.from_function(env.edit_cell)]
        replies = []
        for i, (contents, idx) in enumerate(calls):
            action = ToolRequestMessage(tool_calls=[ToolCall.from_name("edit_cell", contents=contents, idx=idx)])
            (response,) = await env.exec_tool_calls(action, concurrency=False, handle_tool_exc=True)
            replies.append(response.content)
        return replies, [c.source for c in env.state.cells]


for _ in range(60):
    calls = [(rng.choice(["a = 1", "print(a)", "", "ü = 'x'"]) + f"  # {i}", rng.choice(IDXS)) for i in range(rng.randint(1, 7))]
    replies, sources = asyncio.run(edits(calls))
    cases.append({"kind": "edit", "calls": [[c, i] for c, i in calls], "replies": replies, "sources": sources})

# --- listing -----------------------------------------------------------------------------------------
NAMES = ["a.csv", "b.txt", "notebook.md", ".hidden", "Ünï.tsv", "raw", "files", "x y.xlsx", "🧬.csv", "deep"]


def make_tree(root, depth):
    tree = {"files": [], "dirs": {}}
    for name in rng.sample(NAMES, rng.randint(0, 4)):
        if name in ("files", "directories"):
            continue  # a folder or file named like the listing's own keys collides in Aviary's dict
        if depth < 2 and rng.random() < 0.35:
            os.mkdir(root / name)
            tree["dirs"][name] = make_tree(root / name, depth + 1)
        else:
            (root / name).write_text("x")
            tree["files"].append(name)
    return tree


for _ in range(40):
    with tempfile.TemporaryDirectory() as tmp:
        tree = make_tree(Path(tmp), 0)
        env = NBEnvironment(work_dir=tmp, use_tmp_work_dir=False, use_docker=False)
        cases.append({"kind": "listing", "tree": tree, "listing": json.dumps(env._list_dir(Path(tmp)), indent=2)})

with open(sys.argv[2], "w") as f:
    for case in cases:
        f.write(json.dumps(case, ensure_ascii=False) + "\n")
print(len(cases), "cases")
