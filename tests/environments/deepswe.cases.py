"""Differential cases for Gymflow's deepswe: what NeMo Gym 0.7.0's deepswe server answers.
  store   NeMo Gym's DeepSWETaskStore over one of the example task folders, changed as each case says: loaded,
          or refused (the exception).
  verify  DeepSWEResourcesServer.verify against a FAKE pair of sandboxes (they stand for the containers, which
          cannot run here): the agent's answers the collect hook and holds model.patch, the verifier's answers
          test.sh and holds the reward.json / ctrf.json each case gives. What it uploads, and the response.

Usage: python deepswe.cases.py <NeMo Gym 0.7.0 tree> <the example tasks folder> <out.jsonl>   (the venv of scripts/setup-nemo-gym.sh)
"""
import asyncio, base64, json, shutil, sys, tempfile
from pathlib import Path
from types import SimpleNamespace

OUT = Path(sys.argv[3]).resolve()
sys.path.insert(0, str(Path(sys.argv[1]).resolve()))
TASKS = Path(sys.argv[2]).resolve()
from nemo_gym.server_utils import SESSION_ID_KEY
import resources_servers.deepswe.app as app
from resources_servers.deepswe.task_store import DeepSWETaskStore

cases = []
TASK = 'ledger-running-balance'

# -- the task store ---------------------------------------------------------------------------------------

TOML = (TASKS / TASK / 'task.toml').read_text()
STORE = [
    ('as shipped', lambda d: None),
    ('schema_version 1.2', lambda d: sub(d, 'schema_version = "1.3"', 'schema_version = "1.2"')),
    ('shared verifier environment', lambda d: sub(d, 'environment_mode = "separate"', 'environment_mode = "shared"')),
    ('no verifier environment mode', lambda d: sub(d, 'environment_mode = "separate"\n', '')),
    ('agent with network', lambda d: sub(d, '[agent]\nnetwork_mode = "no-network"', '[agent]\nnetwork_mode = "public"')),
    ('unknown network mode', lambda d: sub(d, '[agent]\nnetwork_mode = "no-network"', '[agent]\nnetwork_mode = "sometimes"')),
    ('short base commit', lambda d: sub(d, 'base_commit_hash = "', 'base_commit_hash = "abc"\nx_old = "')),
    ('upper-case base commit', lambda d: sub(d, 'base_commit_hash = "d5ed5cf', 'base_commit_hash = "D5ED5CF')),
    ('no language', lambda d: sub(d, 'language = "python"\n', '')),
    ('empty repository_url', lambda d: sub(d, 'repository_url = "https://example.invalid/gymflow/ledger"', 'repository_url = ""')),
    ('task id unlike its folder', lambda d: sub(d, f'task_id = "{TASK}"', 'task_id = "other-task"')),
    ('no task id', lambda d: sub(d, f'task_id = "{TASK}"\n', '')),
    ('a collect hook of its own', lambda d: sub(d, 'git diff --binary', 'git diff')),
    ('two collect hooks', lambda d: append(d, '\n[[verifier.collect]]\ncommand = "true"\n')),
    ('collect hook for another service', lambda d: sub(d, 'timeout_sec = 60.0\n', 'timeout_sec = 60.0\nservice = "db"\n', 1)),
    ('zero collect timeout', lambda d: sub(d, 'timeout_sec = 60.0', 'timeout_sec = 0.0')),
    ('zero verifier timeout', lambda d: sub(d, 'timeout_sec = 300.0', 'timeout_sec = 0.0')),
    ('no agent timeout', lambda d: sub(d, 'timeout_sec = 900.0\n', '')),
    ('no image', lambda d: sub(d, 'docker_image = ', 'x_image = ')),
    ('no agent cpus', lambda d: sub(d, '[environment]\ndocker_image', '[environment]\nx = 1\ndocker_image', 1) or sub(d, 'cpus = 1\nmemory_mb = 1024\nstorage_mb = 1024\n', 'memory_mb = 1024\nstorage_mb = 1024\n', 2)),
    ('zero verifier memory', lambda d: sub(d, 'memory_mb = 1024', 'memory_mb = 0', 1)),
    ('steps', lambda d: append(d, '\n[[steps]]\nname = "one"\n')),
    ('bad package name', lambda d: sub(d, f'name = "gymflow/{TASK}"', 'name = "no-slash"')),
    ('missing grader.py', lambda d: (d / 'tests/grader.py').unlink()),
    ('missing solution.patch', lambda d: (d / 'solution/solution.patch').unlink()),
    ('symlinked config.json', lambda d: ((d / 'tests/config.json').unlink(), (d / 'tests/config.json').symlink_to(d / 'tests/test.patch'))),
    ('not TOML', lambda d: (d / 'task.toml').write_text('[task\nname = 1')),
    ('an extra key', lambda d: append(d, '\n[extra]\nthing = 1\n')),
]


