// Runs regexes that a task row or a model supplies on a worker thread, under a deadline: a pattern that
// backtracks catastrophically fails one call with REGEX_TIMEOUT instead of pinning the process forever.
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { GymError } from '../errors';

/** How long one match call may run. Python has no limit; real patterns finish in well under a millisecond. */
export const REGEX_DEADLINE_MS = 2000;
/** How long a fresh worker may take to pick up its first call (it starts a Node isolate). */
const START_MS = 30_000;

// The worker's state word: starting until its isolate runs, then each call goes PENDING → DONE. Only
// DONE (and READY, once) wake the main thread, so a call costs one wake-up.
const STARTING = 0;
const READY = 1;
const PENDING = 2;
const DONE = 3;

// Plain JS, so the worker starts without the TypeScript loader. It keeps the last text and the compiled
// patterns, so repeated calls (findall's steps, a pattern over many rows) send only what changed.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const state = new Int32Array(workerData.state);
const replies = workerData.replies;
const compiled = new Map();
let text = '';
Atomics.store(state, 0, ${READY});
Atomics.notify(state, 0);
const pack = (m) => m && { v: [...m], i: m.index, g: m.groups && { ...m.groups }, d: m.indices && [...m.indices], dg: m.indices && m.indices.groups && { ...m.indices.groups } };
parentPort.on('message', (req) => {
  let reply;
  try {
    if (req.text !== undefined) text = req.text;
    const key = req.flags + '/' + req.source;
    let re = compiled.get(key);
    if (!re) {
      if (compiled.size >= 256) compiled.clear();
      re = new RegExp(req.source, req.flags);
      compiled.set(key, re);
    }
    re.lastIndex = req.lastIndex;
    if (req.op === 'exec') reply = { match: pack(re.exec(text)), lastIndex: re.lastIndex };
    else if (req.op === 'matchAll') reply = { matches: [...text.matchAll(re)].map(pack) };
    else reply = { parts: text.split(re) };
  } catch (e) {
    reply = { error: { name: e && e.name, message: String(e && e.message) } };
  }
  replies.postMessage(reply);
  Atomics.store(state, 0, ${DONE});
  Atomics.notify(state, 0);
});
`;

interface Packed {
  v: (string | undefined)[];
  i: number;
  g?: Record<string, string | undefined>;
  d?: ([number, number] | undefined)[];
  dg?: Record<string, [number, number] | undefined>;
}

type Reply = { match: Packed | null; lastIndex: number } | { matches: Packed[] } | { parts: string[] } | { error: { name?: string; message: string } };

interface Op {
  op: 'exec' | 'matchAll' | 'split';
  source: string;
  flags: string;
  lastIndex: number;
  text?: string;
}

class MatchWorker {
  private readonly worker: Worker;
  private readonly state = new Int32Array(new SharedArrayBuffer(4));
  private readonly replies: MessagePort;
  /** The text the worker holds, so an unchanged text is not copied again. */
  private heldText: string | undefined;
  stopped = false;

  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.replies = port1;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      execArgv: [],
      workerData: { state: this.state.buffer, replies: port2 },
      transferList: [port2],
    });
    // A worker only ever runs a call the main thread is waiting for; it must not keep the process alive.
    this.worker.unref();
    this.worker.on('error', () => {});
  }

  /** The reply, or null when the call is still running after `deadlineMs` (the worker is then unusable). */
  call(request: Op, text: string, deadlineMs: number): Reply | null {
    if (!this.waitWhile(STARTING, START_MS)) {
      this.stop();
      throw new GymError('INTERNAL', `the regex worker thread did not start within ${START_MS / 1000} s`);
    }
    if (this.heldText !== text) request.text = text;
    Atomics.store(this.state, 0, PENDING);
    this.worker.postMessage(request);
    this.heldText = text;
    if (!this.waitWhile(PENDING, deadlineMs)) return null;
    return receiveMessageOnPort(this.replies)!.message as Reply;
  }

  /** Blocks until the state leaves `value`; false if it has not by the deadline. */
  private waitWhile(value: number, ms: number): boolean {
    const until = performance.now() + ms;
    while (Atomics.load(this.state, 0) === value) {
      const left = until - performance.now();
      if (left <= 0) return false;
      Atomics.wait(this.state, 0, value, left);
    }
    return true;
  }

  /** Stops a runaway match: terminating the thread interrupts V8's regex engine mid-backtrack. */
  stop(): void {
    this.stopped = true;
    this.replies.close();
    void this.worker.terminate();
  }
}

let current: MatchWorker | undefined;

/** `shown` is the pattern as its author wrote it (before translation to JS), for the error message. */
function run(op: Op['op'], re: RegExp, text: string, shown: string): Reply {
  if (current?.stopped) current = undefined;
  current ??= new MatchWorker();
  const reply = current.call({ op, source: re.source, flags: re.flags, lastIndex: re.lastIndex }, text, REGEX_DEADLINE_MS);
  if (reply === null) {
    current.stop();
    throw new GymError(
      'REGEX_TIMEOUT',
      `the pattern ${JSON.stringify(shown)} was still matching a ${text.length}-character text after ${REGEX_DEADLINE_MS / 1000} s ` +
        '(catastrophic backtracking, e.g. a repeated group that itself repeats); rewrite the pattern',
    );
  }
  if ('error' in reply) {
    // What the same call would have thrown in-process (a RangeError for a regex stack overflow, say).
    const Kind = { TypeError, RangeError, SyntaxError }[reply.error.name as string] ?? Error;
    throw new Kind(reply.error.message);
  }
  return reply;
}

function unpack(p: Packed, text: string): RegExpExecArray {
  const m = Object.assign(p.v, { index: p.i, input: text, groups: p.g }) as RegExpExecArray;
  if (p.d) m.indices = Object.assign(p.d, { groups: p.dg }) as RegExpIndicesArray;
  return m;
}

/** `re.exec(text)` under the deadline, reading and advancing `re.lastIndex` as exec does. */
export function execWithDeadline(re: RegExp, text: string, shown = re.source): RegExpExecArray | null {
  const reply = run('exec', re, text, shown) as { match: Packed | null; lastIndex: number };
  re.lastIndex = reply.lastIndex;
  return reply.match && unpack(reply.match, text);
}

/** `[...text.matchAll(re)]` under the deadline (`re` must be global, as matchAll requires). */
export function matchAllWithDeadline(re: RegExp, text: string, shown = re.source): RegExpExecArray[] {
  return (run('matchAll', re, text, shown) as { matches: Packed[] }).matches.map((p) => unpack(p, text));
}

/** `text.split(re)` under the deadline. */
export function splitWithDeadline(re: RegExp, text: string, shown = re.source): string[] {
  return (run('split', re, text, shown) as { parts: string[] }).parts;
}
