"""Grades one program against its unit tests with the semantics of NeMo Gym's code_gen server (the
LiveCodeBench harness): per-test results True/False/-2/-3/-4 and a metadata dict.

Protocol: a JSON job {code, inputs, outputs, fn_name, timeout, memory_bytes} on stdin; on fd 3 a line
{"started": true} once limits are in place, then one line {"result": [...], "metadata": {...}}. The
caller kills the process group when its overall deadline passes. Not a security sandbox.
"""

import ast
import json
import os
import resource
import signal
import sys
import time
import traceback
from decimal import Decimal
from io import StringIO
from types import ModuleType
from unittest import mock

# Star imports first, then the plain module imports: the order decides which names win, so it must
# stay as NeMo Gym has it (`datetime` ends up the module, `open` the builtin).
_STAR = ["string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random",
         "statistics", "itertools", "functools", "operator", "io", "sys", "json", "builtins", "typing"]
_PLAIN = [m for m in _STAR if m not in ("builtins", "typing")]
PRELUDE = (
    "".join(f"from {m} import *\n" for m in _STAR)
    + "".join(f"import {m}\n" for m in _PLAIN)
    + "sys.setrecursionlimit(50000)\n"
)


class TimeoutException(Exception):
    """Its name matters: a failure counts as a timeout when its repr mentions "timeoutexception"."""


def _on_alarm(signum, frame):
    raise TimeoutException


def shorten(value, length=300):
    text = value if isinstance(value, str) else str(value)
    if len(text) <= length:
        return text
    return text[: length // 2] + "...(truncated) ..." + text[-length // 2 :]


def strip_main_guard(code):
    """A trailing `if __name__ == '__main__':` block runs unconditionally instead."""
    try:
        tree = ast.parse(code)
        last = tree.body[-1]
        if isinstance(last, ast.If) and ast.unparse(last.test).strip() == "__name__ == '__main__'":
            code = ast.unparse(tree.body[:-1]) + "\n" + ast.unparse(last.body)
    except Exception:
        pass
    return code


def wrap_in_function(code):
    """Imports stay at module level; every other statement becomes the body of wrapped_function()."""
    try:
        tree = ast.parse(code)
        imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        body = [s for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))]
        function = ast.FunctionDef(
            name="wrapped_function",
            args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=body,
            decorator_list=[],
            lineno=-1,
        )
        return PRELUDE + "\n" + ast.unparse(imports) + "\n" + ast.unparse(function)
    except Exception:
        return code


def load_module(code, timeout):
    signal.alarm(timeout)
    try:
        module = ModuleType("tmp_sol", "")
        exec(code, module.__dict__)
        # LeetCode-style problems put the entry point on a Solution class.
        return module.Solution() if "class Solution" in code else module
    finally:
        signal.alarm(0)


class _FakeBuffer:
    def __init__(self, text):
        self.data = text.encode("utf-8")

    def read(self, *args):
        return self.data

    def readline(self, *args):
        return self.data.split(b"\n")[0] + b"\n"


class _FakeStdin:
    def __init__(self, text):
        self.text = text
        self._io = StringIO(text)
        self.buffer = _FakeBuffer(text)

    def read(self, *args):
        return self.text

    def readline(self, *args):
        return self._io.readline(*args)

    def readlines(self, *args):
        return self.text.split("\n")

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._io)

    def __getattr__(self, name):
        return getattr(self._io, name)


def run_with_stdin(function, text):
    """Calls function() with the test input behind every way of reading stdin (and behind open()).

    The three method patches land on the process's real stdin object before sys.stdin is replaced,
    exactly as NeMo Gym's decorator stack does; code that kept a reference to the real stdin (for
    example through `from sys import *`) sees them.
    """
    if isinstance(text, list):
        text = "\n".join(text)
    lines = iter(text.split("\n"))
    with mock.patch("sys.stdin.read", lambda *a: text), \
            mock.patch("sys.stdin.readlines", lambda *a: text.split("\n")), \
            mock.patch("sys.stdin.readline", lambda *a: next(lines)), \
            mock.patch("sys.stdin", _FakeStdin(text)), \
            mock.patch("builtins.open", mock.mock_open(read_data=text)):
        try:
            return function()
        except SystemExit:
            pass


class _CaptureStdout:
    def __enter__(self):
        self._saved = sys.stdout
        self.buffer = StringIO()
        self.buffer.close = lambda *a: None
        sys.stdout = self.buffer
        return self

    def __exit__(self, *exc):
        self.text = self.buffer.getvalue()
        sys.stdout = self._saved


def _failure(e, code, message, test_input, expected):
    if code == -3:
        return {"error": repr(e), "error_code": -3, "error_message": message,
                "inputs": shorten(test_input), "expected": shorten(expected)}
    return {"error": repr(e), "error_code": -4, "error_message": message,
            "inputs": shorten(test_input), "expected": shorten(expected), "traceback": traceback.format_exc()}


def _exception_result(e, test_input, expected):
    if "timeoutexception" in repr(e).lower():
        return -3, _failure(e, -3, "Time Limit Exceeded", test_input, expected)
    return -4, _failure(e, -4, "Runtime Error", test_input, expected)


def _entry_point(namespace, name):
    try:
        return getattr(namespace, name)
    except Exception:
        return None


def _close(a, b):
    """numpy.allclose for two floats with its default tolerances."""
    return a == b or abs(a - b) <= 1e-08 + 1e-05 * abs(b)


