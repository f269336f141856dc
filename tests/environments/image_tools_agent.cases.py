"""Differential cases for Gymflow's image-tools agent (src/agents/image-tools.ts, src/environments/image_tools_agent):
runs NeMo Gym 0.7.0's own ImageToolsAgent loop (_run_image_tools_loop, with its ImageToolsGymToolLogic and PIL) over
scripted model turns on the drawn shapes image, and records the aux reward, the counts, the roles of the output and
every tool reply (image parts as {"image": [width, height]}).

Usage: python image_tools_agent.cases.py <NeMo Gym 0.7.0 site-packages> <shapes.png> <out.jsonl>
       (NeMo Gym's venv: the agent imports nemo_gym, pydantic and PIL)
"""
import asyncio, base64, io, json, sys, tempfile
from unittest.mock import MagicMock

sys.path.insert(0, sys.argv[1])
from PIL import Image
from nemo_gym.config_types import ModelServerRef, ResourcesServerRef
from nemo_gym.openai_utils import NeMoGymResponse, NeMoGymResponseCreateParamsNonStreaming
from nemo_gym.server_utils import ServerClient
from responses_api_agents.image_tools_agent.app import ImageToolsAgent, ImageToolsAgentConfig

SHAPES = sys.argv[2]
CROPS = tempfile.mkdtemp()


def call(bbox, idx=0, tool="image_zoom_in_tool", label="region", **extra):
    params = f"<parameter=bbox_2d>{json.dumps(bbox)}</parameter><parameter=label>{label}</parameter><parameter=img_idx>{json.dumps(idx)}</parameter>"
    params += "".join(f"<parameter={k}>{json.dumps(v)}</parameter>" for k, v in extra.items())
    return f"<tool_call><function={tool}>{params}</function></tool_call>"


ANSWER = "The answer is car."
Q = call([0, 0, 500, 500])
CASES = [
    ("one zoom then the answer", {}, [Q, ANSWER]),
    ("a plain answer", {}, [ANSWER]),
    ("an exact duplicate forces the final answer", {}, [Q, Q, ANSWER]),
    ("a tool call after the forced final is invalid", {}, [Q, Q, call([600, 600, 900, 900])]),
    ("a near duplicate by IoU", {}, [Q, call([0, 0, 520, 520]), ANSWER]),
    ("overlap below the IoU threshold", {}, [Q, call([300, 300, 800, 800]), ANSWER]),
    ("a lower IoU threshold makes it a duplicate", {"duplicate_iou_threshold": 0.05}, [Q, call([300, 300, 800, 800]), ANSWER]),
    ("duplicates do not force the end when told not to", {"force_final_after_duplicate": False}, [Q, Q, call([600, 600, 900, 900]), ANSWER]),
    ("the same box on another image is no duplicate", {}, [Q, call([0, 0, 500, 500], idx=1), ANSWER]),
    ("crop and zoom keep separate boxes", {}, [Q, call([0, 0, 500, 500], tool="image_crop_tool"), ANSWER]),
    ("nested markup is malformed", {}, ["<tool_call><function=image_zoom_in_tool><parameter=bbox_2d>[0, 0, 500, 500]</parameter><parameter=label>bad\n</think>\n<tool_call><function=image_zoom_in_tool><parameter=bbox_2d>[10, 10, 100, 100]</parameter><parameter=img_idx>0</parameter></function></tool_call>", ANSWER]),
    ("a think tag beside a clean call is malformed", {}, ["<think>look</think>" + Q, ANSWER]),
    ("an unclosed call is malformed", {}, ["<tool_call><function=image_zoom_in_tool><parameter=bbox_2d>[0, 0, 500, 500]</parameter>", ANSWER]),
    ("malformed markup without terminating", {"terminate_on_invalid_tool_call": False}, ["<tool_call>oops</tool_call>", Q, ANSWER]),
    ("an unknown tool", {}, [call([0, 0, 500, 500], tool="image_magic_tool"), ANSWER]),
    ("an unknown tool without terminating", {"terminate_on_invalid_tool_call": False}, [call([0, 0, 500, 500], tool="image_magic_tool"), Q, ANSWER]),
    ("a box wholly outside the image (pixels)", {}, [call([1200, 1200, 1500, 1500], tool="image_crop_tool"), ANSWER]),
    ("a box outside the image (normalised) is clipped", {}, [call([-200, -200, 300, 300], tool="image_crop_tool"), ANSWER]),
    ("a zero-area zoom box grows to 32 px", {}, [call([400, 400, 400, 400]), ANSWER]),
    ("an inverted box is reordered", {}, [call([800, 900, 100, 200]), ANSWER]),
    ("img_idx out of range", {}, [call([0, 0, 500, 500], idx=5), ANSWER]),
    ("img_idx that is not a number", {}, [call([0, 0, 500, 500], idx="abc"), ANSWER]),
    ("img_idx null", {}, [call([0, 0, 500, 500], idx=None), ANSWER]),
    ("no bbox", {}, ["<tool_call><function=image_zoom_in_tool><parameter=img_idx>0</parameter></function></tool_call>", ANSWER]),
    ("a bbox of three numbers", {}, [call([1, 2, 3]), ANSWER]),
    ("a bad zoom factor", {}, [call([0, 0, 500, 500], factor=-1), ANSWER]),
    ("zooming into the crop it made", {}, [Q, call([0, 0, 500, 500], idx=1, label="closer"), ANSWER]),
    ("a JSON-form call", {}, ['<tool_call>{"name": "image_crop_tool", "arguments": {"bbox_2d": [100, 100, 600, 600], "img_idx": 0}}</tool_call>', ANSWER]),
    ("a JSON-form call with null arguments", {}, ['<tool_call>{"name": "image_flip_tool", "arguments": null}</tool_call>', ANSWER]),
    ("flip and rotate are tools too", {}, ['<tool_call><function=image_flip_tool><parameter=axis>horizontal</parameter><parameter=img_idx>0</parameter></function></tool_call>', '<tool_call><function=image_rotate_tool><parameter=degrees>90</parameter><parameter=img_idx>1</parameter></function></tool_call>', ANSWER]),
    ("two calls in one turn: only the first runs", {}, [Q + call([600, 600, 900, 900]), ANSWER]),
    ("two calls per turn allowed", {"max_tool_calls_per_turn": 2}, [Q + call([600, 600, 900, 900]), ANSWER]),
    ("no calls per turn allowed", {"max_tool_calls_per_turn": 0}, [Q, ANSWER]),
    ("max_tool_calls reached: the final prompt, then invalid", {"max_tool_calls": 2}, [Q, call([600, 600, 900, 900]), call([0, 600, 300, 900]), call([600, 0, 900, 300]), ANSWER]),
    ("max_tool_calls reached, then the answer", {"max_tool_calls": 1}, [Q, call([600, 600, 900, 900]), ANSWER]),
    ("the success reward is capped", {"tool_success_reward": 0.1, "tool_success_reward_cap": 0.15}, [Q, call([600, 600, 900, 900]), call([0, 600, 300, 900]), ANSWER]),
    ("a penalty after the cap", {"tool_success_reward": 0.1, "tool_success_reward_cap": 0.15}, [Q, call([600, 600, 900, 900]), Q, ANSWER]),
    ("an invalid call's penalty is not capped away", {"tool_success_reward": 0.1, "tool_success_reward_cap": 0.1}, [Q, call([600, 600, 900, 900]), call([0, 0, 1, 1], idx=9)]),
    ("max_steps ends a rollout that keeps calling", {"max_steps": 2}, [Q, call([600, 600, 900, 900]), ANSWER]),
    ("PNG crops", {"crop_format": "png"}, [Q, ANSWER]),
    ("a small crop pixel budget", {"crop_min_pixels": 1024, "crop_max_pixels": 4096}, [Q, ANSWER]),
    ("a task without images", {"_no_image": True}, [Q, ANSWER]),
]


