"""Writes NumPy's 256-box ziggurat tables for the standard normal (ki, wi, fi) as JSON for numpy_random.ts.

NumPy's tables are not the exact Marsaglia-Tsang values (they differ from a 50-digit computation in the last
digits), and Generator.standard_normal's output depends on every bit of them, so they are read out of an
installed NumPy's compiled generator: fi, wi and ki lie in that order, wi ending in R / 2**52.
The tables are NumPy's (BSD-3-Clause, Copyright (c) NumPy Developers).

Usage: python3 ziggurat_tables.py <numpy/random/_generator*.so> > ziggurat_tables.json
"""
import json
import struct
import sys

R = 3.6541528853610088  # the rightmost box's edge, the start of the tail

blob = open(sys.argv[1], "rb").read()
wi_last = blob.find(struct.pack("<d", R / 2**52))
if wi_last < 0:
    sys.exit("no ziggurat table in " + sys.argv[1])
wi_at = wi_last - 255 * 8
ki = list(struct.unpack("<256Q", blob[wi_last + 8 : wi_last + 8 + 2048]))
wi = list(struct.unpack("<256d", blob[wi_at : wi_at + 2048]))
fi = list(struct.unpack("<256d", blob[wi_at - 2048 : wi_at]))
if fi[0] != 1.0 or ki[1] != 0 or not all(0 < k < 2**52 for k in ki[2:]):
    sys.exit("the tables found do not have the ziggurat's shape")
print(json.dumps({"ki": ki, "wi": wi, "fi": fi}))
