"""Differential cases for Gymflow's agentif: runs NeMo Gym 0.7.0's own AgentIF verify (its judge pipeline and
its exec of the dataset's check_following code) on the shipped example rows with responses made to probe it
(the recorded rollouts' responses, empty and whitespace-only text, think blocks, unicode, tags the code checks
look for, bracketed function lists eval() reads), plus hand-written constraints for the pipeline's corners,
and records the verdicts. The judge is scripted: each distinct prompt gets a reply drawn from a pool of
clear, ambiguous, empty and think-wrapped verdicts and of extracted lists, sent back as a Responses object
through NeMo Gym's own judge client path; the replies are recorded by prompt for the test to replay.

Usage: python agentif.cases.py <NeMo Gym 0.7.0 tree> <example.jsonl> <example_rollouts.jsonl> <seed> <generated> <out.jsonl>
       (this file: seed 13, 60 generated; the NeMo Gym venv of scripts/setup-nemo-gym.sh)
"""
import asyncio, json, random, sys
from unittest.mock import MagicMock

sys.path.insert(0, sys.argv[1])
from nemo_gym.config_types import ModelServerRef  # noqa: E402
from nemo_gym.openai_utils import NeMoGymResponseCreateParamsNonStreaming  # noqa: E402
from nemo_gym.server_utils import ServerClient  # noqa: E402
from resources_servers.agentif.app import AgentIFResourcesServer, AgentIFResourcesServerConfig, AgentIFVerifyRequest  # noqa: E402

rng = random.Random(int(sys.argv[4]))
rows = [json.loads(l) for l in open(sys.argv[2])]
recorded = [json.loads(l) for l in open(sys.argv[3])]

VERDICTS = ["YES", "NO", "yes", "no", "The response complies. YES", "NO.", "YES\nNO", "Reasoning: YES it does.\nNO",
            "NO, the response is not YES-formatted", "<think>NO</think>YES", "<think>unclosed YES", "", "   ", "MAYBE",
            "是YES", "答案：NO。", "YESNO", "**YES**", "N/A", "Final: YES\n\n"]
LISTS = ["['get_company_info']", "['get_company_info', 'finish']", "[get_company_info, finish]", "['not_a_tool']", "[]",
         "[\"math\", \"time\"]", "[\"os\"]", "['get_company_info(company_name=\"x\")']", "[\"print(1)\"]", "YES", "NO", "",
         "<think>list them</think>['finish']", "no functions", "['finish'] ['bogus']", "['名称']"]
judge_log = {}


class FakeReply:
    def __init__(self, text):
        self.text = text

    async def read(self):
        body = {"id": "judge", "created_at": 0.0, "model": "judge", "object": "response", "parallel_tool_calls": False,
                "tool_choice": "none", "tools": [],
                "output": [{"id": "m", "type": "message", "role": "assistant", "status": "completed",
                            "content": [{"type": "output_text", "text": self.text, "annotations": []}]}]}
        return json.dumps(body).encode()


# A lenient judge instead of the random one: YES to every verdict prompt, an empty list to every extraction.
lenient = False


async def post(server_name, url_path, json):  # noqa: A002 (NeMo Gym's keyword)
    prompt = json["input"][0]["content"]
    asks_verdict = "YES" in prompt and "NO" in prompt
    if prompt not in judge_log:
        if lenient:
            judge_log[prompt] = "YES" if asks_verdict else "[]"
        else:
            judge_log[prompt] = rng.choice(VERDICTS if asks_verdict else LISTS + VERDICTS[:4])
    return FakeReply(judge_log[prompt])


client = MagicMock(spec=ServerClient)
client.post = post
server = AgentIFResourcesServer(
    config=AgentIFResourcesServerConfig(host="0.0.0.0", port=1, entrypoint="", name="agentif",
                                        judge_model_server=ModelServerRef(type="responses_api_models", name="judge_model"),
                                        judge_responses_create_params=NeMoGymResponseCreateParamsNonStreaming(input=[], max_output_tokens=1024, temperature=0.0, top_p=1.0)),
    server_client=client)

FIELDS = ("reward", "n_true", "n_false", "n_null", "n_skipped", "n_error", "isr_pass", "isr_counted", "by_dimension", "by_type", "query_id", "turn_id")


def response(text):
    return {"id": "r", "created_at": 0.0, "model": "m", "object": "response", "parallel_tool_calls": False, "tool_choice": "none", "tools": [],
            "output": [{"id": "m", "type": "message", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}]}]}


def verdict(task, text, lenient_judge=False):
    global lenient
    lenient = lenient_judge
    judge_log.clear()
    body = AgentIFVerifyRequest.model_validate({**task, "response": response(text)})
    out = asyncio.run(server.verify(body))
    return {k: getattr(out, k) for k in FIELDS}, dict(judge_log)


