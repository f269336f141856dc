"""Differential cases for Gymflow's image_tools: runs NeMo Gym 0.7.0's own PivotRL verify on hand-picked and
generated rollouts (XML and JSON call forms, several calls, zoom vs crop, every tool family, boxes as text or
degenerate, points and colours out of shape, rotations modulo 360, bools and number strings as indices,
expected actions from metadata or expected_answer, malformed markup, unicode, empty text) in all its modes,
and records its verdicts.

Usage: python image_tools.cases.py <seed> <generated count> <out.jsonl>   (this file: seed 13, 300 generated)
"""
import sys, json, random, asyncio
from resources_servers.image_tools.app import ImageToolsPivotResourcesServer, ImageToolsPivotResourcesServerConfig, ImageToolsPivotVerifyRequest

rng = random.Random(int(sys.argv[1]))
MODES = [{}, {"reward_mode": "continuous"}, {"unify_region_inspect_tools": False, "penalize_extra_tool_calls": False}, {"enable_target_match": False, "argument_threshold": 0.9}]
servers = [ImageToolsPivotResourcesServer.model_construct(config=ImageToolsPivotResourcesServerConfig(host="x", port=1, entrypoint="", **m)) for m in MODES]
FIELDS = ("reward", "model_output", "tool_name_match", "rollout_tool_name", "expected_tool_name", "target_match", "argument_score", "argument_detail", "tool_family", "num_rollout_tool_calls", "failure_reason")

