#!/bin/bash
# Reference solution: letters-only, lower-cased words; sort by count descending, then alphabetically.
set -euo pipefail
cat > /app/wordfreq.py <<'PY'
import re
import sys
from collections import Counter


def top_words(text, n=3):
    counts = Counter(w.lower() for w in re.findall(r"[A-Za-z]+", text))
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        for word, count in top_words(f.read()):
            print(word, count)
PY
