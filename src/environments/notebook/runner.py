"""Runs notebook code for Gymflow's notebook environments, inside their jail, with a real Jupyter kernel.

Two modes:
  runner.py notebook PATH   executes every cell of the notebook at PATH in a fresh kernel and writes it back
                            in place, errors kept in the cells' outputs (what `jupyter nbconvert --to notebook
                            --execute --inplace --allow-errors` does), then replies {"cells": [...]}: the cells
                            as read back from the file.
  runner.py kernel          keeps one kernel alive and answers JSON lines on stdin, one reply line each:
                            {"op": "execute", "code": str, "timeout": seconds} -> {"outputs": [nbformat
                            outputs], "error": bool, "seconds": float} ("died": true when the code took the
                            kernel down: a new one is needed); {"op": "reset"} -> {"reset": true}.
                            The first line out is {"ready": true} once the kernel answers.

Replies go to the descriptor stdout had at start; the process's own stdout (which the kernel inherits) is
pointed at stderr, so nothing the model's code prints can be taken for a reply.
"""

import json
import os
import sys
import time
from queue import Empty

KERNEL_NAME = "python3"

_reply = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
sys.stdout = sys.stderr


def send(message):
    _reply.write(json.dumps(message) + "\n")
    _reply.flush()


def run_notebook(path):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    # The jail ends with the run, so the kernel need not be asked to shut down gracefully.
    client = NotebookClient(nb, kernel_name=KERNEL_NAME, allow_errors=True, shutdown_kernel="immediate", resources={"metadata": {"path": os.getcwd()}})
    client.execute()
    nbformat.write(nb, path)
    send({"cells": nbformat.read(path, as_version=4).cells})


def output_of(msg_type, content):
    """The nbformat output an IOPub message makes, or None (status and the rest make none)."""
    if msg_type == "stream":
        return {"output_type": "stream", "name": content.get("name", "stdout"), "text": content.get("text", "")}
    if msg_type == "execute_result":
        return {
            "output_type": "execute_result",
            "data": content.get("data", {}),
            "metadata": content.get("metadata", {}),
            "execution_count": content.get("execution_count"),
        }
    if msg_type == "display_data":
        return {"output_type": "display_data", "data": content.get("data", {}), "metadata": content.get("metadata", {})}
    if msg_type == "error":
        return {
            "output_type": "error",
            "ename": content.get("ename", ""),
            "evalue": content.get("evalue", ""),
            "traceback": content.get("traceback", []),
        }
    return None


def died_output():
    return {
        "output_type": "error",
        "ename": "DeadKernelError",
        "evalue": "Kernel died",
        "traceback": ["DeadKernelError: Kernel died while running the cell"],
    }


class Kernel:
    def __init__(self):
        self.manager = None
        self.client = None

    def start(self):
        from jupyter_client import KernelManager

        # The kernel's sockets go in the scratch folder, not the workspace the model lists.
        sockets = os.path.join(os.environ.get("TMPDIR", "/tmp"), "kernel-ipc")
        self.manager = KernelManager(kernel_name=KERNEL_NAME, transport="ipc", ip=sockets)
        self.manager.start_kernel(cwd=os.getcwd(), stdout=sys.stderr, stderr=sys.stderr)
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=120)

    def stop(self):
        if self.client is not None:
            self.client.stop_channels()
        if self.manager is not None:
            self.manager.shutdown_kernel(now=True)
        self.client = self.manager = None

    def execute(self, code, timeout):
        started = time.monotonic()
        deadline = started + timeout
        msg_id = self.client.execute(code)
        outputs, error = [], False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                # The code is still running: stopped, so the next cell does not queue behind it.
                self.manager.interrupt_kernel()
                self.drain(msg_id)
                return {
                    "outputs": [
                        {
                            "output_type": "error",
                            "ename": "TimeoutError",
                            "evalue": f"Code execution timed out after {timeout} seconds",
                            "traceback": [f"TimeoutError: Code execution timed out after {timeout} seconds"],
                        }
                    ],
                    "error": True,
                    "seconds": time.monotonic() - started,
                }
            try:
                msg = self.client.get_iopub_msg(timeout=min(left, 1.0))
            except Empty:
                if not self.manager.is_alive():
                    return {"outputs": [died_output()], "error": True, "seconds": time.monotonic() - started, "died": True}
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "status" and content.get("execution_state") == "idle":
                return {"outputs": outputs, "error": error, "seconds": time.monotonic() - started}
            output = output_of(kind, content)
            if output is not None:
                outputs.append(output)
                error = error or kind == "error"

    def drain(self, msg_id, grace=30.0):
        """Waits, bounded, for the interrupted execution to end, so its late outputs are not the next cell's."""
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            try:
                msg = self.client.get_iopub_msg(timeout=1.0)
            except Empty:
                continue
            if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status" and msg["content"].get("execution_state") == "idle":
                return


def serve():
    kernel = Kernel()
    kernel.start()
    send({"ready": True})
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            request = json.loads(line)
            if request["op"] == "execute":
                send(kernel.execute(request["code"], float(request["timeout"])))
            elif request["op"] == "reset":
                kernel.stop()
                kernel.start()
                send({"reset": True})
            else:
                send({"failed": f"unknown op {request['op']!r}"})
    finally:
        kernel.stop()


if __name__ == "__main__":
    if sys.argv[1:2] == ["notebook"]:
        run_notebook(sys.argv[2])
    elif sys.argv[1:2] == ["kernel"]:
        serve()
    else:
        sys.exit("usage: runner.py notebook PATH | runner.py kernel")
