# Writes one finished Gymflow run to Weights & Biases with the real `wandb` library: offline, a
# `wandb/offline-run-*` folder that `wandb sync` uploads; online, straight to the server.
# Usage: python wandb_run.py <spec.json>; the spec is written by src/exporters/wandb.ts.
import json
import os
import shutil
import sys


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    try:
        import wandb
    except ImportError as e:
        print(f"the wandb package is not installed for {sys.executable} ({e})", file=sys.stderr)
        return 3
    run = wandb.init(
        project=spec["project"],
        entity=spec.get("entity"),
        name=spec["name"],
        dir=spec["dir"],
        config=spec["config"],
        tags=["gymflow"],
        save_code=False,
        settings=wandb.Settings(console="off", x_disable_stats=True, x_disable_meta=True),
    )
    # One step holds every metric of the run, so each also lands in the run's summary.
    run.log(spec["metrics"], step=0)
    # Copied into the run's own folder (so it stands alone) and saved there, so `wandb sync` uploads them.
    for item in spec["files"]:
        target = os.path.join(run.dir, item["name"])
        shutil.copyfile(item["path"], target)
        run.save(target, base_path=run.dir, policy="end")
    run.finish()
    with open(spec["result"], "w", encoding="utf-8") as f:
        json.dump({"run_id": run.id, "run_dir": os.path.dirname(run.dir), "url": getattr(run, "url", None)}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
