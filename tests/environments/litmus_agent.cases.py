"""Differential cases for Gymflow's litmus_agent: runs NeMo Gym's own extraction and reward code
(litmus_agent/app.py: _resolve_verification_policy, extract_predicted_value, compute_reward) on
hand-picked rows and responses (formats, tolerances, legacy property types, unicode, whitespace).

Usage: python litmus_agent.cases.py <NeMo Gym 0.7.0 root> <out.jsonl>
"""
import sys, json, math
sys.path.insert(0, sys.argv[1])
from resources_servers.litmus_agent.app import (_resolve_verification_policy, extract_predicted_value,
                                                 compute_reward, resolve_reward_rule)

ROWS = [
    {"expected_answer": "3", "answer_type": "float", "answer_format": "fmt_00", "match": {"rule": "exact"}},
    {"expected_answer": "18.02", "answer_type": "float", "answer_format": "fmt_07", "match": {"rule": "abs_window", "abs_tol": 0.1}},
    {"expected_answer": "18.02", "answer_type": "float", "answer_format": "fmt_07", "match": {"rule": "rel_window", "rel_tol": 0.01}},
    {"expected_answer": "18.02", "answer_type": "float", "answer_format": "fmt_07", "match": {"rule": "abs_window"}},
    {"expected_answer": 2.5, "answer_type": "float", "answer_format": "fmt_30"},
    {"expected_answer": "true", "answer_type": "bool", "answer_format": "fmt_15"},
    {"expected_answer": "absent", "answer_type": "bool", "answer_format": "fmt_05"},
    {"expected_answer": "carboxylic acid", "answer_type": "string", "answer_format": "fmt_18"},
    {"expected_answer": "Ethanol  Amine", "answer_type": "string", "answer_format": "fmt_23"},
    {"expected_answer": "1", "property_type": "fragment"},
    {"expected_answer": "2", "property_type": "count", "use_box_format": True},
    {"expected_answer": "1", "property_type": "presence", "answer_format": "fmt_11"},
    {"expected_answer": "0.5", "property_type": "float"},
    {"expected_answer": "4", "answer_type": "float", "output_regex": r"VALUE=(\S+)"},
    {"expected_answer": "4", "answer_type": "float", "answer_format": "fmt_13", "match": {}},
    {"expected_answer": "2", "answer_type": "float", "answer_format": "fmt_00", "match": {"rule": "exact"}},
]
TEXTS = [
    "", "   ", "The answer is ((3))", "((2)) then actually ((3))", "((3.4))", "((2.5))", "((3.5))", "((  3 ))",
    "\\boxed{18.05}", "\\boxed{18.2}", "\\boxed{18.02 g/mol}", "\\boxed{1.802e1}", "\\boxed{18,02}", "\\boxed{inf}",
    "Final Answer: 2.5", "Final Answer: 2.5000001", "Final Answer: 42 (my 7th attempt)\nnext", "Final Answer:\n2.5",
    "<final_answer> Yes </final_answer>", "<final_answer>no</final_answer>", "<final_answer>2</final_answer>",
    "[[absent]]", "[[ABSENT]]", "[[0.0]]", "**Answer: Carboxylic   Acid**", "**Answer: carboxylic acid.**",
    "Response: ethanol amine", "Response:   Ethanol\tAmine  ", "((1))", "((true))", "((١))", "\\boxed{2}", "\\boxed{2.6}",
    "<<present>>", "<<1>>", "((0.5000004))", "((nan))", "VALUE=4.0 and VALUE=5", "VALUE=4", "<4>", "<a> <4>",
    "(( -3 ))", "((1_000))", "((2))", "((1.5))", "((0.5))",
]
with open(sys.argv[2], "w") as f:
    n = 0
    for row in ROWS:
        extra = {k: v for k, v in row.items() if k == "property_type"}
        atype, parse_as, match = _resolve_verification_policy(row.get("answer_type"), extra, row.get("match"))
        for text in TEXTS:
            pred = extract_predicted_value(text.strip(), parse_as, output_regex=row.get("output_regex"),
                                           answer_format=row.get("answer_format"), use_box_format=row.get("use_box_format", False))
            try:
                reward = compute_reward(pred, row["expected_answer"], atype, match=match)
            except Exception as e:
                reward = "error: " + type(e).__name__
            if isinstance(pred, float) and not math.isfinite(pred):
                pred = str(pred)
            f.write(json.dumps({"row": row, "text": text, "predicted_value": pred, "reward": reward,
                                "resolved_reward_rule": resolve_reward_rule(atype, match)[0]}, ensure_ascii=False) + "\n")
            n += 1
print(n, "cases")
