"""Reference draws for Gymflow's numpy_random.ts from NumPy's own Generator: for each seed the first raw 64-bit
outputs and normals in the clear, and the SHA-256 of a long stream of standard normals as little-endian float64
(long enough to pass through the ziggurat's tail and wedge branches many times).

Usage: python numpy_random.cases.py <out.json>   (NumPy 2.x; this file: 200000 normals per seed)
"""
import hashlib, json, struct, sys
import numpy as np

SEEDS = [0, 1, 7001, 2**32 + 5, 14230321816501637302, 2**128 - 1]
out = []
for seed in SEEDS:
    g = np.random.default_rng(seed)
    raw = [str(int(g.bit_generator.random_raw())) for _ in range(4)]
    head = [float(g.standard_normal()) for _ in range(16)]
    loc_scale = [float(g.normal(0.5, 0.04)) for _ in range(4)]
    stream = g.standard_normal(200000)
    tail = int(np.sum(np.abs(stream) > 3.6541528853610088))
    out.append({"seed": str(seed), "raw": raw, "normals": head, "normal_0.5_0.04": loc_scale,
                "stream_sha256": hashlib.sha256(struct.pack("<200000d", *stream)).hexdigest(), "tail_draws": tail})
json.dump(out, open(sys.argv[1], "w"), indent=1)