def message(text):
    return {
        "id": "resp", "created_at": 1, "model": "m", "object": "response", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "output": [{"id": "msg", "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}],
    }


def shown(content):
    if isinstance(content, str):
        return content
    out = []
    for part in content:
        if part["type"] == "input_text":
            out.append({"text": part["text"]})
        else:
            with Image.open(io.BytesIO(base64.b64decode(part["image_url"].split(",", 1)[1]))) as im:
                out.append({"image": [im.width, im.height], "mime": part["image_url"].split(";", 1)[0]})
    return out


async def run(name, overrides, texts):
    settings = {k: v for k, v in overrides.items() if not k.startswith("_")}
    config = ImageToolsAgentConfig(
        host="localhost", port=1, entrypoint="app.py", name="image_tools_simple_agent",
        model_server=ModelServerRef(type="responses_api_models", name="policy_model"),
        resource_servers_by_agent={"string_match_simple_agent": ResourcesServerRef(type="resources_servers", name="string_match")},
        crop_dir=CROPS, **{"max_steps": 21, "max_tool_calls": 20, "tool_success_reward_cap": 0.2, **settings},
    )
    agent = ImageToolsAgent(config=config, server_client=MagicMock(spec=ServerClient))
    script = iter(texts)
    calls = []

    async def model(body, cookies):
        calls.append(json.loads(body.metadata["extra_body"]))
        return NeMoGymResponse.model_validate(message(next(script))), cookies

    agent._call_model = model
    content = [{"type": "input_text", "text": "What object is shown?"}]
    if not overrides.get("_no_image"):
        content.append({"type": "input_image", "image_url": SHAPES, "detail": "auto"})
    body = NeMoGymResponseCreateParamsNonStreaming.model_validate({"input": [{"role": "user", "content": content}]})
    response, _, info = await agent._run_image_tools_loop(body=body, row_metadata={}, initial_cookies={})
    out = [item if isinstance(item, dict) else item.model_dump() for item in response.output]
    return {
        "name": name, "settings": settings, "image": not overrides.get("_no_image"), "texts": texts,
        "model_calls": len(calls), "stop": calls[0]["stop"],
        "aux_reward": info["image_tools_aux_reward"], "call_count": info["image_tools_call_count"], "error_count": info["image_tools_error_count"],
        "output_paths": len(info["image_tools_output_paths"]), "generation_images": [len(g) for g in info["image_tools_generation_image_paths"]],
        "roles": [item["role"] for item in out],
        "replies": [shown(item["content"]) for item in out if item["role"] == "user"],
    }


async def main():
    with open(sys.argv[3], "w") as f:
        for case in CASES:
            f.write(json.dumps(await run(*case)) + "\n")


asyncio.run(main())
