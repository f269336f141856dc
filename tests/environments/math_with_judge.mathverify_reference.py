# Regenerates math_with_judge.mathverify_cases.jsonl's reference columns with the real library NeMo Gym
# uses: pip install math-verify==0.8.0 (it pins latex2sympy2_extended 1.10.2), then
#   python3 this.py < cases.jsonl > out.jsonl   (each input line: {"expected": ..., "generated": ...})
# It mirrors NeMo Gym's math_with_judge library check, in process (math-verify's own 5 s timeouts apply).
import json
import logging
import sys

from math_verify import grader
from math_verify.metric import math_metric
from math_verify.parser import ExprExtractionConfig, LatexExtractionConfig

logging.disable(logging.CRITICAL)
metric = math_metric(
    gold_extraction_target=(LatexExtractionConfig(),),
    pred_extraction_target=(ExprExtractionConfig(), LatexExtractionConfig()),
)


def without_delimiters(answer):
    answer = answer.strip()
    if answer.startswith("\\(") and answer.endswith("\\)"):
        answer = answer[2:-2].strip()
    if answer.startswith("$") and answer.endswith("$") and len(answer) > 1:
        answer = answer[1:-1].strip()
    return answer


def check(expected, generated):
    try:
        score, strings = metric(["\\boxed{" + without_delimiters(expected) + "}"], [generated])
        if strings is None:
            return float(score), None
        golds, preds = strings
        shared = next((p for p in preds if any(grader.verify(g, p) for g in golds)), None)
        return float(score), shared if shared is not None else (preds[0] if preds else None)
    except BaseException:
        return 0.0, None


for line in sys.stdin:
    case = json.loads(line)
    reward, extracted = check(case["expected"], case["generated"])
    print(json.dumps({**case, "library_reward": reward, "extracted_answer": extracted}, ensure_ascii=False))
