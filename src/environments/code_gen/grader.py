"""Grades one program against its unit tests with the semantics of NeMo Gym's code_gen server (the
LiveCodeBench harness): per-test results True/False/-2/-3/-4 and a metadata dict.

Runs outside the jail and holds the expected outputs; the program runs in executor.py, inside it, and
only reports what it did per test. Protocol: the job {code, inputs, outputs, fn_name, timeout,
memory_bytes} is the first line on stdin, the executor's replies the following ones; requests to the
executor go to stdout; on fd 3, a line {"started": true} once the executor is ready, then one line
{"result": [...], "metadata": {...}}. No result line: the program ended or broke its executor.
"""

import json
import sys
from decimal import Decimal

# The longest reply taken from the executor (one test's output); a longer one ends the grading.
MAX_REPLY = 64 * 1024 ** 2


class ExecutorGone(Exception):
    """The executor ended, or sent something that is not a reply: graded like the deadline."""


class Executor:
    def __init__(self, replies, requests):
        self.replies = replies
        self.requests = requests

    def send(self, message):
        try:
            self.requests.write(json.dumps(message).encode("utf-8") + b"\n")
            self.requests.flush()
        except (BrokenPipeError, OSError) as e:
            raise ExecutorGone from e

    def receive(self):
        line = self.replies.readline(MAX_REPLY)
        if not line.endswith(b"\n"):
            raise ExecutorGone
        try:
            reply = json.loads(line)
        except Exception as e:
            raise ExecutorGone from e
        if not isinstance(reply, dict):
            raise ExecutorGone
        return reply

    def ask(self, message):
        self.send(message)
        return self.receive()


class Opaque:
    """A return value of a type the executor does not report: equal to nothing, convertible to nothing."""


def decode(value):
    """The executor's tagged JSON back to Python data; anything malformed ends the grading."""
    if not isinstance(value, dict):
        if isinstance(value, list):
            raise ExecutorGone
        return value
    if len(value) != 1:
        raise ExecutorGone
    (kind, payload), = value.items()
    try:
        if kind == "opaque":
            return Opaque()
        if kind == "bytes":
            return payload.encode("latin-1")
        if kind == "dict":
            return {decode(k): decode(v) for k, v in payload}
        items = [decode(item) for item in payload]
        return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[kind](items)
    except ExecutorGone:
        raise
    except Exception as e:
        raise ExecutorGone from e


def shorten(value, length=300):
    text = value if isinstance(value, str) else str(value)
    if len(text) <= length:
        return text
    return text[: length // 2] + "...(truncated) ..." + text[-length // 2 :]


def _failure(error, code, message, test_input, expected, trace):
    if code == -3:
        return {"error": error, "error_code": -3, "error_message": message,
                "inputs": shorten(test_input), "expected": shorten(expected)}
    return {"error": error, "error_code": -4, "error_message": message,
            "inputs": shorten(test_input), "expected": shorten(expected), "traceback": trace}


def _exception_result(reply, test_input, expected):
    error, trace = str(reply["error"]), str(reply.get("traceback", ""))
    if "timeoutexception" in error.lower():
        return -3, _failure(error, -3, "Time Limit Exceeded", test_input, expected, trace)
    return -4, _failure(error, -4, "Runtime Error", test_input, expected, trace)


def _load(executor):
    """Whether the program has its entry point (a load error raises, as in NeMo Gym)."""
    reply = executor.receive()
    if "load_error" in reply:
        raise RuntimeError(str(reply["load_error"]))
    return reply.get("loaded") is True


def _close(a, b):
    """numpy.allclose for two floats with its default tolerances."""
    return a == b or abs(a - b) <= 1e-08 + 1e-05 * abs(b)


def _time(reply):
    elapsed = reply.get("time")
    return float(elapsed) if isinstance(elapsed, (int, float)) else 0.0


def grade_call(executor, job):
    if not _load(executor):
        return None
    args_per_test = [[json.loads(line) for line in text.split("\n")] for text in job["inputs"]]
    expected_per_test = [json.loads(text) for text in job["outputs"]]
    results, elapsed = [], 0.0
    for args, expected in zip(args_per_test, expected_per_test):
        reply = executor.ask({"args": args})
        if "error" in reply:
            code_, metadata = _exception_result(reply, args, expected)
            results.append(code_)
            return results, metadata
        if "value" not in reply:
            raise ExecutorGone
        elapsed += _time(reply)
        prediction = decode(reply["value"])
        ok = prediction == expected
        try:
            ok = ok or json.dumps(prediction) == json.dumps(expected)
        except Exception:
            pass
        try:
            ok = ok or _close(float(prediction), float(expected))
        except Exception:
            pass
        results.append(bool(ok))
        if not ok:
            return results, {"output": shorten(str(reply.get("shown", ""))), "inputs": shorten(args),
                             "expected": shorten(expected), "error_code": -2, "error_message": "Wrong Answer"}
    return results, {"execution time": elapsed}


def _lines(text):
    return [line.strip() for line in text.strip().split("\n")]


def _decimals(line):
    try:
        return True, [Decimal(token) for token in line.split()]
    except Exception:
        return False, []


def grade_stdio(executor, job):
    if not _load(executor):
        return None
    results, elapsed = [], 0.0
    for test_input, expected in zip(job["inputs"], job["outputs"]):
        reply = executor.ask({"stdin": test_input})
        if "error" in reply:
            code_, metadata = _exception_result(reply, test_input, expected)
            results.append(code_)
            return results, metadata
        if not isinstance(reply.get("stdout"), str):
            raise ExecutorGone
        elapsed += _time(reply)
        output = reply["stdout"]
        got, want = _lines(output), _lines(expected)
        wrong = {"output": shorten(output), "inputs": shorten(test_input), "expected": shorten(expected),
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


def grade(executor, job):
    try:
        if job.get("fn_name") is None:
            graded = grade_stdio(executor, job)
        else:
            graded = grade_call(executor, job)
        results, metadata = graded  # NeMo Gym unpacks here too: a missing entry point fails the same way.
        return results, metadata
    except ExecutorGone:
        raise
    except Exception as e:
        return [-4], {"error_code": -4, "error_message": f"Error during testing: {e}"}


def main():
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(50000)
    # Deeply nested return values are decoded and compared recursively.
    sys.setrecursionlimit(10000)
    report = open(3, "w", encoding="utf-8")
    replies = sys.stdin.buffer
    job = json.loads(replies.readline())
    executor = Executor(replies, sys.stdout.buffer)
    try:
        ready = executor.ask({"code": job["code"], "fn_name": job.get("fn_name"), "timeout": int(job["timeout"]),
                              "memory_bytes": int(job["memory_bytes"])})
        if ready.get("ready") is not True:
            return
        print(json.dumps({"started": True}), file=report, flush=True)
        results, metadata = grade(executor, job)
    except ExecutorGone:
        return
    print(json.dumps({"result": results, "metadata": metadata}, default=str), file=report, flush=True)


if __name__ == "__main__":
    main()