def sub(d, old, new, count=-1):
    text = (d / 'task.toml').read_text()
    assert old in text, old
    (d / 'task.toml').write_text(text.replace(old, new, count))


def append(d, text):
    (d / 'task.toml').write_text((d / 'task.toml').read_text() + text)


for name, change in STORE:
    root = Path(tempfile.mkdtemp())
    shutil.copytree(TASKS / TASK, root / TASK, symlinks=True)
    change(root / TASK)
    try:
        DeepSWETaskStore(root, expected_task_count=1)
        outcome = {'loaded': True}
    except Exception as e:
        outcome = {'loaded': False, 'error': f'{type(e).__name__}: {e}'}
    files = {str(p.relative_to(root / TASK)): base64.b64encode(p.read_bytes()).decode() for p in (root / TASK).rglob('*') if p.is_file() and not p.is_symlink()}
    links = {str(p.relative_to(root / TASK)): str(p.readlink().relative_to(root / TASK)) for p in (root / TASK).rglob('*') if p.is_symlink()}
    cases.append({'kind': 'store', 'name': name, 'files': files, 'links': links, **outcome})

# -- verify -----------------------------------------------------------------------------------------------

FULL = {'reward': 1.0, 'apply_failed': False, 'f2p_total': 3, 'f2p_passed': 3, 'p2p_total': 2, 'p2p_passed': 2, 'f2p': 1.0, 'p2p': 1.0, 'partial': 1.0}
PATCH = b'diff --git a/ledger/core.py b/ledger/core.py\n--- a/ledger/core.py\n+++ b/ledger/core.py\n@@ -1 +1 @@\n-a\n+b\n'
VERIFY = [
    ('resolved', {'reward_json': json.dumps(FULL)}),
    ('failing tests', {'reward_json': json.dumps({**FULL, 'reward': 0.0, 'f2p_passed': 2, 'f2p': 2 / 3, 'partial': 0.8})}),
    ('the patch did not apply', {'reward_json': json.dumps({**FULL, 'reward': 0, 'apply_failed': True})}),
    ('a string reward', {'reward_json': '{"reward": "1"}'}),
    ('a boolean reward', {'reward_json': '{"reward": true, "f2p_total": true}'}),
    ('no reward key', {'reward_json': '{"f2p_total": 3}'}),
    ('reward 0.5', {'reward_json': '{"reward": 0.5}'}),
    ('reward NaN', {'reward_json': '{"reward": NaN}'}),
    ('reward 1e0', {'reward_json': '{"reward": 1e0}'}),
    ('reward -0.0', {'reward_json': '{"reward": -0.0}'}),
    ('reward not a number', {'reward_json': '{"reward": "abc"}'}),
    ('reward null', {'reward_json': '{"reward": null}'}),
    ('reward a list', {'reward_json': '{"reward": [1]}'}),
    ('reward.json a list', {'reward_json': '[1]'}),
    ('reward.json a string', {'reward_json': '"x"'}),
    ('reward.json empty', {'reward_json': ''}),
    ('reward.json broken', {'reward_json': '{"reward": 1,'}),
    ('reward.json trailing data', {'reward_json': '{"reward": 1} x'}),
    ('no reward.json', {}),
    ('no ctrf.json', {'reward_json': json.dumps(FULL), 'no_ctrf': True}),
    ('counts as strings', {'reward_json': '{"reward": 1, "f2p_total": "3", "f2p": "0.5"}'}),
    ('a count with a fraction', {'reward_json': '{"reward": 1, "p2p_total": 3.9}'}),
    ('a count as a fraction string', {'reward_json': '{"reward": 1, "p2p_total": "3.5"}'}),
    ('a count null', {'reward_json': '{"reward": 1, "p2p_passed": null}'}),
    ('apply_failed a string', {'reward_json': '{"reward": 0, "apply_failed": "no"}'}),
    ('apply_failed zero', {'reward_json': '{"reward": 0, "apply_failed": 0}'}),
    ('test.sh exits 1', {'reward_json': json.dumps(FULL), 'exit_code': 1, 'stdout': 'out\n', 'stderr': 'err\n'}),
    ('test.sh times out', {'reward_json': json.dumps(FULL), 'timeout': True}),
    ('the sandbox fails running test.sh', {'exec_raises': True}),
    ('the collect hook fails', {'collect_exit': 128, 'collect_stderr': 'fatal: bad revision', 'collect_stdout': 'x'}),
    ('the collect hook times out', {'collect_timeout': True}),
    ('a patch that is not UTF-8', {'reward_json': json.dumps(FULL), 'model_patch': base64.b64encode(b'diff \xff\xfe\n').decode()}),
    ('an empty patch', {'reward_json': json.dumps({**FULL, 'reward': 0.0}), 'model_patch': ''}),
    ('golden patch', {'reward_json': json.dumps(FULL), 'golden': True}),
    ('patch left out of the response', {'reward_json': json.dumps(FULL), 'include_patch': False}),
]


