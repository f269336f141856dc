"""Differential cases for Gymflow's conversational_tool_use_simulation: drives NeMo Gym 0.7.0's own
conversational_tool_use_simulation server through its routes the way its policy agent does (seed, customer
turn, record outputs, run calls, step limit, verify), with scripted customer, tool and judge replies, on edge
cases (valid and invalid calls and results, fenced results, retried customer and tool replies, transfers
with and without the scenario's ground truth, failing, unreadable and bool-like judge verdicts, unfinished
conversations, the step limit, termination off) and records what it sent and answered.

Usage: python conversational_tool_use_simulation.cases.py <out.jsonl>   (NeMo Gym 0.7.0's venv)
"""
import sys, json, asyncio
from unittest.mock import MagicMock
from nemo_gym.openai_utils import NeMoGymResponse
from nemo_gym.server_utils import ServerClient, SESSION_ID_KEY
from resources_servers.conversational_tool_use_simulation.app import (
    ConversationalToolUseSimulationConfig, ConversationalToolUseSimulationServer, ConversationalToolUseSeedSessionRequest,
    ConversationalToolUseVerifyRequest, RecordAgentOutputsRequest, AgentToolCallRequest, RecordAgentStepLimitRequest)
from responses_api_agents.conversational_tool_use.simulation.prompt import agent_system_message, responses_api_tools

class Req:
    session = {SESSION_ID_KEY: "s"}

POLICY = "Refunds are allowed within 30 days of purchase. Verify the order with lookup_order first. {braces} stay."
TOOLS = [
    {"name": "lookup_order", "doc": "Look up an order by id.", "params": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]},
     "returns": {"type": "object", "properties": {"status": {"type": "string"}, "days_since_purchase": {"type": "integer"}}, "required": ["status"]}},
    {"name": "issue_refund", "description": "Refund an order.", "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}, "amount": {"type": "number"}}, "required": ["order_id", "amount"]},
     "returns": {"type": "object", "properties": {"refunded": {"type": "boolean"}}, "required": ["refunded"]}},
    {"name": "store_hours", "doc": "Opening hours (no schema for the result)."},
]

def task(outside=False, unknown="Whether the refund window applies"):
    return {"responses_create_params": {"input": [{"role": "system", "content": agent_system_message(POLICY)}], "tools": responses_api_tools(TOOLS), "parallel_tool_calls": False},
            "policy": POLICY, "domain_name": "a shop", "profile": "general", "tools": TOOLS, "source_artifacts": {"source_name": "cases"},
            "customer_scenario": {"customer_persona": "A busy parent\nwho shops online", "reason_for_contact": "Refund order A1", "customer_details": "Order A1, bought 10 days ago",
                                  "unknown_info": unknown, "task_instructions": "Ask for a refund of order A1.", "representative_domain": "a shop", "outside_policy_scope": outside}}

