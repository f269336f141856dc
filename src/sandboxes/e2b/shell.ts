// What the e2b provider runs inside a sandbox, as POSIX sh lines (envd runs each through `bash -l -c`):
// the wrappers that give every command a process group to kill, detached commands' bookkeeping, and setup.

/** The provider's own state in the sandbox: pid files, detached commands' output and exit codes. */
export const STATE_DIR = '/tmp/.gymflow';
const RUN = `${STATE_DIR}/run`;
const CMD = `${STATE_DIR}/cmd`;

/** One argument for a shell line, single-quoted. */
export function quote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** A shell line that runs `script` with `$0` = args[0], `$1`… = the rest. */
export function shLine(script: string, args: readonly string[]): string {
  return ['sh', '-c', script, ...args].map(quote).join(' ');
}

/**
 * As root, once per sandbox: the state folders (usable by every user), the workdir and the folders mounts
 * go into, given to the sandbox's user. $0 = user, $1 = workdir, then mount parents.
 */
export const SETUP = `u=$0; w=$1; shift; mkdir -p ${RUN} ${CMD} "$w" "$@" && chmod 1777 ${STATE_DIR} ${RUN} ${CMD} && chown "$u" "$w"`;

/**
 * A foreground command in a session of its own (setsid), its pid recorded so a timeout or an abort can
 * kill its whole process group. $0 = exec id, then the argv.
 */
export const FOREGROUND = `p=${RUN}/$0.pid; setsid -w sh -c 'echo $$ > "$0"; exec "$@"' "$p" "$@"; s=$?; rm -f "$p"; exit $s`;

/** Kills a foreground command's group; waits a moment for a pid file not yet written. $0 = exec id. */
export const KILL_FOREGROUND = `p=${RUN}/$0.pid; k=0; while [ ! -s "$p" ] && [ $k -lt 20 ]; do sleep 0.05; k=$((k+1)); done; q=$(cat "$p" 2>/dev/null) && kill -9 -"$q" 2>/dev/null; exit 0`;

/**
 * Starts a detached command and returns at once: in a session of its own, started once per id (a second
 * start of the same id is a no-op, which is what makes a retried start idempotent), output to files, a
 * watchdog that kills the group past the deadline (so the limit holds with no client attached), the exit
 * status recorded last. $0 = id, $1 = deadline in seconds, then the argv.
 */
export const DETACHED = [
  `d=${CMD}/$0`,
  `mkdir "$d.once" 2>/dev/null || exit 0`,
  `setsid sh -c '`,
  `d=$0; t=$1; shift; echo $$ > "$d.pid"`,
  `( sleep "$t" & z=$!; trap "kill $z 2>/dev/null; exit 0" TERM; wait $z && { : > "$d.timedout"; kill -9 -$$; } ) &`,
  `w=$!; i=/dev/null; [ -f "$d.in" ] && i="$d.in"`,
  `"$@" > "$d.out" 2> "$d.err" < "$i"; echo $? > "$d.exit"; kill $w 2>/dev/null`,
  `' "$d" "$@" < /dev/null > /dev/null 2>&1 &`,
].join('\n');

/** Where a detached command's stdin goes before it starts. */
export const detachedStdinPath = (id: string): string => `${CMD}/${id}.in`;

/** Marks a detached command killed and kills its group (nothing for an id never started). $0 = id. */
export const KILL_DETACHED = [
  `d=${CMD}/$0; [ -d "$d.once" ] || exit 0; : > "$d.killed"`,
  `k=0; while [ ! -s "$d.pid" ] && [ $k -lt 20 ]; do sleep 0.05; k=$((k+1)); done`,
  `q=$(cat "$d.pid" 2>/dev/null) && kill -9 -"$q" 2>/dev/null; exit 0`,
].join('\n');

/**
 * A detached command's state after waiting up to $1 tenths of a second for it to end: the state line
 * first on stderr, then the tails ($2 bytes) of its stderr and (on stdout) its stdout. Exit 3: no such command.
 */
export const STATUS = [
  `d=${CMD}/$0; [ -d "$d.once" ] || exit 3`,
  `k=0; while [ ! -f "$d.exit" ] && [ ! -f "$d.timedout" ] && [ ! -f "$d.killed" ] && [ $k -lt $1 ]; do sleep 0.1; k=$((k+1)); done`,
  `if [ -f "$d.exit" ]; then s="exited $(cat "$d.exit")"; elif [ -f "$d.timedout" ]; then s=timedout; elif [ -f "$d.killed" ]; then s=killed; else s=running; fi`,
  `echo "$s" >&2; tail -c "$2" "$d.err" >&2 2>/dev/null; tail -c "$2" "$d.out" 2>/dev/null; exit 0`,
].join('\n');

/**
 * Unpacks tar $0 into folder $1 (made first) and removes it; with $3 = a user, gives the unpacked entry
 * $2 to them (a writable mount unpacked as root).
 */
export const UNTAR = [`mkdir -p "$1" && tar -xf "$0" -C "$1" --no-same-owner; s=$?; rm -f "$0"; [ $s -eq 0 ] || exit $s`, `if [ -n "$3" ]; then chown -R "$3" "$1/$2"; fi`].join('\n');

/** Packs $1 (a name inside folder $0) into tar $2. */
export const TAR = `tar -cf "$2" -C "$0" "$1"`;
