# Inspect AI on Gymflow's mcqa rows with its mockllm/model: one eval of N samples at a given concurrency,
# timed around eval(); prints one JSON line. Run by bench/peers/inspect-ai.ts inside the Inspect venv.
import argparse
import asyncio
import json
import re
import sys
import tempfile
import time

from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
from inspect_ai.solver import TaskState, generate

OPTION_LINE = re.compile(r"^([A-Z])[:.)]\s", re.M)
BOXED = re.compile(r"\\boxed\{([A-Z])\}")


def read_rows(path):
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    if not rows:
        sys.exit(f"{path} has no rows")
    return rows


def samples(rows, n):
    # Rows repeated in order to n samples, like Gymflow's and NeMo Gym's repeats.
    out = []
    for i in range(n):
        row = rows[i % len(rows)]
        prompt = row["responses_create_params"]["input"][0]["content"]
        out.append(Sample(id=i, input=prompt, target=row["expected_answer"]))
    return out


def mock_policy(letter, latency_ms):
    # The same answer as bench/mock-openai-server.ts: the fixed letter when the prompt lists it, else the first option.
    async def answer(messages, tools, tool_choice, config):
        if latency_ms > 0:
            await asyncio.sleep(latency_ms / 1000)
        prompt = messages[-1].text
        options = OPTION_LINE.findall(prompt)
        chosen = letter if not options or letter in options else options[0]
        return ModelOutput.from_content(model="mockllm/model", content=f"The answer is \\boxed{{{chosen}}}")

    return answer


@scorer(metrics=[accuracy()])
def boxed_letter():
    async def score(state: TaskState, target: Target):
        found = BOXED.findall(state.output.completion)
        answer = found[-1] if found else ""
        return Score(value=CORRECT if answer == target.text else INCORRECT, answer=answer)

    return score


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--input", required=True)
    p.add_argument("--rollouts", type=int, default=500)
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--latency-ms", type=float, default=0)
    p.add_argument("--letter", default="B")
    a = p.parse_args()

    task = Task(dataset=MemoryDataset(samples(read_rows(a.input), a.rollouts)), solver=generate(), scorer=boxed_letter())
    model = get_model("mockllm/model", custom_outputs=mock_policy(a.letter, a.latency_ms))
    with tempfile.TemporaryDirectory(prefix="inspect-bench-") as log_dir:
        started = time.perf_counter()
        (log,) = eval(
            task,
            model=model,
            max_connections=a.concurrency,
            max_samples=a.concurrency,
            log_dir=log_dir,
            display="none",
        )
        seconds = time.perf_counter() - started
    if log.status != "success":
        sys.exit(f"inspect eval ended {log.status}: {log.error}")
    # Read from the header: the samples themselves load lazily from the log file, gone with log_dir.
    results = log.results
    print(
        json.dumps(
            {
                "units": results.completed_samples,
                "seconds": seconds,
                "mean_reward": results.scores[0].metrics["accuracy"].value,
            }
        )
    )


if __name__ == "__main__":
    main()
