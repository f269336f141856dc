# Reads back a W&B offline run file (run-*.wandb) for the tests: the file is a LevelDB-style log of
# records, each decoded with the wandb package's own protobuf schema. Prints what the run logged as JSON.
# Usage: python read_wandb_run.py <run-*.wandb>
import json
import struct
import sys

from wandb.proto import wandb_internal_pb2 as pb

BLOCK = 32768
HEADER = 7  # crc32c (4), length (2), type (1)
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4


def records(data: bytes):
    if data[:4] != b":W&B":
        raise SystemExit("not a W&B run file")
    pos, pending = 7, b""
    while pos + HEADER <= len(data):
        left = BLOCK - pos % BLOCK
        if left < HEADER:  # the block's tail is padding
            pos += left
            continue
        _crc, length, kind = struct.unpack("<IHB", data[pos : pos + HEADER])
        chunk = data[pos + HEADER : pos + HEADER + length]
        pos += HEADER + length
        if kind == 0 and length == 0:
            continue
        if kind == FULL:
            yield chunk
        elif kind == FIRST:
            pending = chunk
        elif kind == MIDDLE:
            pending += chunk
        elif kind == LAST:
            yield pending + chunk


def main() -> None:
    out = {"run": None, "config": {}, "history": {}, "summary": {}, "files": []}
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    for raw in records(data):
        r = pb.Record()
        r.ParseFromString(raw)
        kind = r.WhichOneof("record_type")
        if kind == "run":
            out["run"] = {"id": r.run.run_id, "project": r.run.project, "name": r.run.display_name}
            for item in r.run.config.update:
                out["config"][item.key] = json.loads(item.value_json)
        elif kind == "config":
            for item in r.config.update:
                out["config"][item.key] = json.loads(item.value_json)
        elif kind == "history":
            for item in r.history.item:
                key = item.key or "/".join(item.nested_key)
                out["history"][key] = json.loads(item.value_json)
        elif kind == "summary":
            for item in r.summary.update:
                key = item.key or "/".join(item.nested_key)
                out["summary"][key] = json.loads(item.value_json)
        elif kind == "files":
            out["files"] += [f.path for f in r.files.files]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
