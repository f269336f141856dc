"""Differential cases for Gymflow's code_gen runner: NeMo Gym's own LiveCodeBench harness grades small
programs chosen to probe its semantics (stdin mocking, output comparison, timeouts, call-based
comparison, failures) with a 1 s per-test limit; per-test results and metadata (without traceback and
timing) are recorded.

Usage: python code_gen.cases.py <NeMo Gym checkout at 07d6b0d> <out.jsonl>   (needs numpy)
"""
import sys, json, types
sys.path.insert(0, sys.argv[1] + '/resources_servers/code_gen')
# The harness imports ray and tqdm only for distribution and progress bars.
sys.modules['ray'] = types.SimpleNamespace(remote=lambda *a, **k: (lambda f: f))
sys.modules['tqdm'] = types.SimpleNamespace(tqdm=None)
sys.set_int_max_str_digits(50000)
from lcb_integration.compute_code_generation_metrics import check_correctness
S = lambda inputs, outputs: {'inputs': inputs, 'outputs': outputs, 'fn_name': None}
CASES = [
 ("n=int(input())\nprint(n*2)", S(["3\n", "5\n"], ["6\n", "10"])),
 ("import sys\ns=sys.stdin.readline()\nprint(len(s))", S(["abc\ndef\n"], ["4"])),
 ("from sys import *\ns=stdin.readline()\nprint(len(s))", S(["abc\ndef\n"], ["3"])),
 ("import sys\nprint(sum(map(int, sys.stdin.read().split())))", S(["1 2\n3\n"], ["6"])),
 ("import sys\nfor line in sys.stdin:\n    print(line.strip()[::-1])", S(["ab\ncd\n"], ["ba\ndc"])),
 ("import sys\nprint(len(sys.stdin.readlines()))", S(["a\nb\n"], ["3"])),
 ("import sys\nprint(sys.stdin.buffer.read().split()[0].decode())", S(["xy z\n"], ["xy"])),
 ("print(open(0).read().strip())", S(["hello\n"], ["hello"])),
 ("def main():\n    print(input())\nif __name__ == '__main__':\n    main()", S(["x\n"], ["x"])),
 ("print(1)\nexit()\nprint(2)", S([""], ["1"])),
 ("quit()", S([""], [""])),
 ("print(1/0)", S(["", ""], ["1", "1"])),
 ("print(input())\nprint(input())", S(["only\n"], ["only\nmore"])),
 ("print('1.0 2')", S([""], ["1 2.00"])),
 ("print('1.0 x')", S([""], ["1 x"])),
 ("print('a\\nb')", S([""], ["a"])),
 ("print('  a  \\n\\n b ')", S([""], ["a\n\nb"])),
 ("x = 5\ndef f():\n    global x\n    return x\nprint(f())", S([""], ["5"])),
 ("def broken(:\n  pass", S([""], [""])),
 ("import time\ntime.sleep(3)\nprint(1)", S(["", ""], ["1", "1"])),
 ("while True:\n    pass", S([""], [""])),
 ("import os\nos.system('echo hi')", S([""], [""])),
 ("import sys\nsys.stdout.write('ok\\n')", S([""], ["ok"])),
 ("print('NaN')", S([""], ["nan"])),
 ("print('sNaN')", S([""], ["sNaN 1"])),
 ("print('1e3')", S([""], ["1000"])),
 ("print('ünï')", S([""], ["ünï"])),
 ("n=int(input())\nprint(n)", S(["x\n"], ["1"])),
 ("def f(n):\n    return 1 if n == 0 else 1 + f(n-1)\nprint(f(20000))", S([""], ["20001"])),
 ("import sys\ndata=sys.stdin.read().split()\nprint(data[5])", S(["1 2"], ["3"])),
 ("print(help)", S([""], ["None"])),
 ("raise SystemExit(3)", S([""], [""])),
 ("class TimeoutException(Exception): pass\nraise TimeoutException()", S([""], [""])),
 ("import resource", S([""], [""])),
 ("print(*range(3))", S(["", "", ""], ["0 1 2", "0 1 2", "0 1 3"])),
]
C = lambda fn, inputs, outputs: {'inputs': inputs, 'outputs': outputs, 'fn_name': fn}
CASES += [
 ("class Solution:\n    def add(self, a, b):\n        return a + b", C('add', ["1\n2", "3\n4"], ["3", "7"])),
 ("class Solution:\n    def add(self, a, b):\n        return a - b", C('add', ["1\n2", "3\n4"], ["3", "7"])),
 ("def pair(a):\n    return (a, a)", C('pair', ["1"], ["[1, 1]"])),
 ("def half(a):\n    return a / 3", C('half', ["1"], ["0.33333"])),
 ("def half(a):\n    return a / 3", C('half', ["1"], ["0.3333333333"])),
 ("def s(a):\n    return str(a)", C('s', ["5"], ["5"])),
 ("def boom(a):\n    raise ValueError('x')", C('boom', ["1"], ["1"])),
 ("def slow(a):\n    while True: pass", C('slow', ["1", "2"], ["1", "2"])),
 ("def other(a):\n    return a", C('missing', ["1"], ["1"])),
 ("def f(a):\n    return a", C('f', ["not json"], ["1"])),
 ("class Solution:\n    def f(self, xs):\n        return sorted(xs)", C('f', ["[3, 1, 2]"], ["[1, 2, 3]"])),
 ("def f(x):\n    return {'a': [1, 2]}", C('f', ["0"], ['{"a": [1, 2]}'])),
 ("def f(x):\n    return float('nan')", C('f', ["0"], ['1'])),
 ("import sys\nsys.exit(0)", C('f', ["0"], ['1'])),
]
out = []
for code, tests in CASES:
    res, md = check_correctness({'input_output': json.dumps(tests)}, code, 1, debug=False)
    res = [bool(r) if type(r).__name__ == 'bool_' else r for r in res]
    if md:
        md = {k: v for k, v in md.items() if k not in ('traceback', 'execution time')}
    out.append({'code': code, 'tests': tests, 'result': res, 'metadata': md})
with open(sys.argv[2], 'w') as f:
    for o in out: f.write(json.dumps(o, ensure_ascii=False) + '\n')
