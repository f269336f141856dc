#!/bin/bash
# Reference solution: count the lines whose level field is ERROR, per log file.
set -euo pipefail
cd /app
python3 - <<'PY'
from pathlib import Path

rows = []
for log in sorted(Path("/app/logs").glob("*.log")):
    errors = sum(1 for line in log.read_text().splitlines() if line.split(" ", 2)[1:2] == ["ERROR"])
    rows.append(f"{log.stem},{errors}")
Path("/app/summary.csv").write_text("service,errors\n" + "\n".join(rows) + "\n")
PY