def row(text, task, reasoning=None):
    output = []
    if reasoning is not None:
        output.append({"id": "rs", "type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": reasoning}]})
    output.append({"id": "m", "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]})
    return {"responses_create_params": {"input": [{"role": "user", "content": "Q?"}]}, **task,
            "response": {"id": "r", "created_at": 0, "model": "m", "object": "response", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [], "output": output}}

def verdict(i, r):
    out = asyncio.run(servers[i].verify(ImageToolsPivotVerifyRequest.model_validate(r)))
    v = {k: getattr(out, k) for k in FIELDS}
    v["failure_reason"] = v["failure_reason"].value
    return v

def xml(name, args, raw=False):
    params = "".join(f"<parameter={k}>\n{v if raw else json.dumps(v)}\n</parameter>\n" for k, v in args.items())
    return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"
def js(name, args, key="name"):
    return "<tool_call>" + json.dumps({key: name, "arguments": args}) + "</tool_call>"

E = {
    "zoom": {"name": "image_zoom_in_tool", "arguments": {"bbox_2d": [312, 417, 812, 917], "factor": 3, "img_idx": 0, "label": "zoom"}},
    "crop": {"name": "image_crop_tool", "arguments": {"bbox_2d": [23, 162, 262, 635], "img_idx": 1}},
    "degenerate": {"name": "image_crop_tool", "arguments": {"bbox_2d": [167, 1000, 1000, 1000], "img_idx": 0}},
    "point": {"name": "color_at_tool", "arguments": {"point_2d": [395, 167], "img_idx": 0}},
    "color": {"name": "find_color_tool", "arguments": {"color": [60, 160, 220], "tolerance": 60, "img_idx": 0}},
    "count": {"name": "count_objects_tool", "arguments": {"tolerance": 40, "min_size": 100, "img_idx": 0}},
    "diff": {"name": "image_diff_tool", "arguments": {"img_idx_a": 0, "img_idx_b": 2}},
    "overlay": {"name": "image_overlay_tool", "arguments": {"img_idx_a": 1, "img_idx_b": 0, "alpha": 0.3}},
    "side": {"name": "image_side_by_side_tool", "arguments": {"img_indices": [2, 0, 1], "labels": ["a", "b"]}},
    "rotate": {"name": "image_rotate_tool", "arguments": {"degrees": -10, "img_idx": 0}},
    "flip": {"name": "image_flip_tool", "arguments": {"axis": "horizontal", "img_idx": 0}},
    "strargs": {"name": "image_zoom_in_tool", "arguments": "{\"bbox_2d\": [0, 0, 500, 500], \"img_idx\": 0}"},
    "unknown": {"name": "mystery_tool", "arguments": {"x": 1}},
}
TASKS = {k: {"expected_action": v} for k, v in E.items()}
TASKS["meta"] = {"metadata": {"expected_action": E["point"], "source_id": "s"}}
TASKS["answer"] = {"expected_answer": json.dumps(E["flip"])}
TASKS["invalid"] = {"expected_action": {"arguments": {}}, "expected_answer": "not json"}
TASKS["empty"] = {}

HAND = [
    ("zoom", xml("image_zoom_in_tool", {"img_idx": 0, "bbox_2d": [340, 340, 700, 660], "factor": 3})),
    ("zoom", xml("image_crop_tool", {"img_idx": 0, "bbox_2d": [312, 417, 812, 917]})),
    ("zoom", xml("image_zoom_in_tool", {"bbox_2d": "312, 417, 812, 917 (approx)", "img_idx": "0"}, raw=True)),
    ("zoom", xml("image_zoom_in_tool", {"bbox_2d": [812, 917, 312, 417], "img_idx": True})),
    ("zoom", js("image_zoom_in_tool", {"bbox_2d": [312, 417, 812, 917], "img_idx": 1})),
    ("zoom", js("image_zoom_in_tool", {"bbox_2d": [312, 417, 812, 917]}, key="tool_name")),
    ("zoom", js("image_zoom_in_tool", "{\"bbox_2d\": [1,2,3,4]}")),
    ("zoom", xml("image_zoom_in_tool", {"bbox_2d": [312, 417, 812, 917]}) + "\n" + xml("image_crop_tool", {"bbox_2d": [0, 0, 1, 1]})),
    ("zoom", "<tool_call>{not json}</tool_call> then " + js("image_zoom_in_tool", {"bbox_2d": [300, 400, 800, 900]})),
    ("zoom", "I will zoom in on the centre."), ("zoom", ""), ("zoom", "<tool_call><function=image_zoom_in_tool></tool_call>"),
    ("degenerate", xml("image_crop_tool", {"bbox_2d": [167, 1000, 1000, 1000], "img_idx": 0})),
    ("degenerate", xml("image_crop_tool", {"bbox_2d": [167, 999, 1000, 1000], "img_idx": 0})),
    ("crop", xml("image_crop_tool", {"bbox_2d": [35, 140, 390, 490], "img_idx": 1})),
    ("crop", xml("image_crop_tool", {"bbox_2d": [23, 162, 262, 635, 1], "img_idx": 1})),
    ("point", xml("color_at_tool", {"point_2d": [405, 150], "img_idx": 0})),
    ("point", xml("color_at_tool", {"point_2d": "[395, 167]", "img_idx": 0})),
    ("point", xml("color_at_tool", {"point_2d": [1395, 2167]})), ("point", xml("color_at_tool", {"point_2d": "x"})),
    ("color", xml("find_color_tool", {"color": [42, 157, 211], "img_idx": 0, "tolerance": 70})),
    ("color", xml("find_color_tool", {"color": "blue", "img_idx": 0})), ("color", xml("find_color_tool", {"color": [60.9, "160", True]})),
    ("color", xml("count_objects_tool", {"color": [60, 160, 220]})),
    ("count", xml("count_objects_tool", {"tolerance": 10, "min_size": 5, "img_idx": 0})),
    ("count", xml("count_objects_tool", {"color": [1, 2, 3], "img_idx": 2})),
    ("diff", xml("image_diff_tool", {"img_idx_a": 0, "img_idx_b": 2})), ("diff", xml("image_diff_tool", {"img_idx_a": 2, "img_idx_b": 0})),
    ("overlay", xml("image_overlay_tool", {"img_idx_a": 1, "img_idx_b": 0, "alpha": 0.3000001})),
    ("overlay", xml("image_overlay_tool", {"img_idx_a": 1, "img_idx_b": 0, "alpha": 0.31})), ("overlay", xml("image_overlay_tool", {"img_idx_a": 1, "img_idx_b": 0})),
    ("side", xml("image_side_by_side_tool", {"img_indices": [0, 1, 2]})), ("side", xml("image_side_by_side_tool", {"img_indices": [0, 1]})),
    ("side", xml("image_side_by_side_tool", {"img_indices": "[1, 2, 0]"}, raw=True)), ("side", xml("image_side_by_side_tool", {"img_indices": 2})),
    ("rotate", xml("image_rotate_tool", {"degrees": 350, "img_idx": 0})), ("rotate", xml("image_rotate_tool", {"degrees": 710})),
    ("rotate", xml("image_rotate_tool", {"degrees": "-10.0"})), ("rotate", xml("image_rotate_tool", {"degrees": "left"})),
    ("rotate", xml("image_rotate_tool", {"degrees": 90})), ("rotate", xml("image_flip_tool", {"axis": "horizontal"})),
    ("flip", xml("image_flip_tool", {"axis": " Horizontal "})), ("flip", xml("image_flip_tool", {"axis": "vertical"})), ("flip", xml("image_flip_tool", {})),
    ("strargs", xml("image_zoom_in_tool", {"bbox_2d": [0, 0, 500, 500], "img_idx": 0})),
    ("unknown", xml("mystery_tool", {"x": 2})), ("unknown", xml(" mystery_tool", {})),
    ("meta", xml("color_at_tool", {"point_2d": [395, 167]})), ("answer", xml("image_flip_tool", {"axis": "horizontal"})),
    ("invalid", xml("image_flip_tool", {"axis": "horizontal"})), ("empty", xml("image_flip_tool", {})),
    ("zoom", xml("image_zoom_in_tool", {"bbox_2d": [312, 417, 812, 917], "label": "ünïcødé 区域 🔍"})),
    ("zoom", "<tool_call>\n<function=image_zoom_in_tool>\n<parameter=bbox_2d>\n[ 312 ,417,812 , 917 ]\n</parameter>\n</function>\n</tool_call>"),
    ("point", xml("color_at_tool", {"point_2d": [395, 167], "img_idx": "NaN"}, raw=True)),
]

def generated():
    key = rng.choice(list(E))
    e = E[key]
    name = e["name"] if rng.random() < 0.7 else rng.choice(list({v["name"] for v in E.values()}))
    args = dict(e["arguments"]) if isinstance(e["arguments"], dict) else {}
    for k, v in list(args.items()):
        if isinstance(v, list) and all(isinstance(x, (int, float)) for x in v):
            args[k] = [x + rng.choice([0, 0, rng.randint(-300, 300)]) for x in v]
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            args[k] = rng.choice([v, v + rng.choice([1, 360, -360, 0.5]), str(v)])
    if rng.random() < 0.2:
        args.pop(rng.choice(list(args)), None) if args else None
    call = (xml if rng.random() < 0.7 else js)(name, args)
    text = rng.choice(["", "Let me look.\n", "<think>hmm</think>"]) + call + rng.choice(["", "\n" + xml("image_flip_tool", {"axis": "vertical"})] if rng.random() < 0.2 else [""])
    return key, text

cases = []
for key, text in HAND + [generated() for _ in range(int(sys.argv[2]))]:
    for i, mode in enumerate(MODES):
        reasoning = "<tool_call>" + json.dumps({"name": "image_flip_tool", "arguments": {}}) + "</tool_call>" if rng.random() < 0.05 else None
        r = row(text, TASKS[key], reasoning)
        cases.append({"mode": mode, "task": TASKS[key], "text": text, "reasoning": reasoning, "verdict": verdict(i, r)})
with open(sys.argv[3], "w") as f:
    for c in cases:
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(cases), "cases")
