// What the docker provider runs inside a container, as POSIX sh (every image has one): the container's
// idle main process, the wrappers that give each command a process group to kill, and their bookkeeping.

/** A volume of the provider's own: command pid files, detached commands' output, the expiry time. */
export const STATE_DIR = '/run/gymflow';
const CMD = `${STATE_DIR}/cmd`;
const READY = `${STATE_DIR}/ready`;
/** What `list` reads through the archive endpoint (no exec): `owner` (the process using the sandbox) and `expires` (epoch seconds). */
export const META_DIR = `${STATE_DIR}/meta`;

/**
 * The container's main process, as root under docker-init (which reaps orphans): makes the state folders,
 * gives the workdir to the sandbox's user ($0), records its owner ($3) and marks itself ready; then with
 * a lifetime it exits once the time in `expires` ($2, refreshed by keepalive) has passed (the container
 * stops and gc removes it), and without one it sleeps. Setting up here rather than in an exec saves one
 * exec per sandbox.
 */
export function initScript(withLifetime: boolean): string {
  const setup = [
    `mkdir -p ${CMD} ${META_DIR}; chmod 1777 ${STATE_DIR} ${CMD}; chown "$0" "$1"`,
    `if [ -n "$2" ]; then echo "$2" > ${META_DIR}/expires; fi; printf %s "$3" > ${META_DIR}/owner; : > ${READY}`,
  ].join('; ');
  if (!withLifetime) return `${setup}; exec sleep infinity`;
  return `${setup}; while [ "$(date +%s)" -lt "$(cat ${META_DIR}/expires)" ]; do sleep 2; done`;
}

/** Commands wait (a moment, once) for the main process to have set up. */
const AWAIT_READY = `while [ ! -f ${READY} ]; do sleep 0.01; done`;

/**
 * A foreground command: exec makes this shell a session (and process group) leader, so killing the group
 * ends the command and everything it started (unless a child made a session of its own).
 * $0 = command id, then the argv.
 */
export const FOREGROUND = `${AWAIT_READY}; echo $$ > ${CMD}/$0.pid; "$@"; s=$?; rm -f ${CMD}/$0.pid; exit $s`;

/**
 * A detached command: started once per id (a second start of the same id is a no-op), output to files,
 * a watchdog that kills the group past the deadline (so the limit holds with no client attached), the
 * exit status recorded last. $0 = id, $1 = deadline in seconds.
 */
export const DETACHED = [
  `d=${CMD}/$0; t=$1; shift`,
  AWAIT_READY,
  `mkdir "$d.once" 2>/dev/null || exit 0`,
  `echo $$ > "$d.pid"`,
  `( trap 'kill $s 2>/dev/null; exit 0' TERM; sleep "$t" & s=$!; wait $s && { : > "$d.timedout"; kill -9 -$$; } ) &`,
  `w=$!`,
  `i=/dev/null; if [ -f "${STATE_DIR}/$0.in" ]; then i="${STATE_DIR}/$0.in"; fi`,
  `"$@" > "$d.out" 2> "$d.err" < "$i"`,
  `echo $? > "$d.exit"`,
  `kill $w 2>/dev/null`,
].join('\n');

/** Kills a command's process group by its id (as root); waits a moment for a pid file not yet written. */
export const KILL = [
  AWAIT_READY,
  `d=${CMD}/$0; if [ "$1" = mark ]; then : > "$d.killed"; fi`,
  `k=0; while [ ! -s "$d.pid" ] && [ $k -lt 20 ]; do sleep 0.05; k=$((k+1)); done`,
  `p=$(cat "$d.pid" 2>/dev/null) && kill -9 -"$p" 2>/dev/null; exit 0`,
].join('\n');

/**
 * A detached command's state, after waiting up to $1 tenths of a second for it to end: the state line
 * first on stderr, then the tails ($2 bytes) of its stderr and (on stdout) its stdout. Exit 3: no such
 * command (after a few seconds' grace, since a command just started may not have written its pid yet).
 */
export const STATUS = [
  `d=${CMD}/$0`,
  `k=0; while [ ! -f "$d.pid" ] && [ $k -lt 40 ]; do sleep 0.05; k=$((k+1)); done`,
  `[ -f "$d.pid" ] || exit 3`,
  `k=0; while [ ! -f "$d.exit" ] && [ ! -f "$d.timedout" ] && [ ! -f "$d.killed" ] && [ $k -lt $1 ]; do sleep 0.1; k=$((k+1)); done`,
  `if [ -f "$d.exit" ]; then s="exited $(cat "$d.exit")"; elif [ -f "$d.timedout" ]; then s=timedout; elif [ -f "$d.killed" ]; then s=killed;`,
  `elif kill -0 "$(cat "$d.pid")" 2>/dev/null; then s=running; else s=vanished; fi`,
  `echo "$s" >&2; tail -c "$2" "$d.err" >&2 2>/dev/null; tail -c "$2" "$d.out" 2>/dev/null; exit 0`,
].join('\n');

/** One line per entry of folder $0: type letter (find's %y), size, name; NUL-separated. Exit 3: not a folder. */
export const LIST = `[ -d "$0" ] || exit 3; find "$0" -mindepth 1 -maxdepth 1 -printf '%y %s %f\\0'`;

/** Pushes the expiry to now + $0 seconds (never earlier than it is); nothing without a lifetime. */
export const KEEPALIVE = `e=${META_DIR}/expires; [ -f "$e" ] || exit 0; n=$(( $(date +%s) + $0 )); if [ "$n" -gt "$(cat "$e")" ]; then echo "$n" > "$e"; fi`;