def grade_call(code, inputs, outputs, fn_name, timeout):
    solution = load_module(PRELUDE + "\n\n" + code, timeout)
    method = _entry_point(solution, fn_name)
    if method is None:
        return None
    args_per_test = [[json.loads(line) for line in text.split("\n")] for text in inputs]
    expected_per_test = [json.loads(text) for text in outputs]
    results, elapsed = [], 0.0
    for args, expected in zip(args_per_test, expected_per_test):
        signal.alarm(timeout)
        try:
            start = time.time()
            prediction = method(*args)
            elapsed += time.time() - start
            signal.alarm(0)
            if isinstance(prediction, tuple):
                prediction = list(prediction)
            ok = prediction == expected
            try:
                ok = ok or json.dumps(prediction) == json.dumps(expected)
            except Exception:
                pass
            try:
                ok = ok or _close(float(prediction), float(expected))
            except Exception:
                pass
            results.append(ok if isinstance(ok, (bool, int)) else bool(ok))
            if not ok:
                return results, {"output": shorten(prediction), "inputs": shorten(args), "expected": shorten(expected),
                                 "error_code": -2, "error_message": "Wrong Answer"}
        except Exception as e:
            signal.alarm(0)
            code_, metadata = _exception_result(e, args, expected)
            results.append(code_)
            return results, metadata
        finally:
            signal.alarm(0)
    return results, {"execution time": elapsed}


def _lines(text):
    return [line.strip() for line in text.strip().split("\n")]


def _decimals(line):
    try:
        return True, [Decimal(token) for token in line.split()]
    except Exception:
        return False, []


def grade_stdio(code, inputs, outputs, timeout):
    module = load_module(wrap_in_function(strip_main_guard(code)), timeout)
    method = _entry_point(module, "wrapped_function")
    if method is None:
        return None
    results, elapsed = [], 0.0
    for test_input, expected in zip(inputs, outputs):
        signal.alarm(timeout)
        with _CaptureStdout() as captured:
            try:
                start = time.time()
                run_with_stdin(method, test_input)
                elapsed += time.time() - start
                signal.alarm(0)
            except Exception as e:
                signal.alarm(0)
                code_, metadata = _exception_result(e, test_input, expected)
                results.append(code_)
                return results, metadata
            finally:
                signal.alarm(0)
        got, want = _lines(captured.text), _lines(expected)
        wrong = {"output": shorten(captured.text), "inputs": shorten(test_input), "expected": shorten(expected),
                 "error_code": -2}
        if len(got) != len(want):
            results.append(-2)
            return results, {**wrong, "error_message": "Wrong answer: mismatched output length"}
        for index, (got_line, want_line) in enumerate(zip(got, want)):
            if got_line == want_line:
                continue
            message = f"Wrong answer at output_line_idx={index!r}: {shorten(got_line)} != {shorten(want_line)}"
            ok_got, got_numbers = _decimals(got_line)
            ok_want, want_numbers = _decimals(want_line)
            if ok_got and ok_want and got_numbers == want_numbers:
                continue
            results.append(-2)
            return results, {**wrong, "error_message": message}
        results.append(True)
    return results, {"execution time": elapsed}


def grade(job):
    timeout = int(job["timeout"])
    try:
        if job.get("fn_name") is None:
            graded = grade_stdio(job["code"], job["inputs"], job["outputs"], timeout)
        else:
            graded = grade_call(job["code"], job["inputs"], job["outputs"], job["fn_name"], timeout)
        results, metadata = graded  # NeMo Gym unpacks here too: a missing entry point fails the same way.
        return results, metadata
    except Exception as e:
        return [-4], {"error_code": -4, "error_message": f"Error during testing: {e}"}
    finally:
        signal.alarm(0)


def limit_resources(memory_bytes):
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # Deep recursion is allowed (recursion limit 50000), so the C stack may grow up to the memory limit.
    _, stack_hard = resource.getrlimit(resource.RLIMIT_STACK)
    stack = memory_bytes if stack_hard == resource.RLIM_INFINITY else min(memory_bytes, stack_hard)
    try:
        resource.setrlimit(resource.RLIMIT_STACK, (stack, stack_hard))
    except ValueError:
        pass


def disable_destructive_calls():
    """NeMo Gym's reliability guard: the same functions become None, so programs that call them fail alike."""
    import builtins
    import shutil
    import subprocess

    os.environ["OMP_NUM_THREADS"] = "1"
    builtins.quit = None
    builtins.help = None
    for name in ["kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork", "forkpty",
                 "killpg", "rename", "renames", "truncate", "replace", "unlink", "fchmod", "fchown", "chmod", "chown",
                 "chroot", "lchflags", "lchmod", "lchown", "getcwd", "chdir"]:
        setattr(os, name, None)
    shutil.rmtree = shutil.move = shutil.chown = None
    subprocess.Popen = None
    for name in ["ipdb", "joblib", "resource", "psutil", "tkinter"]:
        sys.modules[name] = None


def main():
    job = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    report = os.fdopen(3, "w", encoding="utf-8")
    sys.stdin = open(os.devnull)
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(50000)
    limit_resources(int(job["memory_bytes"]))
    signal.signal(signal.SIGALRM, _on_alarm)
    report.write(json.dumps({"started": True}) + "\n")
    report.flush()
    disable_destructive_calls()
    results, metadata = grade(job)
    report.write(json.dumps({"result": results, "metadata": metadata}, default=str) + "\n")
    report.flush()


if __name__ == "__main__":
    main()
