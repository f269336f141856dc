# NeMo Gym 0.7.0's own tooling pointed at Gymflow run folders written with --output-format nemo-gym: its
# aggregation of rollouts.jsonl, its `gym eval profile` over the materialized inputs and rollouts (which
# refuses files whose rollout keys do not align), its `gym eval compare` loader on the aggregate file, and its
# resume's and count_failure_classes_as_zero's reading of the failures sidecar. One process for every folder
# (importing NeMo Gym takes seconds): `scored=DIR` gets all of them, `failed=DIR` the sidecar readers only.
# Prints one JSON object, by name, for the test.
import contextlib
import importlib.util
import json
import sys
import warnings
from pathlib import Path

repo = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("ng_aggregate", repo / "scripts" / "nemo-gym-aggregate.py")
ng_aggregate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ng_aggregate)

from nemo_gym.cli.eval import reward_profile  # noqa: E402
from nemo_gym.comparison.loading import build_loaded_run, load_agg_metrics_file  # noqa: E402
from nemo_gym.rollout_collection import _failure_rows_counted_as_zero, _latest_failure_rows  # noqa: E402


def sidecar_reads(run: Path) -> dict:
    sidecar = run / "rollouts_failures.jsonl"
    return {
        "failures": [{"key": list(key), "class": row.get("_ng_failure_class")} for key, row in _latest_failure_rows([sidecar]).items()],
        "counted_as_zero": _failure_rows_counted_as_zero([sidecar], ["agent_run_error"], set()),
    }


def all_reads(run: Path) -> dict:
    rollouts = run / "rollouts.jsonl"
    out = sidecar_reads(run)
    out["aggregate"] = ng_aggregate.aggregate(json.loads(line) for line in rollouts.open() if line.strip())

    sys.argv = ["gym", f"+materialized_inputs_jsonl_fpath={run / 'rollouts_materialized_inputs.jsonl'}", f"+rollouts_jsonl_fpath={rollouts}"]
    # It prints its report; stdout is this script's answer.
    with warnings.catch_warnings(), contextlib.redirect_stdout(sys.stderr):
        warnings.simplefilter("ignore")
        reward_profile()
    out["profile_agent_metrics"] = json.loads((run / "rollouts_agent_metrics.json").read_text())

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_file = load_agg_metrics_file(str(rollouts), role="baseline")
    out["compare_warnings"] = [str(w.message) for w in caught if "Repeat-level" in str(w.message)]
    out["compare_runs"] = {}
    for name in run_file.entries_by_agent:
        loaded = build_loaded_run(run_file, name)
        out["compare_runs"][name] = {"num_tasks": loaded.num_tasks, "num_repeats": loaded.num_repeats, "has_repeat_cis": loaded.has_repeat_cis, "key_metrics": loaded.key_metrics}
    return out


answers = {}
for arg in sys.argv[1:]:
    name, _, folder = arg.partition("=")
    answers[name] = (all_reads if name == "scored" else sidecar_reads)(Path(folder))
json.dump(answers, sys.stdout)
