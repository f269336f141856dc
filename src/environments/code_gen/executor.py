"""Runs one model-written program, inside the jail, the way NeMo Gym's code_gen harness runs it, and
reports only what the program did per test (its output, return value or exception): never a verdict.

It never sees the expected outputs; grader.py, outside the jail, compares and decides. Protocol: JSON
lines, requests on stdin, replies on stdout. First {code, fn_name, timeout, memory_bytes} → {"ready"}
once limits are in place, then {"loaded"}, {"load_error": message} or {"no_entry_point"}; then per
test {"stdin": text} or {"args": [...]} → {"stdout", "time"}, {"value", "shown", "time"} or
{"error", "traceback"}. The program can write on the reply channel too, but only claims about its
own output, which is what it could print anyway.
"""

import ast
import json
import numbers
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

# Deeper return values are reported as opaque (never equal to anything).
_MAX_DEPTH = 500


class TimeoutException(Exception):
    """Its name matters: a failure counts as a timeout when its repr mentions "timeoutexception"."""


def _on_alarm(signum, frame):
    raise TimeoutException


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


def _entry_point(namespace, name):
    try:
        return getattr(namespace, name)
    except Exception:
        return None


def encode(value, depth=0):
    """A return value as tagged JSON data: what the grader compares, so no __eq__ of the program's runs there."""
    if depth > _MAX_DEPTH:
        return {"opaque": "(too deep)"}
    if value is None or isinstance(value, bool):
        return None if value is None else bool(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, (bytes, bytearray)):
        return {"bytes": bytes(value).decode("latin-1")}
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, (numbers.Real, Decimal)):
        return float(value)
    for kind in (list, tuple, set, frozenset):
        if isinstance(value, kind):
            return {kind.__name__: [encode(item, depth + 1) for item in value]}
    if isinstance(value, dict):
        return {"dict": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    return {"opaque": type(value).__name__}


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


class Channel:
    """The requests and replies, on copies of fds 0 and 1; the program's own fds 0 and 1 lead nowhere."""

    def __init__(self):
        # Descriptors the worker itself inherited without close-on-exec would reach the program too.
        for fd in [int(name) for name in os.listdir("/proc/self/fd")]:
            if fd > 2:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.requests = os.fdopen(os.dup(0), "rb")
        self.replies = os.fdopen(os.dup(1), "wb")
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)

    def receive(self):
        line = self.requests.readline()
        return json.loads(line) if line else None

    def send(self, message):
        self.replies.write(json.dumps(message, default=str).encode("utf-8") + b"\n")
        self.replies.flush()


def _error(e):
    return {"error": repr(e), "traceback": traceback.format_exc()}


def run_stdio_test(method, text, timeout):
    signal.alarm(timeout)
    with _CaptureStdout() as captured:
        try:
            start = time.time()
            run_with_stdin(method, text)
            elapsed = time.time() - start
            signal.alarm(0)
        except Exception as e:
            signal.alarm(0)
            return _error(e)
        finally:
            signal.alarm(0)
    return {"stdout": captured.text, "time": elapsed}


def run_call_test(method, args, timeout):
    signal.alarm(timeout)
    try:
        start = time.time()
        prediction = method(*args)
        elapsed = time.time() - start
        signal.alarm(0)
        if isinstance(prediction, tuple):
            prediction = list(prediction)
        return {"value": encode(prediction), "shown": str(prediction), "time": elapsed}
    except Exception as e:
        signal.alarm(0)
        return _error(e)
    finally:
        signal.alarm(0)


def main():
    channel = Channel()
    sys.stdin = open(os.devnull)
    job = channel.receive()
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(50000)
    limit_resources(int(job["memory_bytes"]))
    signal.signal(signal.SIGALRM, _on_alarm)
    channel.send({"ready": True})
    disable_destructive_calls()
    timeout, call_based = int(job["timeout"]), job.get("fn_name") is not None
    # Only Exception is caught, as in NeMo Gym: a SystemExit while loading ends this process, which
    # the grader counts like the deadline.
    try:
        if call_based:
            method = _entry_point(load_module(PRELUDE + "\n\n" + job["code"], timeout), job["fn_name"])
        else:
            method = _entry_point(load_module(wrap_in_function(strip_main_guard(job["code"])), timeout), "wrapped_function")
    except Exception as e:
        channel.send({"load_error": str(e)})
        return
    finally:
        signal.alarm(0)
    channel.send({"loaded": True} if method is not None else {"no_entry_point": True})
    while (request := channel.receive()) is not None:
        if call_based:
            channel.send(run_call_test(method, request["args"], timeout))
        else:
            channel.send(run_stdio_test(method, request["stdin"], timeout))


if __name__ == "__main__":
    main()