def text_response(text, rid):
    return NeMoGymResponse.model_validate({"id": rid, "created_at": 0, "model": "m", "object": "response", "parallel_tool_calls": False, "tool_choice": "auto", "tools": [],
        "output": [{"id": "o", "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}] if text is not None else []})

def make_server(settings):
    ref = {"type": "responses_api_models", "name": "sim"}
    config = ConversationalToolUseSimulationConfig(host="x", port=0, entrypoint="app.py", name="ctu", domain="agent", simulator_model_server=ref, judge_model_server=ref,
        enable_llm_judge=True, enforce_transfer_ground_truth=settings.get("enforce_transfer_ground_truth", True), enable_termination=settings.get("enable_termination", True),
        judge_provider_retry_initial_backoff_seconds=0)
    return ConversationalToolUseSimulationServer(config=config, server_client=MagicMock(spec=ServerClient))

def role_of(system):
    if system.startswith("# Instructions\n- You are playing the role of a customer"):
        return "customer"
    if system.startswith("# Instructions\n- Your task is to generate the result of executing a tool"):
        return "tool"
    return "judge"

async def play(case):
    server = make_server(case.get("settings", {}))
    replies = {"customer": list(case["customer"]), "tool": list(case["tool"]), "judge": list(case["judge"])}
    asked = []
    async def fake_call_model(*, model_server, params, messages, rollout_id=None):
        input = [{"role": m.role, "content": m.content} for m in messages]
        role = role_of(input[0]["content"])
        asked.append({"role": role, "input": input})
        return text_response(replies[role].pop(0), f"{role}{len(asked)}")
    server._call_model = fake_call_model
    row = task(**case.get("task", {}))
    await server.seed_session(Req(), ConversationalToolUseSeedSessionRequest.model_validate(row))
    transcript = []
    max_steps = case.get("max_agent_steps", 50)
    u = await server.next_user_message(Req())
    if u.message:
        transcript.append({"type": "message", "role": "user", "content": u.message})
    going = u.should_continue
    step = 0
    for turn in case["policy"]:
        if not going:
            break
        step += 1
        at_limit = step >= max_steps
        transcript.extend(turn)
        outputs = []
        for i, item in enumerate(turn):
            if item["type"] == "message":
                outputs.append({"type": "message", "content": item["content"][0]["text"], "response_output_index": i})
            else:
                outputs.append({"type": "function_call", "tool_name": item["name"], "tool_call_id": item["call_id"], "arguments": item["arguments"], "response_output_index": i})
        r = await server.record_agent_outputs(Req(), RecordAgentOutputsRequest.model_validate({"outputs": outputs}))
        if not r.should_continue:
            break
        calls = [i for i in turn if i["type"] == "function_call"]
        if calls:
            if at_limit:
                await server.record_agent_step_limit(Req(), RecordAgentStepLimitRequest(max_agent_steps=max_steps))
                break
            out = await server.execute_agent_tool_call(Req(), AgentToolCallRequest(tool_name=calls[0]["name"], tool_call_id=calls[0]["call_id"], arguments=calls[0]["arguments"]))
            transcript.append({"type": "function_call_output", "call_id": calls[0]["call_id"], "output": out.output if isinstance(out.output, str) else json.dumps(out.output)})
            going = out.should_continue
        else:
            u = await server.next_user_message(Req())
            if u.message:
                transcript.append({"type": "message", "role": "user", "content": u.message})
            if not u.should_continue:
                break
            if at_limit:
                await server.record_agent_step_limit(Req(), RecordAgentStepLimitRequest(max_agent_steps=max_steps))
                break
    verify_request = ConversationalToolUseVerifyRequest.model_validate({"responses_create_params": row["responses_create_params"],
        "response": {"id": "r", "created_at": 0, "model": "m", "object": "response", "output": [], "parallel_tool_calls": False, "tool_choice": "auto", "tools": []}})
    v = (await server.verify(Req(), verify_request)).model_dump(mode="json")
    traj = v["result"]["trajectory"]
    keep = ["reward", "terminal_state", "trajectory_invalid_reasons", "failure_labels", "num_user_messages", "num_agent_messages", "num_tool_calls", "num_tool_results",
            "num_tool_schema_failures", "num_user_failures", "num_agent_failures", "num_tool_failures", "outside_policy_scope", "transferred", "transfer_ground_truth_mismatch",
            "judge_skipped_for_transfer_mismatch", "instance_config"]
    verdict = {k: v[k] for k in keep}
    verdict["generation_invalid_reason"] = traj["generation_invalid_reason"]
    verdict["messages"] = [{"type": m["type"], "source": m["source"], "text": m.get("text"), "execution_result": m.get("execution_result"), "schema_valid": m.get("schema_valid"),
                            "reward": (m.get("verification_result") or {}).get("reward")} for m in traj["messages"]]
    verdict["agent_verification_result"] = {k: val for k, val in (traj["agent_verification_result"] or {}).items() if k != "conversation_verification_result"}
    verdict["conversation_reward"] = ((traj["agent_verification_result"] or {}).get("conversation_verification_result") or {}).get("reward")
    verdict["transfer_ground_truth_enforcement"] = v["judge_diagnostics"].get("transfer_ground_truth_enforcement")
    return {"name": case["name"], "settings": {**case.get("settings", {}), **({"max_agent_steps": max_steps} if "max_agent_steps" in case else {})}, "task": row,
            "policy": case["policy"], "customer": case["customer"], "tool": case["tool"], "judge": case["judge"], "asked": asked, "transcript": transcript, "verdict": verdict}

def say(text):
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
def call(name, args, cid="c1"):
    return {"type": "function_call", "call_id": cid, "name": name, "arguments": args}

OK = '{"success": true, "explanation": "fine"}'
NO = '{"success": false, "explanation": "wrong"}'
LOOKUP = call("lookup_order", '{"order_id": "A1"}')
RESULT = '{"status": "delivered", "days_since_purchase": 10}'
CASES = [
    {"name": "complete, all judged fine", "customer": ["Customer: I want a refund for A1.", "###STOP###"], "tool": [RESULT], "policy": [[LOOKUP], [say("Refund approved.")]], "judge": [OK] * 6},
    {"name": "customer's first message fails", "customer": ["Refund A1 please", "###STOP###"], "tool": [], "policy": [[say("Done.")]], "judge": [NO]},
    {"name": "tool result judged wrong", "customer": ["Refund A1", "###STOP###"], "tool": [RESULT], "policy": [[LOOKUP], [say("Done.")]], "judge": [OK, NO]},
    {"name": "representative step judged wrong", "customer": ["Refund A1", "###STOP###"], "tool": [RESULT], "policy": [[LOOKUP], [say("Done.")]], "judge": [OK, OK, OK, NO]},
    {"name": "conversation judged wrong", "customer": ["Refund A1", "###STOP###"], "tool": [RESULT], "policy": [[LOOKUP], [say("Done.")]], "judge": [OK, OK, OK, OK, OK, NO]},
    {"name": "fenced and bool-like verdicts", "customer": ["Refund A1", "###STOP###"], "tool": ["```json\n" + RESULT + "\n```"], "policy": [[LOOKUP], [say("Done.")]],
     "judge": ['```json\n{"success": "yes", "explanation": "ok"}\n```', '{"success": 1, "explanation": "ok", "extra": 2}', OK, ' ' + OK + ' ', OK, OK]},
    {"name": "unreadable verdicts thrice", "customer": ["Refund A1", "###STOP###"], "tool": [], "policy": [[say("Done.")]], "judge": ["not json", '{"success": "maybe", "explanation": "x"}', '{"explanation": "x"}']},
    {"name": "verdict without text, then fine", "customer": ["Refund A1", "###STOP###"], "tool": [], "policy": [[say("Done.")]], "judge": [None, OK, OK, OK, OK]},
    {"name": "unknown tool", "customer": ["Refund A1"], "tool": [], "policy": [[call("cancel_everything", "{}")]], "judge": []},
    {"name": "arguments not JSON", "customer": ["Refund A1"], "tool": [], "policy": [[call("lookup_order", '{"order_id": ')]], "judge": []},
    {"name": "arguments fail the schema", "customer": ["Refund A1"], "tool": [], "policy": [[call("issue_refund", '{"order_id": "A1"}')]], "judge": []},
    {"name": "call id reused", "customer": ["Refund A1", "more"], "tool": [RESULT], "policy": [[LOOKUP], [LOOKUP]], "judge": []},
    {"name": "result invalid thrice", "customer": ["Refund A1"], "tool": ['{"state": "x"}', "not json", '{"status": 3}'], "policy": [[LOOKUP]], "judge": []},
    {"name": "result invalid then valid", "customer": ["Refund A1", "###STOP###"], "tool": ["oops", RESULT], "policy": [[LOOKUP], [say("Done.")]], "judge": [OK] * 6},
    {"name": "tool without a return schema", "customer": ["Hours?", "###STOP###"], "tool": ["whatever text"], "policy": [[call("store_hours", "{}")], [say("9 to 5.")]], "judge": [OK] * 6},
    {"name": "tool simulator gives no text", "customer": ["Refund A1"], "tool": [None], "policy": [[LOOKUP]], "judge": []},
    {"name": "customer opens with STOP, then not", "customer": ["###STOP###", "Customer:   Refund A1", "###STOP###"], "tool": [], "policy": [[say("Done.")]], "judge": [OK] * 4},
    {"name": "customer opens with STOP thrice", "customer": ["###STOP###", "###TRANSFER###", "ok ###STOP###"], "tool": [], "policy": [], "judge": []},
    {"name": "customer gives no text", "customer": [None], "tool": [], "policy": [], "judge": []},
    {"name": "transfer against the ground truth", "customer": ["Refund A1", "###TRANSFER###"], "tool": [], "policy": [[say("Transferring you.")]], "judge": []},
    {"name": "transfer within the ground truth", "task": {"outside": True}, "customer": ["Refund A1", "###TRANSFER###"], "tool": [], "policy": [[say("Transferring you.")]], "judge": [OK] * 4},
    {"name": "no transfer when one was due", "task": {"outside": True, "unknown": None}, "customer": ["Refund A1", "###STOP###"], "tool": [], "policy": [[say("Done.")]], "judge": []},
    {"name": "unfinished conversation", "customer": ["Refund A1", "And?"], "tool": [], "policy": [[say("Done.")]], "judge": []},
    {"name": "step limit with a call", "max_agent_steps": 2, "customer": ["Refund A1", "ok"], "tool": [], "policy": [[say("Let me check.")], [LOOKUP]], "judge": []},
    {"name": "step limit with a message", "max_agent_steps": 1, "customer": ["Refund A1", "hm"], "tool": [], "policy": [[say("Let me check.")]], "judge": []},
    {"name": "step limit, customer ends", "max_agent_steps": 1, "customer": ["Refund A1", "###STOP###"], "tool": [], "policy": [[say("Done.")]], "judge": [OK] * 4},
    {"name": "termination off judges everything", "settings": {"enable_termination": False}, "customer": ["Refund A1", "###STOP###"], "tool": [RESULT], "policy": [[LOOKUP], [say("Done.")]],
     "judge": [NO, OK, NO, OK, OK, OK]},
    {"name": "transfer gate off", "settings": {"enforce_transfer_ground_truth": False}, "customer": ["Refund A1", "###TRANSFER###"], "tool": [], "policy": [[say("Transferring you.")]], "judge": [OK] * 4},
]

async def main():
    with open(sys.argv[1], "w") as out:
        for case in CASES:
            out.write(json.dumps(await play(case)) + "\n")

asyncio.run(main())