def pieces(row):
    recorded_text = next(r for r in recorded if r["responses_create_params"]["input"] == row["responses_create_params"]["input"])["response"]["output"][0]["content"][0]["text"]
    return [recorded_text, "<thought>\n我需要查询。\n</thought>", "<code>\nresult = get_company_info(company_name='某公司')\nprint(result)\n</code>",
            "get_address_info get_lawfirm_info get_finalized dishonesty restriction get_court_code finish", "open('data.csv')",
            "[get_company_info, get_bogus]", "['get_company_info', 'finish']", "<think>hidden plan</think>", "   ", "\n", "完成 ✓ café", "file: x.txt"]


def generated(row):
    parts = pieces(row)
    text = "".join(rng.choice(parts) for _ in range(rng.randint(1, 4)))
    return rng.choice(["", "<think>reasoning</think>", "  "]) + text + rng.choice(["", "\n", "  "])


CORNERS = [
    # Code checkers: a bare `check_following(...)`, imports, raising, non-bool returns, printing.
    [{"type": "code", "exec": "check_following(response):\n    return 'A' in response"}],
    [{"type": "code", "exec": "import json\nfrom collections import Counter\ndef check_following(response):\n    return json.dumps(Counter(response)['A']) == '1'"}],
    [{"type": "code", "exec": "def check_following(response):\n    raise ValueError('boom')"}],
    [{"type": "code", "exec": "def check_following(response):\n    print('checking', response)\n    return 'YES' if response.strip() else 'NO'"}],
    [{"type": "code", "exec": "def check_following(response):\n    return None"}],
    [{"type": "code", "exec": "def check_following(response):\n    return [1]"}],
    [{"type": "code", "exec": "def check_following(response):\n    return 0"}],
    [{"type": "code", "exec": "def check_following(response):\n    return 'maybe'"}],
    [{"type": "code", "exec": "def helper(x):\n    return x"}],
    [{"type": "code", "exec": "def check_following(response):\n    return len(response) > 3"}, {"type": "code", "exec": "def check_following(response):\n    return response is True"}],
    [{"type": "code", "exec": "def check_following(response):\n    return False"}, {"type": "code", "exec": "def check_following(response):\n    return True"}],
    # Judge steps: prompts with and without the {response} slot, a gate then a code check, a failed code check before the judge.
    [{"type": "llm", "exec": "Does it say A? Answer YES or NO."}],
    [{"type": "llm", "exec": "Repeat {response} and {response}. YES or NO?"}],
    [{"type": "llm_conditional_check", "exec": "Is a tool needed? YES or NO.\n{response}"}, {"type": "code", "exec": "def check_following(response):\n    return 'A' in response"}],
    [{"type": "code", "exec": "def check_following(response):\n    raise KeyError('x')"}, {"type": "llm", "exec": "YES or NO? {response}"}],
    [{"type": "llm", "exec": "List the functions: {response}"}, {"type": "code", "exec": "def check_following(response):\n    return response.startswith('[')"}],
    [{"type": "unknown_step", "exec": "ignored"}],
    [],
]
CORNER_TEXTS = ["A", "", "  ", "<think>A</think>", "YES A", "AA café ✓", "<think>x</think>\n\nA\n"]


def corner_task(evaluation, i):
    kinds = [("unconditional", "formatting"), ("conditional", ["semantic", "resource"]), ("example_driven", "resource"), ("other", "other")]
    dimension, ctype = kinds[i % len(kinds)]
    return {"responses_create_params": {"input": [{"role": "user", "content": "Q"}]},
            "verifier_metadata": {"query_id": 7, "turn_id": i, "constraints": [{"id": 0, "dimension": dimension, "type": ctype, "evaluation": evaluation}]}}


cases = []
for row in rows:
    for text in pieces(row)[:1] + ["", "   ", "<think>only thoughts</think>"]:
        cases.append((row, text))
for _ in range(int(sys.argv[5])):
    row = rng.choice(rows)
    cases.append((row, generated(row)))
for i, evaluation in enumerate(CORNERS):
    for text in CORNER_TEXTS:
        cases.append((corner_task(evaluation, i), text))
cases.append(({"responses_create_params": {"input": [{"role": "user", "content": "Q"}]}}, "no metadata at all"))

with open(sys.argv[6], "w") as f:
    # The recorded responses once more, and from their first <code> on (what the Code_prompt rows ask for),
    # graded by the lenient judge: rows that can pass.
    recorded_texts = [(row, pieces(row)[0]) for row in rows]
    from_code = [(row, text[text.index("<code>"):]) for row, text in recorded_texts if "<code>" in text]
    for task, text, lenient_judge in [(t, x, False) for t, x in cases] + [(t, x, True) for t, x in recorded_texts + from_code]:
        v, judge = verdict(task, text, lenient_judge)
        # Example rows by their line in example.jsonl (0-based), other tasks whole.
        where = {"row": rows.index(task)} if task in rows else {"task": task}
        f.write(json.dumps({**where, "text": text, **({"lenient_judge": True} if lenient_judge else {}), "judge": judge, "verdict": v}, ensure_ascii=False) + "\n")
print(len(cases) + len(recorded_texts) + len(from_code), "cases")
