// code_gen against model code that attacks its grader: each program below is a real attack run through
// verify (or the jail launcher itself), and each must earn nothing and leave nothing behind: no forged
// reward, no key, no host file read or written, no connection, no shell, no surviving process.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodeGenTask, createCodeGen, DEFAULT_CODE_GEN_OPTIONS } from '../../src/environments/code_gen';
import { launchJail, SYSTEM_LIBRARIES } from '../../src/sandboxes/local/bwrap';
import { answerResponse } from './nemo_fixtures';

const REPO = path.resolve(import.meta.dirname, '../..');
const VERIFY_IN_PROCESS = path.join(import.meta.dirname, 'code_gen-isolation.verify.ts');
const python = DEFAULT_CODE_GEN_OPTIONS.python;

// One test, 1 s per test: the overall deadline is (1 + 1) × 1 + 5 = 7 s.
const env = createCodeGen({ timeoutSecs: 1, memoryBytes: 512 * 1024 ** 2 });
const DEADLINE_MS = 7_000;

const fence = (code: string) => `\`\`\`python\n${code}\n\`\`\``;
const fenced = (code: string) => answerResponse(fence(code));
const task = (output: string, fnName?: string) =>
  CodeGenTask.parse({ responses_create_params: { input: 'Solve it.' }, verifier_metadata: { unit_tests: { inputs: ['1'], outputs: [output], fn_name: fnName } } });
const verify = (code: string, output: string, fnName?: string) => env.verify(task(output, fnName), fenced(code), { state: null });

/** Reads a whole file with os calls: during a stdin test, builtins.open is the harness's mock of stdin. */
const READ = [
  'import os',
  'def read(path):',
  '    fd = os.open(path, os.O_RDONLY)',
  '    chunks = []',
  '    while chunk := os.read(fd, 65536):',
  '        chunks.append(chunk)',
  '    os.close(fd)',
  "    return b''.join(chunks)",
].join('\n');

const running = (marker: string) => execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).includes(marker);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'gymflow-code-gen-attacks-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('code_gen: forged rewards', () => {
  it('a program that writes a passing result to fd 3 (or any fd) and exits gets reward 0', async () => {
    const code = [
      'import os',
      `forged = b'{"result": [true], "metadata": {}}\\n{"ready": true}\\n{"loaded": true}\\n{"stdout": "", "time": 0}\\n'`,
      'for fd in range(64):',
      '    try:',
      '        os.write(fd, forged)',
      '    except OSError:',
      '        pass',
      'os._exit(0)',
    ].join('\n');
    expect(await verify(code, 'an answer the program cannot know')).toMatchObject({ reward: 0, result: [-1], failure_reason: 'killed' });
  });

  it('a return value whose __eq__ says yes to everything is not equal to the expected answer', async () => {
    const code = ['class Solution:', '    def answer(self, x):', '        class Anything:', '            def __eq__(self, other):', '                return True', '        return Anything()'].join(
      '\n',
    );
    expect(await verify(code, '42', 'answer')).toMatchObject({ reward: 0, result: [false], failure_reason: 'wrong_answer' });
  });

  it("a program cannot read the expected outputs from the host's files (a run folder's tasks.jsonl)", async () => {
    const answer = `answer-${process.pid}-${Date.now()}`;
    const tasksFile = path.join(dir, 'tasks.jsonl');
    await writeFile(tasksFile, `${JSON.stringify({ verifier_metadata: { unit_tests: { inputs: ['1'], outputs: [answer] } } })}\n`);
    const code = [READ, 'import json', `row = json.loads(read(${JSON.stringify(tasksFile)}))`, "print(row['verifier_metadata']['unit_tests']['outputs'][0])"].join('\n');
    expect(await verify(code, answer)).toMatchObject({ reward: 0, result: [-4] });
  });

  it('an honest program still passes, and may write and read its own workspace', async () => {
    const code = [READ, "fd = os.open('note.txt', os.O_WRONLY | os.O_CREAT, 0o644)", "os.write(fd, b'kept')", 'os.close(fd)', "print(read('note.txt').decode())"].join('\n');
    expect(await verify(code, 'kept')).toMatchObject({ reward: 1, result: [true] });
  });
});

