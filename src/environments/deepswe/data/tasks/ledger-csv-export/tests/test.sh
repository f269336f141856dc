#!/bin/bash
# Gymflow's stand-in for a DeepSWE v1.1 verifier script (DeepSWE's own are not shipped here), in its contract:
# the model's committed diff, then the held-out tests, then grader.py writes /logs/verifier/{ctrf,reward}.json.
set -u
cd /app
mkdir -p /logs/verifier
apply_failed=""
if [ -s /logs/artifacts/model.patch ]; then
  git apply --binary /logs/artifacts/model.patch || apply_failed="--apply-failed"
fi
git apply /tests/test.patch
python3 /tests/grader.py $apply_failed 2>&1 | tee /logs/verifier/run.log
