"""Starts a Gymflow run from Python through the official temporalio SDK, as another service would: the
workflow input is built here, validated against the published JSON Schema, and the run's result printed.

usage: start_run.py <temporal address> <task queue> <schema file> <tasks jsonl> <run folder> <run id>
Prints one JSON line: {"refused": [...], "result": <the workflow's result>}.
"""
import asyncio
import copy
import json
import sys

import jsonschema
from temporalio.client import Client


def run_input(tasks_file: str, run_dir: str, run_id: str) -> dict:
    return {
        "runId": run_id,
        "runDir": run_dir,
        "env": {"name": "mcqa", "options": {}},
        "inputFile": tasks_file,
        "model": {
            "backend": "mock",
            "env": "mcqa",
            "seed": 0,
            "accuracy": 1,
            "latency_ms": 0,
            "tasks_file": f"{run_dir}/tasks.jsonl",
            "replay_files": [],
        },
        "numRepeats": 2,
        "limit": 3,
        "concurrency": 4,
        "retry": {"maximumAttempts": 3, "initialIntervalMs": 200, "maximumIntervalMs": 1000, "heartbeatTimeoutMs": 5000},
        "durability": "turn",
        "shards": 1,
    }


def refusals(validator: jsonschema.Validator, good: dict) -> list:
    """Inputs the schema must refuse: what a careless caller would send."""
    missing = copy.deepcopy(good)
    del missing["retry"]
    with_key = copy.deepcopy(good)
    with_key["model"] = {"backend": "openai", "model": "gpt", "api_key_env": "OPENAI_API_KEY", "api_key": "sk-secret"}
    bad_repeats = copy.deepcopy(good)
    bad_repeats["numRepeats"] = 0
    return [not validator.is_valid(x) for x in (missing, with_key, bad_repeats)]


async def main() -> None:
    address, task_queue, schema_file, tasks_file, run_dir, run_id = sys.argv[1:7]
    with open(schema_file, encoding="utf-8") as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    arg = run_input(tasks_file, run_dir, run_id)
    validator.validate(arg)
    client = await Client.connect(address)
    handle = await client.start_workflow("evalRunWorkflow", arg, id=f"gymflow-run-{run_id}", task_queue=task_queue)
    result = await handle.result()
    print(json.dumps({"refused": refusals(validator, arg), "result": result}))


asyncio.run(main())