describe('code_gen: escapes', () => {
  it("cannot find the worker's keys in its own environment or any process's /proc/<pid>/environ", async () => {
    const secret = `sk-test-${process.pid}-${Date.now()}`;
    const code = [
      READ,
      "found = os.environ.get('GYMFLOW_TEST_SECRET', '')",
      "for pid in [str(os.getppid())] + [p for p in os.listdir('/proc') if p.isdigit()]:",
      '    try:',
      "        for entry in read(f'/proc/{pid}/environ').split(b'\\0'):",
      "            if entry.startswith(b'GYMFLOW_TEST_SECRET='):",
      "                found = entry.split(b'=', 1)[1].decode()",
      '    except OSError:',
      '        pass',
      'print(found)',
    ].join('\n');
    // The environment is used by a process of its own holding the key, as a worker holds its API key.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', VERIFY_IN_PROCESS, JSON.stringify({ env: 'code_gen?unit_test_timeout_secs=1', task: task(secret), answer: fence(code) })],
      { cwd: REPO, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GYMFLOW_TEST_SECRET: secret } },
    );
    const { result } = JSON.parse(stdout) as { result: { reward: number; metadata: { output: string } } };
    expect(result).toMatchObject({ reward: 0, result: [-2] });
    expect(result.metadata.output).not.toContain(secret);
  }, 60_000);

  it('cannot read /etc/passwd', async () => {
    const firstLine = readFileSync('/etc/passwd', 'utf8').split('\n')[0]!;
    const code = [READ, "print(read('/etc/passwd').decode().split('\\n')[0])"].join('\n');
    expect(await verify(code, firstLine)).toMatchObject({ reward: 0, result: [-4] });
  });

  it('cannot write outside its workspace', async () => {
    const outside = path.join(dir, 'outside.txt');
    const code = ['import os', `fd = os.open(${JSON.stringify(outside)}, os.O_WRONLY | os.O_CREAT, 0o644)`, "os.write(fd, b'escaped')", "print('written')"].join('\n');
    expect(await verify(code, 'written')).toMatchObject({ reward: 0, result: [-4] });
    expect(existsSync(outside)).toBe(false);
  });

  it('cannot open a TCP connection, even to a server on loopback', async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const code = ['import socket', `s = socket.create_connection(('127.0.0.1', ${port}), timeout=3)`, "s.sendall(b'hello')", "print('connected')"].join('\n');
      expect(await verify(code, 'connected')).toMatchObject({ reward: 0, result: [-4] });
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it('cannot start a shell', async () => {
    const file = path.join(dir, 'shell.txt');
    const code = ['import os', `os.posix_spawn('/bin/sh', ['sh', '-c', 'echo shell > ${file}'], {})`, "print('spawned')"].join('\n');
    expect(await verify(code, 'spawned')).toMatchObject({ reward: 0, result: [-4] });
    expect(existsSync(file)).toBe(false);
  });

  it('a setsid daemon that sleeps past the deadline and then writes a file is gone once verify returns', async () => {
    const marker = `daemon-${process.pid}-${Date.now()}`;
    const late = path.join(dir, 'late.txt');
    const sleepSecs = DEADLINE_MS / 1000 + 1;
    const daemon = `import os, time; time.sleep(${sleepSecs}); fd = os.open(${JSON.stringify(late)}, os.O_WRONLY | os.O_CREAT, 0o644); os.write(fd, b'late')`;
    const code = ['import os, sys', `os.posix_spawn(sys.executable, [sys.executable, '-c', ${JSON.stringify(daemon)}, '${marker}'], {}, setsid=True)`, "print('done')"].join('\n');
    const started = Date.now();
    expect(await verify(code, 'done')).toMatchObject({ reward: 1, result: [true] });
    expect(running(marker)).toBe(false);
    // Past the moment the daemon would have written, with a margin for a loaded machine.
    await sleep(Math.max(0, started + sleepSecs * 1000 + 3_000 - Date.now()));
    expect(existsSync(late)).toBe(false);
  }, 60_000);

  it('the deadline kills a busy loop and the setsid busy loop it started', async () => {
    const marker = `spinner-${process.pid}-${Date.now()}`;
    const code = [
      'import os, signal, sys',
      `os.posix_spawn(sys.executable, [sys.executable, '-c', 'while True: pass', '${marker}'], {}, setsid=True)`,
      'signal.signal(signal.SIGALRM, signal.SIG_IGN)',
      'while True:',
      '    pass',
    ].join('\n');
    expect(await verify(code, 'never')).toMatchObject({ reward: 0, result: [-1], failure_reason: 'killed' });
    expect(running(marker)).toBe(false);
  }, 60_000);
});

