"""Differential cases for Gymflow's spartqa: runs NeMo Gym 0.7.0's own spartqa verify on hand-picked and
generated answers (answer-line variants, aliases, articles, punctuation, nested objects, reasoning blocks,
unicode, empty text, options only in verifier_metadata) and records its verdicts.

Usage: python spartqa.cases.py <NeMo Gym 0.7.0 tree> <seed> <generated count> <out.jsonl>
       (this file: seed 13, 150 generated)
"""
import sys, json, random, asyncio
sys.path.insert(0, sys.argv[1])
from resources_servers.spartqa.app import SpartqaResourcesServer, SpartqaResourcesServerConfig, SpartqaVerifyRequest

server = SpartqaResourcesServer.model_construct(config=SpartqaResourcesServerConfig(host="x", port=1, entrypoint="", name="spartqa"))
rng = random.Random(int(sys.argv[2]))

OPTION_SETS = [
    ["a small shape", "a big black triangle"],
    ["the big blue circle", "the yellow triangle"],
    ["a triangle in block B", "a big blue triangle in block B"],
    ["medium yellow square", "the medium yellow square number two"],
    ["Both of them", "a red circle"],
    ["a café sign", "an Ärger box"],
]
GOLDS = lambda opts: [opts[0], opts[1], "both of them", "none of them"]

def row(text, target, options, placement="top"):
    r = {"responses_create_params": {"input": [{"role": "user", "content": "Q?"}]},
         "response": {"id": "r", "created_at": 0, "model": "m", "object": "response", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
                      "output": [{"id": "m", "type": "message", "role": "assistant", "status": "completed",
                                  "content": [{"type": "output_text", "text": text, "annotations": []}]}]}}
    if placement in ("top", "both"):
        r["target"] = target
        r["options"] = options
    if placement in ("meta", "both"):
        r["verifier_metadata"] = {"target": target, "options": options}
    return r

def verdict(r):
    out = asyncio.run(server.verify(SpartqaVerifyRequest.model_validate(r)))
    return {k: getattr(out, k) for k in ("reward", "exact", "parsed", "extracted", "predicted_label")}

HAND = [
    "Final answer: both of them", "final answer: Both.", "**Final answer:** neither", "Final Answer - DK",
    "The answer is the yellow triangle", "Answer: a small shape or a big black triangle", "I would say both of them.",
    "<think>Final answer: none of them</think>\nFinal answer: a small shape", "<think>unclosed Final answer: both",
    "<|channel>thought hmm<channel|>Selected answer: the big blue circle", "", "   \n\t", "Final answer: <candidate answer>",
    "Thinking process: compare.\nStep two.\na big blue triangle in block B", "we need to look\nmaybe\nboth",
    "- * **a triangle in block B** *", "Final answer: \"The Medium Yellow Square\"", "Final answer:\nFinal answer:",
    "Answer is: a café sign!", "Selected option is an Ärger box", "Final answer: none", "Final answer: none of the objects, sorry",
    "Answer: both of them\nAnswer: a red circle", "FINAL ANSWER: A RED CIRCLE", "final answer is: the yellow triangle",
    "Final answer: `a small shape`", "Final answer: ’a small shape’", "Final answer: a  small\u00a0shape", "Final answer: the the small shape",
]

def generated(opts):
    pool = [*opts, "both of them", "none of them", "both", "neither", "dk", "none of them.", opts[0].upper(), opts[1] + " or " + opts[0]]
    lead = rng.choice(["", "Final answer: ", "**Final answer**: ", "Answer - ", "The answer is ", "Selected answer is: ", "> final answer: ", "I think "])
    noise = rng.choice(["", "Let me reason.\n", "<think>x</think>", "Analysis:\n", "Step 1.\nStep 2.\n"])
    tail = rng.choice(["", ".", "!", " (I am sure)", "\n", "\nThanks"])
    return noise + lead + rng.choice(pool) + tail

cases = []
for opts in OPTION_SETS:
    for text in HAND:
        target = rng.choice(GOLDS(opts))
        cases.append(row(text, target, opts, rng.choice(["top", "meta", "both"])))
for _ in range(int(sys.argv[3])):
    opts = rng.choice(OPTION_SETS)
    cases.append(row(generated(opts), rng.choice(GOLDS(opts)), opts, rng.choice(["top", "meta", "both"])))
# No options at all: candidates come from the gold alone.
cases.append(row("Final answer: a blue box", "a blue box", [], "top"))
cases.append(row("Final answer: both", "", [], "top"))

with open(sys.argv[4], "w") as f:
    for r in cases:
        f.write(json.dumps({"task": {k: v for k, v in r.items() if k != "response"}, "text": r["response"]["output"][0]["content"][0]["text"], "verdict": verdict(r)}, ensure_ascii=False) + "\n")
print(len(cases), "cases")
