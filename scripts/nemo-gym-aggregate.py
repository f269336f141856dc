# NeMo Gym 0.7.0's own aggregation of a rollouts file, the reference Gymflow's `gym eval aggregate` is checked
# against: its default /aggregate_metrics per agent, with its pass@k and majority@k on the reward as accuracy
# (and no_answer when the rows carry extracted_answer) and the headline metrics at the highest k.
# Run with the NeMo Gym venv: .gymflow/venvs/nemo-gym/bin/python scripts/nemo-gym-aggregate.py ROLLOUTS.jsonl
import json
import sys
import warnings

from nemo_gym.reward_profile import compute_aggregate_metrics, compute_pass_majority_metrics, highest_k_metrics


def compute_metrics(tasks):
    answered = any("extracted_answer" in r for task in tasks for r in task)
    return compute_pass_majority_metrics(tasks, answer_key="extracted_answer" if answered else None)[0]


def key_metrics(agent_metrics):
    key = {k: v for k, v in agent_metrics.items() if k.startswith("mean/")}
    for pattern in ("pass@1[avg-of-{k}]", "pass@{k}", "majority@{k}"):
        key.update(highest_k_metrics(agent_metrics, pattern, score_names=["accuracy"]))
    return key


def aggregate(rows):
    """One entry per agent (or environment server), as the run's *_aggregate_metrics.json holds them."""
    rows = sorted(rows, key=lambda r: (r.get("_ng_task_index", 0), r.get("_ng_rollout_index", 0)))
    by_agent = {}
    for row in rows:
        name = row.get("_ng_environment_server") or (row.get("agent_ref") or {}).get("name") or "agent"
        by_agent.setdefault(name, []).append(row)
    out = []
    for name, agent_rows in by_agent.items():
        metrics = compute_aggregate_metrics(agent_rows, compute_metrics_fn=compute_metrics, get_key_metrics_fn=key_metrics)
        out.append({"agent_ref": {"name": name}, **metrics.model_dump(exclude={"perf_summary"})})
    return out


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    json.dump(aggregate(json.loads(line) for line in open(sys.argv[1]) if line.strip()), sys.stdout, indent=1)
