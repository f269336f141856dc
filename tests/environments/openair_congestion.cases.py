"""Differential episodes for Gymflow's openair_congestion: plays NeMo Gym 0.7.0's own OpenAir server (reset/step
on the replay backend) with random turns — every actuator with valid, out-of-range, float-for-int and repeated
arguments, PRB caps, admission, unknown tools, malformed JSON, no call, two calls — and records each step's
observation, reward and done flags.

Usage: python openair_congestion.cases.py <NeMo Gym 0.7.0 tree> <example.jsonl> <seed> <episodes> <out.jsonl>
       (this file: seed 29, 40 episodes)
"""
import asyncio, json, random, sys
from unittest.mock import MagicMock

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[1] + "/resources_servers/openair_congestion")
from nemo_gym.openai_utils import NeMoGymResponse
from nemo_gym.server_utils import ServerClient
from resources_servers.openair_congestion.app import OpenAirCongestionEnv, OpenAirCongestionResourcesServerConfig

rng = random.Random(int(sys.argv[3]))
rows = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
config = OpenAirCongestionResourcesServerConfig(host="", port=0, entrypoint="app.py", name="openair_cases", pool_size=4)
env = OpenAirCongestionEnv(config=config, server_client=MagicMock(spec=ServerClient))


def pick(*xs):
    return rng.choice(xs)


def action():
    cell = pick(0, 1, 1, 0, 2, 0.0)
    name = pick("set_scheduler_policy", "set_prb_cap", "set_mcs_bounds", "set_qos_weights", "set_admission_policy",
                "set_handover_trigger", "set_ul_power_control", "noop", "noop")
    if name == "set_scheduler_policy":
        args = {"cell_id": cell, "policy": pick("PF", "RR", "MaxCI", "RR", "WFQ")}
    elif name == "set_prb_cap":
        args = {"cell_id": cell, "target": "ue", "target_id": pick(0, 1, 1, 5), "max_prb": pick(40, 100, 200, 273, 0, 300, 150)}
    elif name == "set_mcs_bounds":
        lo = pick(0, 5, 10, 20, 27)
        args = {"cell_id": cell, "mcs_min": lo, "mcs_max": pick(lo, 27, 15, 0, 28), "target_bler": pick(0.1, 0.05, 0.3, 0.6, 0)}
    elif name == "set_qos_weights":
        args = {"cell_id": cell, "weights": pick({"1": 3.0}, {"9": 0.5, "1": 2}, {"9": 0}, {"200": 1.0}, {"x": 1.0}, {"1": 11.0}, {"9": 1.5})}
    elif name == "set_admission_policy":
        args = {"cell_id": cell, "accept_threshold_pct": pick(50, 75.5, 100, 0, 120, 10), "slice_reservation": pick({}, {}, {"1": 10})}
    elif name == "set_handover_trigger":
        args = {"cell_id": cell, "a3_offset_db": pick(-24.0, 3, 12.5, 30.0), "ttt_ms": pick(0, 160, 5120, 7, 160.0)}
    elif name == "set_ul_power_control":
        args = {"cell_id": cell, "p0_dbm": pick(10.0, -90, -126.0, 23, 40.0), "alpha": pick(1.0, 0.8, 0.4, 0.3, 1)}
    else:
        args = {}
    return name, args


def call(name, text, i):
    return {"type": "function_call", "call_id": f"call_{i}", "id": f"fc_{i}", "name": name, "arguments": text, "status": "completed"}


def turn(i):
    kind = rng.random()
    if kind < 0.05:
        return [{"type": "message", "role": "assistant", "id": f"m{i}", "status": "completed",
                 "content": [{"type": "output_text", "text": "I will wait.", "annotations": []}]}]
    if kind < 0.09:
        return [call("noop", "{}", i), call("noop", "{}", f"{i}b")]
    if kind < 0.12:
        return [call("set_scheduler_policy", '{"cell_id": 0, "policy": ', i)]
    if kind < 0.14:
        return [call("reboot_cell", "{}", i)]
    if kind < 0.16:
        return [call("set_scheduler_policy", '{"cell_id": 0, "cell_id": 1, "policy": "RR"}', i)]
    if kind < 0.18:
        return [call("noop", "", i)]
    name, args = action()
    return [call(name, json.dumps(args), i)]


def response(output):
    return NeMoGymResponse.model_validate({"id": "r", "created_at": 0, "model": "m", "object": "response", "parallel_tool_calls": False,
                                           "tool_choice": "auto", "tools": [], "output": output})


async def episode(n):
    row = dict(rng.choice(rows))
    row["max_steps"] = rng.choice([3, 8, 16, 20])
    session = f"s{n}"
    metadata = {k: v for k, v in row.items() if k not in ("responses_create_params", "agent_ref")}
    obs, _ = await env.reset(metadata, session_id=session)
    turns, steps = [], []
    for i in range(20):
        out = turn(i)
        nxt, reward, terminated, truncated, _ = await env.step(response(out), {}, session_id=session)
        turns.append(out)
        steps.append({"observation": nxt, "reward": reward, "terminated": terminated, "truncated": truncated})
        if terminated or truncated:
            break
    await env.close_session(session)
    return {"task": row, "first_observation": obs, "turns": turns, "steps": steps}


async def main():
    with open(sys.argv[5], "w") as f:
        for n in range(int(sys.argv[4])):
            f.write(json.dumps(await episode(n)) + "\n")

asyncio.run(main())
print(sys.argv[4], "episodes")
