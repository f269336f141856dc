"""Differential cases for Gymflow's osworld action protocol (src/environments/osworld/actions.ts, less-than.ts):
runs NeMo Gym 0.7.0's own parser (responses_api_agents/osworld_agent/action_parser.py: strip_thinking, parse_actions)
over hand-made replies and every model_text of its recorded OSWorld rollouts, and OSWorld's own '<' rewrite
(desktop_env/desktop_env.py _fix_pyautogui_less_than_bug, desktop-env 1.0.2 from PyPI) over pyautogui commands.
It also records what NeMo Gym's OSWorld resources server's /verify answers for a session with no live desktop.

Usage: python osworld.cases.py <NeMo Gym 0.7.0 site-packages> <desktop_env/desktop_env.py of desktop-env 1.0.2> <out.jsonl>
       (NeMo Gym's venv; desktop-env is only read: `pip download --no-deps desktop-env==1.0.2`, unzip, pass the file)
"""
import ast, asyncio, json, re, sys

sys.path.insert(0, sys.argv[1])
from responses_api_agents.osworld_agent.action_parser import parse_actions, strip_thinking

# OSWorld's rewrite, taken from its source without importing desktop_env (which needs gymnasium and a VM provider).
source = open(sys.argv[2], encoding="utf-8").read()
tree = ast.parse(source)
fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_fix_pyautogui_less_than_bug")
namespace = {"re": re}
exec(compile(ast.Module(body=[fn], type_ignores=[]), "desktop_env.py", "exec"), namespace)
fix_less_than = namespace["_fix_pyautogui_less_than_bug"]

REPLIES = [
    "",
    "DONE",
    "  FAIL \n",
    "WAIT",
    "done",
    "```DONE```",
    "```WAIT```",
    "```FAIL```",
    "```python\nDONE\n```",
    "```\nFAIL\n```",
    "I'll click.\n```python\nimport pyautogui\npyautogui.click(10, 20)\n```",
    "```python\npyautogui.click(1, 2)\nDONE\n```",
    "```python\npyautogui.click(1, 2)\n  FAIL  \n```",
    "```python\npyautogui.press('a')\n```\n```python\npyautogui.press('b')\n```\n```DONE```",
    "```python\n\n```\n```DONE```",
    "```python\n# only a comment; with a semicolon\n```",
    "no fences at all, just prose",
    "```python\npyautogui.click(1, 2)",
    "```python pyautogui.click(3, 4)```",
    "```py\tpyautogui.click(5, 6)```",
    "```pythonpyautogui.click(7, 8)```",
    "```bash\nls\n```",
    "<think>I should click ```python\npyautogui.click(0,0)\n```</think>```python\npyautogui.click(9, 9)\n```",
    "<THINKING>plan</Thinking>DONE",
    "<think>unclosed ```python\npyautogui.click(1,1)\n```",
    "<think>a</think><think>b</think>\nFAIL",
    "```python\npyautogui.typewrite('héllo wörld — 日本語')\n```",
    "```python\npyautogui.write('emoji 😀')\nDONE\n```",
    "Done.\n```python\nimport pyautogui\npyautogui.click(957, 805)\n```",
    "```python\n# Task complete\n```\nDONE",
    "\u3000DONE\u3000",
    "DONE\u200b",
    "```DONE``` and then ```python\npyautogui.click(1, 1)\n```",
    "``````",
    "```WAIT\n```",
    "```python\nx = 1\nWAIT\nDONE\n```",
    "```\u00e9t\u00e9 pyautogui.click(1, 1)```",
]

COMMANDS = [
    "pyautogui.press('<')",
    'pyautogui.press("<")',
    "pyautogui.press('\\u003c')",
    "pyautogui.typewrite('a<b')",
    "pyautogui.typewrite('<<')",
    "pyautogui.typewrite('no less than')",
    "pyautogui.typewrite(\"x < y\", interval=0.1)",
    "pyautogui.typewrite('<html>'); pyautogui.press('enter')",
    "pyautogui.typewrite('caf\u00e9 <b>')",
    "pyautogui.typewrite('\\u003cdiv')",
    "pyautogui.typewrite('tab\\there <')",
    "pyautogui.typewrite('bad \\x escape <')",
    "pyautogui.typewrite('a<b') and pyautogui.typewrite('c<d')",
    "pyautogui.click(1, 2)",
]

out = open(sys.argv[3], "w", encoding="utf-8")
for text in REPLIES:
    out.write(json.dumps({"kind": "parse", "text": text, "stripped": strip_thinking(text), "actions": parse_actions(text)}, ensure_ascii=False) + "\n")
for line in open(sys.argv[1] + "/resources_servers/osworld/data/example_rollouts.jsonl", encoding="utf-8"):
    for step in json.loads(line)["verifier_metadata"]["osworld_steps"]:
        text = step["model_text"]
        out.write(json.dumps({"kind": "parse", "text": text, "stripped": strip_thinking(text), "actions": parse_actions(text)}, ensure_ascii=False) + "\n")
for command in COMMANDS:
    out.write(json.dumps({"kind": "less_than", "command": command, "fixed": fix_less_than(command)}, ensure_ascii=False) + "\n")

# NeMo Gym's /verify for a session that has no live DesktopEnv (a stored rollout): its manager has nothing to
# evaluate, so it answers reward 0 with the sample masked — the score cannot be had again offline.
from unittest.mock import MagicMock
from resources_servers.osworld.app import OSWorldResourcesServer
from resources_servers.osworld.config import OSWorldResourcesServerConfig
from resources_servers.osworld.models import OSWorldVerifyRequest
from nemo_gym.server_utils import SESSION_ID_KEY

config = OSWorldResourcesServerConfig(host="127.0.0.1", port=0, entrypoint="app.py", name="osworld", discover_workers=False,
                                      workers=[{"name": "w", "remote_host": "h", "data_host": "h"}], state_dir="/tmp/osworld-cases-state", cache_dir="/tmp/osworld-cases-cache")
from nemo_gym.server_utils import ServerClient
server = OSWorldResourcesServer(config=config, server_client=MagicMock(spec=ServerClient))
rollout = json.loads(open(sys.argv[1] + "/resources_servers/osworld/data/example_rollouts.jsonl", encoding="utf-8").readline())
request = MagicMock()
request.session = {SESSION_ID_KEY: "stored-rollout"}
body = OSWorldVerifyRequest(responses_create_params=rollout["responses_create_params"], response=rollout["response"])
verdict = asyncio.run(server.verify(request, body))
out.write(json.dumps({"kind": "verify_without_desktop", "recorded_reward": rollout["reward"], "reward": verdict.reward, "osworld_score": verdict.osworld_score, "mask_sample": verdict.mask_sample}) + "\n")
