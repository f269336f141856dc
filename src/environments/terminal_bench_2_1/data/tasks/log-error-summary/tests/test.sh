#!/bin/bash
# Terminal-Bench's test.sh shape, offline: the checks run on the image's own python3 (no uv or pytest
# download), and the verdict goes to /logs/verifier/reward.txt.
python3 /tests/test_outputs.py
if [ $? -eq 0 ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
