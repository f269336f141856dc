"""Differential cases for HLE vision (configs/benchmarks/hle-vision.yaml: equivalence_llm_judge with HLE's settings):
runs NeMo Gym 0.7.0's own equivalence_llm_judge verify, configured as its benchmarks/hle/config_vision.yaml
overlays its shipped configs/equivalence_llm_judge.yaml, on the example rows (image and text questions) with
answers in HLE's format and not (empty, whitespace, unicode, several messages, reasoning only) and scripted
judge replies (yes, no, other case, both labels, neither, cut off), and records its verdicts and judge prompts.

Usage: python hle_vision.cases.py <NeMo Gym 0.7.0 tree> <example.jsonl> <out.jsonl>   (the venv of scripts/setup-nemo-gym.sh)
"""
import sys, json, asyncio, yaml
from unittest.mock import MagicMock
from nemo_gym.server_utils import ServerClient
from nemo_gym.openai_utils import NeMoGymResponse
from resources_servers.equivalence_llm_judge import app
from resources_servers.equivalence_llm_judge.app import LLMJudgeResourcesServer, LLMJudgeResourcesServerConfig, LLMJudgeVerifyRequest

tree = sys.argv[1]
base = yaml.safe_load(open(f"{tree}/resources_servers/equivalence_llm_judge/configs/equivalence_llm_judge.yaml"))["equivalence_llm_judge"]["resources_servers"]["equivalence_llm_judge"]
hle = yaml.safe_load(open(f"{tree}/benchmarks/hle/config_vision.yaml"))["hle_vision_equivalence_llm_judge_resources_server"]["resources_servers"]["equivalence_llm_judge"]
settings = {**base, **hle}
settings["judge_prompt_template_fpath"] = f"{tree}/benchmarks/hle/prompts/judge.txt"
server = LLMJudgeResourcesServer(config=LLMJudgeResourcesServerConfig(host="x", port=1, name="hle", **settings), server_client=MagicMock(spec=ServerClient))

rows = [json.loads(l) for l in open(sys.argv[2])]
def message(text):
    return {"id": "m", "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}
def answers(row):
    gold = row["expected_answer"]
    return [
        [message(f"Explanation: I looked at it closely.\nAnswer: {gold}\nConfidence: 90%")],
        [message("Explanation: unsure.\nAnswer: 7\nConfidence: 20%")],
        [message("")], [message("  \n\t ")], [message(f"Réponse : {gold} ✓ — 答案")],
        [message("First draft: 5"), message(f"Answer: {gold}")],
        [{"id": "rs", "type": "reasoning", "summary": [{"type": "summary_text", "text": f"Answer: {gold}"}]}],
        [message(f"Answer: {gold} {{question}} {{expected_answer}}")],
    ]
JUDGES = [
    {"text": "extracted_final_answer: 3\nReasoning: matches.\nJudgement: yes\nConfidence: 90"}, {"text": "Judgement: no"},
    {"text": "judgement: Yes"}, {"text": "Judgement: no ... on reflection Judgement: yes"}, {"text": "Judgement: yes, not Judgement: no"},
    {"text": "I cannot tell."}, {"text": "Judgement: yes", "incomplete": True},
]

def verdict(row, output, judge):
    asked = []
    async def call_judge(_client, *, server_name, url_path, json, response_model):
        asked.append([{"role": m.role, "content": m.content} for m in json.input])
        body = {"id": "j", "created_at": 0, "model": "judge", "object": "response", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
                "output": [message(judge["text"])], "status": "incomplete" if judge.get("incomplete") else "completed"}
        if judge.get("incomplete"):
            body["incomplete_details"] = {"reason": "max_output_tokens"}
        return response_model.model_validate(body)
    app.call_judge = call_judge
    request = {**row, "response": {"id": "r", "created_at": 0, "model": "m", "object": "response", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [], "output": output}}
    out = asyncio.run(server.verify(LLMJudgeVerifyRequest.model_validate(request)))
    return {"reward": out.reward, "expected_answer": out.expected_answer, "labels": [e.verdict_label for e in out.judge_evaluations], "prompts": asked}

with open(sys.argv[3], "w") as f:
    n = 0
    for row in rows:
        for output in answers(row):
            for judge in JUDGES:
                f.write(json.dumps({"row": row, "output": output, "judge": judge, "verdict": verdict(row, output, judge)}, ensure_ascii=False) + "\n")
                n += 1
print(n, "cases")
