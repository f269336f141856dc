"""Writes example.jsonl: four Gymflow-written questions (three with a drawn image) in the row shape NeMo Gym's
benchmarks/hle/prepare.py writes for hle/config_vision, materialized by NeMo Gym's own build_image_input with
HLE's prompt. HLE itself (cais/hle) is a gated Hugging Face dataset that NeMo Gym does not ship.

Usage: python make_example.py <NeMo Gym 0.7.0 tree> <out.jsonl>   (the venv of scripts/setup-nemo-gym.sh; images drawn
       with pure-Python PNG encoding, no Pillow)
"""
import sys, json, zlib, struct, base64
from nemo_gym.prompt import load_prompt_config
from nemo_gym.vision_input import build_image_input

def png(width, height, pixel):
    rows = b"".join(b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))
    chunk = lambda tag, data: struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
    return "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")).decode()

def circles(x, y):
    for cx in (12, 32, 52):
        if (x - cx) ** 2 + (y - 16) ** 2 <= 36:
            return (220, 30, 30)
    return (255, 255, 255)
def split(x, y):
    return (30, 160, 60) if x < 40 else (40, 60, 200)
def bars(x, y):
    heights = (10, 30, 20)
    col = x // 16
    return (0, 0, 0) if col < 3 and x % 16 < 12 and 40 - y <= heights[col] else (250, 250, 250)

QUESTIONS = [
    ("gf-hle-v-1", "How many red circles are in the image?", "3", "exactMatch", png(64, 32, circles)),
    ("gf-hle-v-2", "What colour fills the left part of the image? Answer with one word.", "green", "exactMatch", png(64, 32, split)),
    ("gf-hle-v-3", "The image is a bar chart of three bars. Which bar (1, 2 or 3, counting from the left) is tallest?", "2", "exactMatch", png(48, 40, bars)),
    ("gf-hle-t-1", "What is the smallest prime number greater than 100?", "101", "exactMatch", ""),
]
config = load_prompt_config(sys.argv[1] + "/benchmarks/hle/prompts/default.yaml")
with open(sys.argv[2], "w") as f:
    for uuid, question, answer, kind, image in QUESTIONS:
        row = {"question": question, "expected_answer": answer, "answer_type": kind, "uuid": uuid, "has_image": bool(image),
               "responses_create_params": {"input": build_image_input(config, question, image)}}
        f.write(json.dumps(row) + "\n")
