// Interactive terminals in a local sandbox. Node cannot open a pseudo-terminal, so a small Python relay
// runs inside the jail: it opens the pty, starts the command on it, and copies bytes both ways; the
// stdin pipe carries framed messages so keystrokes and window-size changes share one channel.
import { parseInput } from '../parse';
import type { PtySession } from '../provider';
import { PtySize } from '../schema';
import type { Jail } from './bwrap';

const FRAME_DATA = 0;
const FRAME_RESIZE = 1;

/**
 * The relay, run as `python3 -c RELAY cols rows argv...`. Frames on stdin: a kind byte, a 4-byte
 * big-endian length, the payload (data bytes, or rows and columns as two big-endian u16). It exits with
 * the command's status (128 + signal when a signal ended it). Writes to the pty are queued, so a command
 * that stops reading cannot stall the copying of its output.
 */
const RELAY = String.raw`
import os, sys, struct, select, fcntl, termios, errno
cols, rows, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
master, slave = os.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
pid = os.fork()
if pid == 0:
    os.close(master)
    os.login_tty(slave)
    try:
        os.execvp(argv[0], argv)
    except OSError as e:
        os.write(2, ('gym pty: cannot run %s: %s\r\n' % (argv[0], e.strerror)).encode())
        os._exit(127)
os.close(slave)
os.set_blocking(master, False)
inp, out = sys.stdin.fileno(), sys.stdout.fileno()
frames, pending, reading, status = b'', b'', True, None
def drain():
    while True:
        try:
            data = os.read(master, 65536)
        except OSError as e:
            return e.errno == errno.EAGAIN
        if not data:
            return False
        while data:
            data = data[os.write(out, data):]
while True:
    r, w, _ = select.select([master] + ([inp] if reading else []), [master] if pending else [], [], 0.1)
    if master in r and not drain():
        break
    if master in w:
        try:
            pending = pending[os.write(master, pending):]
        except OSError:
            pending = b''
    if inp in r:
        chunk = os.read(inp, 65536)
        if not chunk:
            reading = False
        frames += chunk
        while len(frames) >= 5:
            kind, size = frames[0], struct.unpack('>I', frames[1:5])[0]
            if len(frames) < 5 + size:
                break
            payload, frames = frames[5:5 + size], frames[5 + size:]
            if kind == 0:
                pending += payload
            elif kind == 1:
                fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack('HHHH', *struct.unpack('>HH', payload), 0, 0))
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = st
        drain()
        break
if status is None:
    status = os.waitpid(pid, 0)[1]
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
`;

/** The jailed argv that runs `command` on a pty of this size. */
export function ptyCommand(python: string, command: readonly string[], columns: number, rows: number): string[] {
  return [python, '-c', RELAY, String(columns), String(rows), ...command];
}

function frame(kind: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header[0] = kind;
  header.writeUInt32BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}

/** A session over a running relay jail: output is the pty's (stdout and stderr merged, as on a terminal). */
export function relaySession(jail: Jail): PtySession {
  const listeners: ((chunk: Buffer) => void)[] = [];
  const early: Buffer[] = [];
  jail.stdout.on('data', (chunk: Buffer) => {
    if (listeners.length === 0) early.push(chunk);
    for (const listener of listeners) listener(chunk);
  });
  // The relay's own complaints (no python3, a bad command) are the terminal's output too.
  jail.stderr.on('data', (chunk: Buffer) => {
    if (listeners.length === 0) early.push(chunk);
    for (const listener of listeners) listener(chunk);
  });
  const exited = jail.done.then((exit) => exit.exitCode);
  return {
    write(data) {
      if (!jail.stdin.writable) return;
      jail.stdin.write(frame(FRAME_DATA, typeof data === 'string' ? Buffer.from(data, 'utf8') : data));
    },
    onData(listener) {
      listeners.push(listener);
      for (const chunk of early.splice(0)) listener(chunk);
    },
    resize(columns, rows) {
      parseInput(PtySize, { columns, rows }, 'pty resize');
      const size = Buffer.alloc(4);
      size.writeUInt16BE(rows, 0);
      size.writeUInt16BE(columns, 2);
      if (jail.stdin.writable) jail.stdin.write(frame(FRAME_RESIZE, size));
    },
    exited,
    kill: () => jail.kill(),
  };
}
