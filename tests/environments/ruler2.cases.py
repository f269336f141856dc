"""Differential cases for Gymflow's ruler2: runs NeMo Gym's own ruler2 scoring (app.py's match functions and
its MCQ letter extractor) on hand-picked edge cases and seeded random answers, and records each reward.

Usage: PYTHONPATH=<dir with editdistance> python ruler2.cases.py <NeMo Gym 0.7.0 root> <seed> <n random> <out.jsonl>
       (this file: seed 11, 150 random cases)
"""
import sys, json, random
sys.path.insert(0, sys.argv[1])
from resources_servers.ruler2.app import _MATCH_TYPE_FUNCS, extract_mcq_letter

rng = random.Random(int(sys.argv[2]))
out = []

def string_case(match_type, refs, text):
    out.append({"eval_type": "ruler2", "match_type": match_type, "expected_answer": refs, "text": text,
                "reward": float(_MATCH_TYPE_FUNCS[match_type](text, refs))})

def letter_case(gold, text):
    extracted = extract_mcq_letter(text)
    out.append({"eval_type": "multichoice", "expected_answer": gold, "text": text, "extracted_answer": extracted,
                "reward": 1.0 if extracted is not None and extracted == gold else 0.0})

# Hand-picked: empty, whitespace, unicode, several answers, WER fallback, headers, paragraphs.
for mt in ("all", "part", "2steps"):
    string_case(mt, ["1234567890"], "")
    string_case(mt, ["1234567890"], "   \n\t ")
    string_case(mt, ["alpha beta gamma"], "Alpha Beta delta")
    string_case(mt, ["alpha beta gamma"], "alpha\u00a0beta gamma")
    string_case(mt, ["ΔU = Q − W"], "the answer: δu = q − w")
    string_case(mt, ["one", "two", "three"], "one and two")
    string_case(mt, ["one two"], "one two three four five six")
    string_case(mt, [""], "anything")
    string_case(mt, [], "anything")
    string_case(mt, ["Paris"], "Document 1:\nParis is nice\nmore\n\nThe answer is London")
    string_case(mt, ["Paris"], "Thinking...\n\nMaybe Rome.\n\nParis")
    string_case(mt, ["Paris"], "Paris\n\nNo, Rome")
    string_case(mt, ["x y"], "x\x01y")
    string_case(mt, ["İstanbul"], "i̇stanbul")
for gold, text in [
    ("C", "\\boxed{C}"), ("C", "The final answer is C"), ("C", "The final answer is (C) Blue"),
    ("B", "The final answer is \\boxed{B}"), ("C", "\\boxed{\\text{C}}"), ("C", "\\boxed{C"),
    ("C", "Answer: C"), ("C", "**Answer:** C"), ("C", "answer : c"), ("D", "\\boxed{Ｄ}"), ("A", "\\boxed{أ}"),
    ("C", "I think A. Final: \\boxed{C} or maybe B"), ("C", ""), ("C", "no letter here"),
    ("B", "The final answer is b"), ("C", "\\boxed{A and C}"), ("C", "Question 5: X?\n\\boxed{C}\nAnswer: B"),
    ("A", "The final answer is A\nThe final answer is B"), ("C", "\\boxed{{C}}"), ("C", "Answer:C."),
]:
    letter_case(gold, text)

WORDS = ["alpha", "beta", "gamma", "delta", "Paris", "1234567", "x", "Document", "1:", "\n", "\n\n", "the", "ÉTÉ", "\u3000"]
for _ in range(int(sys.argv[3])):
    if rng.random() < 0.7:
        refs = [" ".join(rng.choice(WORDS[:7]) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 3))]
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 12)))
        string_case(rng.choice(["all", "part", "2steps"]), refs, text)
    else:
        gold = rng.choice("ABCD")
        parts = [rng.choice(["The final answer is ", "\\boxed{", "}", "Answer: ", "A", "B", "C", "D", " ", "\n", "x", "{", "Ｂ"]) for _ in range(rng.randint(0, 8))]
        letter_case(gold, "".join(parts))

with open(sys.argv[4], "w") as f:
    for c in out:
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(out), "cases")