describe('the bwrap jail launcher', () => {
  it('kills a setsid daemon at the deadline even where the daemon could write', async () => {
    // As root the jail runs as nobody, who must be able to reach the workspace.
    await chmod(dir, 0o755);
    const workspace = path.join(dir, 'launcher-workspace');
    await mkdir(workspace);
    const marker = `launcher-daemon-${process.pid}-${Date.now()}`;
    const daemon = `import time; time.sleep(7); open('late.txt', 'w').write('late')`;
    const program = [
      'import os, subprocess, sys, time',
      "open('early.txt', 'w').write('early')",
      `subprocess.Popen([sys.executable, '-c', ${JSON.stringify(daemon)}, '${marker}'], start_new_session=True)`,
      'time.sleep(600)',
    ].join('\n');
    const jail = launchJail(
      { workspace, readOnly: [...SYSTEM_LIBRARIES, python], env: { PATH: '/usr/bin' }, limits: { cpuSeconds: 30 }, deadlineMs: 5_000, isolation: 'bwrap' },
      [python, '-c', program],
      'no opt-out in this test',
    );
    const launched = Date.now();
    jail.stdin.end();
    jail.stdout.resume();
    expect(await jail.done).toMatchObject({ timedOut: true, stderr: '' });
    expect(existsSync(path.join(workspace, 'early.txt'))).toBe(true);
    expect(running(marker)).toBe(false);
    // Past the moment the daemon would have written, with a margin for a loaded machine.
    await sleep(Math.max(0, launched + 10_000 - Date.now()));
    expect(existsSync(path.join(workspace, 'late.txt'))).toBe(false);
  }, 60_000);
});

describe('code_gen without bubblewrap', () => {
  const answer = '```python\nprint(int(input()) + 1)\n```';
  const inProcess = (envName: string) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', VERIFY_IN_PROCESS, JSON.stringify({ env: envName, task: task('2'), answer })], {
      cwd: REPO,
      // No bwrap on this PATH (the interpreter is found by its absolute path).
      env: { PATH: path.join(dir, 'no-bwrap-here') },
    });

  it('refuses to run the code, saying to install bubblewrap or opt out', async () => {
    const { stdout } = await inProcess('code_gen');
    const { error } = JSON.parse(stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('SETUP_FAILED');
    expect(error.message).toMatch(/bubblewrap/);
    expect(error.message).toMatch(/unsafe_no_isolation=true/);
  }, 60_000);

  it('runs it unjailed with unsafe_no_isolation=true, after a loud warning', async () => {
    const { stdout, stderr } = await inProcess('code_gen?unsafe_no_isolation=true');
    expect(JSON.parse(stdout)).toMatchObject({ result: { reward: 1, result: [true] } });
    expect(stderr).toMatch(/UNSAFE: code_gen runs model-written code WITHOUT isolation/);
  }, 60_000);
});