class FakeAgent:
    """FAKE: the agent's container: the collect hook's exit, the patch it wrote."""
    def __init__(self, case):
        self.case = case

    async def exec(self, command, timeout_s=None, **_):
        if self.case.get('collect_timeout'):
            raise TimeoutError()
        return SimpleNamespace(return_code=self.case.get('collect_exit', 0), stdout=self.case.get('collect_stdout', ''), stderr=self.case.get('collect_stderr', ''), error_type=None)

    async def download(self, remote, local):
        Path(local).write_bytes(base64.b64decode(self.case['model_patch']) if 'model_patch' in self.case else PATCH)

    async def stop(self):
        pass


class FakeVerifier:
    """FAKE: the verifier's container: test.sh's outcome, and the files it left in /logs/verifier."""
    def __init__(self, case):
        self.case, self.uploads = case, {}

    async def exec(self, command, cwd=None, timeout_s=None, **_):
        if command.startswith('mkdir -p') or command.startswith('chmod'):
            return SimpleNamespace(return_code=0, stdout='', stderr='', error_type=None)
        if command == 'bash /tests/test.sh':
            if self.case.get('timeout'):
                raise TimeoutError()
            if self.case.get('exec_raises'):
                raise RuntimeError('sandbox gone')
            return SimpleNamespace(return_code=self.case.get('exit_code', 0), stdout=self.case.get('stdout', 'ran\n'), stderr=self.case.get('stderr', ''), error_type=None)
        if command.startswith('test -f '):
            name = command.split('/')[-1]
            present = {'reward.json': 'reward_json' in self.case, 'ctrf.json': not self.case.get('no_ctrf'), 'run.log': True}[name]
            return SimpleNamespace(return_code=0 if present else 1, stdout='', stderr='', error_type=None)
        raise AssertionError(command)

    async def upload(self, local, remote):
        self.uploads[str(remote)] = base64.b64encode(Path(local).read_bytes()).decode()

    async def download(self, remote, local):
        name = remote.split('/')[-1]
        Path(local).write_text(self.case['reward_json'] if name == 'reward.json' else '{}')

    async def stop(self):
        pass


RESPONSE = {'id': 'r', 'created_at': 0, 'model': 'm', 'object': 'response', 'output': [], 'parallel_tool_calls': False, 'tool_choice': 'auto', 'tools': []}
ROW = json.loads((TASKS.parent / 'example.jsonl').read_text().splitlines()[0])
logs = tempfile.mkdtemp()
for name, case in VERIFY:
    config = app.DeepSWEResourcesServerConfig(host='x', port=1, entrypoint='', name='deepswe', tasks_dir=TASKS, expected_task_count=2, sandbox_provider='sandbox',
                                              sandbox_config={}, is_verifying_golden_patch=case.get('golden', False), logs_dir=Path(logs), clear_verifier_logs=True,
                                              include_model_patch_in_response=case.get('include_patch', True))
    server = app.DeepSWEResourcesServer.model_construct(config=config)
    server._task_store = DeepSWETaskStore(TASKS, expected_task_count=2)
    verifier = FakeVerifier(case)

    async def create(self, task, *, phase, verifier=verifier):
        return verifier
    app.DeepSWEResourcesServer._create_sandbox = create
    task = server._task_store.get(TASK)
    server._agent_sessions = {'s': app.AgentSandboxSession(task_id=TASK, image=ROW['image'], sandbox=FakeAgent(case), sandbox_handle='agent-1', sandbox_descriptor={})}
    body = app.DeepSWEVerifyRequest.model_validate({**ROW, 'response': RESPONSE})
    out = asyncio.run(server.verify(SimpleNamespace(session={SESSION_ID_KEY: 's'}), body)).model_dump()
    verdict = {k: out.get(k) for k in ('evaluation_completed', 'reward', 'apply_failed', 'verifier_exit_code', 'verifier_error', 'test_output', 'f2p_total', 'f2p_passed',
                                       'p2p_total', 'p2p_passed', 'f2p', 'p2p', 'partial', 'model_patch', 'model_patch_sha256', 'model_patch_bytes', 'log_dir', 'task_id')}
    for k in ('reward', 'f2p', 'p2p', 'partial'):
        if verdict[k] != verdict[k]:
            verdict[k] = 'nan'
    cases.append({'kind': 'verify', 'name': name, 'case': case, 'verdict': verdict, 'uploads': verifier.uploads})

with open(OUT, 'w') as f:
    for c in cases:
        f.write(json.dumps(c, ensure_ascii=False) + '\n')
print(f"{len(cases)} cases: {sum(c['kind'] == 'store' for c in cases)} stores, {sum(c['kind'] == 'verify' for c in cases)} verifies", file=sys.stderr)
