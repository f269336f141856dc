"""Gymflow's headless runner for Harbor's Terminus-2 agent (PyPI `harbor`), run inside a rollout's sandbox.

Harbor drives Terminus-2 from its own trial runner against a container; here the sandbox already is the
task's machine, so this script gives the agent a local environment (commands run with bash in the
workspace), a tmux session of its own, and Harbor's LiteLLM client pointed at the gateway. It prints the
agent's trajectory (Harbor's ATIF JSON) as one line on stdout, for the adapter to read back.

    python terminus_2_driver.py --workspace DIR --logs DIR --model NAME --base-url URL PROMPT

The API key is read from OPENAI_API_KEY by LiteLLM, never from argv or a file.
"""

import argparse
import asyncio
import json
import os
import shutil
import signal
import sys
import traceback
import uuid
from pathlib import Path

from harbor.agents.terminus_2.terminus_2 import Terminus2
from harbor.agents.terminus_2.tmux_session import TmuxSession
from harbor.environments.base import ExecResult
from harbor.models.agent.context import AgentContext


class SandboxEnvironment:
    """The subset of Harbor's environment interface Terminus-2 and its tmux session use, on this machine.

    Harbor's environments run commands in a container as `user`; the sandbox has one user, so `user` is
    accepted and ignored.
    """

    def __init__(self, workspace: Path, command_timeout_sec: float) -> None:
        self.workspace = workspace
        self.command_timeout_sec = command_timeout_sec
        self.default_user = None

    async def exec(self, command, cwd=None, env=None, timeout_sec=None, user=None, **_ignored) -> ExecResult:
        process_env = dict(os.environ)
        # The agent's key is for the agent's model client, not for the commands the model types.
        process_env.pop("OPENAI_API_KEY", None)
        process_env.update({str(k): str(v) for k, v in (env or {}).items()})
        proc = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            command,
            cwd=str(cwd or self.workspace),
            env=process_env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        limit = self.command_timeout_sec if timeout_sec is None else float(timeout_sec)
        try:
            out, err = await asyncio.wait_for(proc.communicate(), timeout=limit)
        except (asyncio.TimeoutError, asyncio.CancelledError) as stopped:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, err = await proc.communicate()
            if isinstance(stopped, asyncio.CancelledError):
                raise
            return ExecResult(stdout=out.decode(errors="replace"), stderr=f"{err.decode(errors='replace')}\ntimed out after {limit:g} s".strip(), return_code=124)
        return ExecResult(stdout=out.decode(errors="replace"), stderr=err.decode(errors="replace"), return_code=proc.returncode or 0)

    async def upload_file(self, source_path, target_path) -> None:
        target = Path(target_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        if Path(source_path).resolve() != target.resolve():
            await asyncio.to_thread(shutil.copy2, source_path, target)

    async def download_file(self, source_path, target_path) -> None:
        await self.upload_file(source_path, target_path)


class SandboxTerminus2(Terminus2):
    """Terminus-2 with its tmux session's pane log in this run's folder (Harbor's default, /logs/agent, is a
    container path) and no terminal recording (asciinema is not installed, and nothing would read it)."""

    async def setup(self, environment) -> None:
        self._session = TmuxSession(
            session_name=f"terminus-2-{uuid.uuid4().hex[:12]}",
            environment=environment,
            logging_path=self.logs_dir / "terminus_2.pane",
            local_asciinema_recording_path=None,
            remote_asciinema_recording_path=None,
            pane_width=self.options.tmux_pane_width,
            pane_height=self.options.tmux_pane_height,
            extra_env=self._extra_env,
        )
        await self._session.start()


def parse_args(argv):
    parser = argparse.ArgumentParser(description="Run Harbor's Terminus-2 headless in this sandbox.")
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--logs", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--parser", choices=["json", "xml"], default="json")
    parser.add_argument("--max-turns", type=int, default=None)
    parser.add_argument("--command-timeout-sec", type=float, default=1800)
    parser.add_argument("prompt")
    return parser.parse_args(argv)


async def play(args) -> int:
    logs = Path(args.logs)
    logs.mkdir(parents=True, exist_ok=True)
    environment = SandboxEnvironment(Path(args.workspace), args.command_timeout_sec)
    agent = SandboxTerminus2(
        logs_dir=logs,
        # LiteLLM's `openai/` provider speaks Chat Completions to api_base: the rollout's gateway URL.
        model_name=f"openai/{args.model}",
        api_base=args.base_url,
        parser_name=args.parser,
        max_turns=args.max_turns,
        suppress_max_turns_warning=True,
        # Summarizing rewrites the conversation, so its calls would no longer form one growing
        # conversation (and could not rebuild into one training response): off, as its context is large.
        enable_summarize=False,
        record_terminal_session=False,
        # LiteLLM knows nothing of the gateway's model: without this it refuses to size the context.
        model_info={"max_input_tokens": 262144, "max_output_tokens": 32768, "input_cost_per_token": 0.0, "output_cost_per_token": 0.0},
    )
    context = AgentContext()
    failed = None
    try:
        await agent.setup(environment)
        await agent.run(args.prompt, environment, context)
    except Exception as error:  # reported below; the trajectory so far is still printed
        failed = error
        traceback.print_exc(file=sys.stderr)
    finally:
        session = getattr(agent, "_session", None)
        if session is not None:
            await environment.exec(f"tmux kill-session -t {session._session_name}", timeout_sec=30)
    trajectory_file = logs / "trajectory.json"
    trajectory = json.loads(trajectory_file.read_text()) if trajectory_file.exists() else {"steps": []}
    print(json.dumps({"type": "trajectory", "trajectory": trajectory, "n_episodes": context.metadata.get("n_episodes") if context.metadata else None, "error": repr(failed) if failed else None}))
    return 1 if failed else 0


def main() -> int:
    return asyncio.run(play(parse_args(sys.argv[1:])))


if __name__ == "__main__":
    sys.exit(main())
