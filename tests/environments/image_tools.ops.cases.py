"""Differential cases for Gymflow's image operations (src/environments/image_tools/operations.ts): runs NeMo Gym
0.7.0's own execute_image_tool (PIL, numpy, scipy) on two of its example images and on a drawn image of coloured
shapes, and records each tool's result, the output's size, per-channel mean and a sha256 of its RGB pixels.

Usage: python image_tools.ops.cases.py <NeMo Gym 0.7.0 tree> <example.jsonl> <shapes.png to write> <out.jsonl>
       (a Python with pillow, numpy and scipy; NeMo Gym's image_tools/base.py needs nothing else)
"""
import sys, json, base64, hashlib, tempfile
import numpy as np
from PIL import Image, ImageDraw
sys.path.insert(0, sys.argv[1] + "/resources_servers/image_tools")
from base import execute_image_tool

rows = [json.loads(l) for l in open(sys.argv[2])]
def first_image(row):
    for m in row["responses_create_params"]["input"]:
        if isinstance(m.get("content"), list):
            for part in m["content"]:
                if part.get("type") == "input_image":
                    return part["image_url"]
tmp = tempfile.mkdtemp()
photos = []
for i in (0, 2):
    path = f"{tmp}/photo{i}.jpg"
    open(path, "wb").write(base64.b64decode(first_image(rows[i]).split(",", 1)[1]))
    photos.append(path)

shapes = Image.new("RGB", (240, 160), (250, 250, 250))
d = ImageDraw.Draw(shapes)
d.rectangle([10, 10, 60, 50], fill=(60, 160, 220)); d.rectangle([100, 20, 130, 90], fill=(60, 160, 220))
d.ellipse([150, 60, 230, 150], fill=(220, 40, 40)); d.rectangle([20, 100, 24, 104], fill=(60, 160, 220))
d.rectangle([40, 120, 90, 150], fill=(30, 200, 90)); d.line([0, 80, 239, 80], fill=(10, 10, 10), width=1)
shapes.save(sys.argv[3])
images = [photos[0], sys.argv[3], photos[1]]

CALLS = [
    ("image_crop_tool", {"bbox_2d": [23, 162, 262, 635], "img_idx": 0, "label": "left"}),
    ("image_crop_tool", {"bbox_2d": [10, 10, 60, 50], "img_idx": 1}), ("image_crop_tool", {"bbox_2d": "[0, 0, 1000, 500]", "img_idx": 2}),
    ("image_crop_tool", {"bbox_2d": [500, 500, 500, 900], "img_idx": 0}), ("image_crop_tool", {"bbox_2d": [1, 2, 3], "img_idx": 0}),
    ("image_zoom_in_tool", {"bbox_2d": [312, 417, 812, 917], "factor": 3, "img_idx": 0}), ("image_zoom_in_tool", {"bbox_2d": [100, 100, 110, 105], "img_idx": 1}),
    ("image_zoom_in_tool", {"bbox_2d": [0, 0, 1000, 1000], "factor": 0.5, "img_idx": 2}), ("image_zoom_in_tool", {"bbox_2d": [0, 0, 10, 10], "factor": -1, "img_idx": 1}),
    ("image_rotate_tool", {"degrees": 90, "img_idx": 1}), ("image_rotate_tool", {"degrees": -90, "img_idx": 0}), ("image_rotate_tool", {"degrees": 180, "img_idx": 1}),
    ("image_rotate_tool", {"degrees": 30, "img_idx": 1}), ("image_rotate_tool", {"degrees": "x", "img_idx": 1}),
    ("image_flip_tool", {"axis": "horizontal", "img_idx": 0}), ("image_flip_tool", {"axis": "vertical", "img_idx": 1}), ("image_flip_tool", {"axis": "diagonal"}),
    ("image_diff_tool", {"img_idx_a": 1, "img_idx_b": 1}), ("image_diff_tool", {"img_idx_a": 0, "img_idx_b": 2}), ("image_diff_tool", {"img_idx_a": 1, "img_idx_b": 0}),
    ("image_diff_tool", {"img_idx_a": 0, "img_idx_b": 7}),
    ("image_overlay_tool", {"img_idx_a": 0, "img_idx_b": 2, "alpha": 0.3}), ("image_overlay_tool", {"img_idx_a": 2, "img_idx_b": 0}), ("image_overlay_tool", {"img_idx_a": 0, "img_idx_b": 2, "alpha": 1.5}),
    ("image_side_by_side_tool", {"img_indices": [0, 2]}), ("image_side_by_side_tool", {"img_indices": [1, 0, 2]}), ("image_side_by_side_tool", {"img_indices": [1]}),
    ("find_color_tool", {"color": [60, 160, 220], "tolerance": 10, "img_idx": 1}), ("find_color_tool", {"color": [220, 40, 40], "img_idx": 1}),
    ("find_color_tool", {"color": [60, 160, 220], "tolerance": 60, "img_idx": 0}), ("find_color_tool", {"img_idx": 1}), ("find_color_tool", {"color": [300, 0, 0], "img_idx": 1}),
    ("count_objects_tool", {"tolerance": 40, "min_size": 10, "img_idx": 1}), ("count_objects_tool", {"tolerance": 40, "min_size": 100, "img_idx": 0}),
    ("count_objects_tool", {"color": [60, 160, 220], "min_size": 5, "img_idx": 1}), ("count_objects_tool", {"min_size": 0, "img_idx": 1}),
    ("color_at_tool", {"point_2d": [395, 167], "img_idx": 0}), ("color_at_tool", {"point_2d": [0, 0], "img_idx": 1}), ("color_at_tool", {"point_2d": [1000, 1000], "img_idx": 1}),
    ("color_at_tool", {"point_2d": [150, 200], "img_idx": 1}), ("color_at_tool", {"point_2d": [1001, 5], "img_idx": 1}), ("mystery_tool", {}),
]

def describe(path):
    a = np.asarray(Image.open(path).convert("RGB"))
    return {"size": [a.shape[1], a.shape[0]], "mean": [round(float(a[..., c].mean()), 3) for c in range(3)], "sha256": hashlib.sha256(a.tobytes()).hexdigest()}

with open(sys.argv[4], "w") as f:
    for name, args in CALLS:
        try:
            out = execute_image_tool(name, args, images, tmp)
            case = {"name": name, "args": args, "result": out["result"], "output": describe(out["path"])}
        except ValueError as e:
            case = {"name": name, "args": args, "error": str(e)}
        f.write(json.dumps(case) + "\n")
print(len(CALLS), "cases")
