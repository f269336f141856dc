// What the opensandbox provider runs inside a sandbox through execd (which takes a shell line, not argv):
// quoting, stdin from an uploaded file, and the detached-command wrapper with its status and kill scripts.

/** The provider's own files in the sandbox: stdin files and detached commands' output and status. */
export const STATE_DIR = '/tmp/.gymflow';
export const STDIN_DIR = `${STATE_DIR}/in`;
const CMD = `${STATE_DIR}/cmd`;

export function shQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A shell line running `script` under sh with these positional parameters ($1…, $0 = `sh`). */
export function shLine(script: string, args: readonly string[]): string {
  return ['exec', 'sh', '-c', shQuote(script), 'sh', ...args.map(shQuote)].join(' ');
}

/**
 * A foreground command: stdin from the file $1 (removed once open) or none, then the argv. Not exec'd,
 * so a command killed by a signal still ends with the shell's 128+n status.
 */
export const FOREGROUND = `if [ -n "$1" ]; then exec < "$1"; rm -f "$1"; fi; shift; "$@"; exit $?`;

/**
 * A detached command, started once per id ($1): a second start of the same id finds its folder and does
 * nothing, which makes a retried start re-attach. $2 = deadline in seconds, $3 = stdin file or empty.
 * Output goes to files, a watchdog kills the whole process group past the deadline (so the limit holds
 * with no client attached), the exit status is written last, atomically.
 */
export const DETACHED = [
  `d=${CMD}/$1; t=$2; f=$3; i=\${3:-/dev/null}; shift 3`,
  `mkdir -p ${CMD} && mkdir "$d" 2>/dev/null || exit 0`,
  // The process group execd made for the command (read, not assumed: the shell need not lead it).
  `read -r _ _ _ _ g _ < /proc/$$/stat; echo "$g" > "$d/pid"`,
  `( trap 'kill $s 2>/dev/null; exit 0' TERM; sleep "$t" & s=$!; wait $s && { : > "$d/timedout"; kill -9 -"$g"; } ) &`,
  `w=$!`,
  `"$@" > "$d/out" 2> "$d/err" < "$i"`,
  `echo $? > "$d/exit.tmp" && mv "$d/exit.tmp" "$d/exit"`,
  `kill $w 2>/dev/null; [ -z "$f" ] || rm -f "$f"`,
].join('\n');

/**
 * A detached command's state after waiting up to $2 tenths of a second for it to end: the state line first
 * on stderr, then the tails ($3 bytes) of its stderr and (on stdout) its stdout. Exit 3: no such command
 * (after two seconds' grace: execd may not have started the wrapper of a command just started).
 */
export const STATUS = [
  `d=${CMD}/$1`,
  `k=0; while [ ! -f "$d/pid" ] && [ $k -lt 40 ]; do sleep 0.05; k=$((k+1)); done`,
  `[ -d "$d" ] || exit 3`,
  `k=0; while [ ! -f "$d/exit" ] && [ ! -f "$d/timedout" ] && [ ! -f "$d/killed" ] && [ $k -lt $2 ]; do sleep 0.1; k=$((k+1)); done`,
  `if [ -f "$d/exit" ]; then s="exited $(cat "$d/exit")"; elif [ -f "$d/timedout" ]; then s=timedout; elif [ -f "$d/killed" ]; then s=killed;`,
  `elif [ -f "$d/pid" ] && kill -0 -"$(cat "$d/pid")" 2>/dev/null; then s=running; else s=vanished; fi`,
  `echo "$s" >&2; tail -c "$3" "$d/err" >&2 2>/dev/null; tail -c "$3" "$d/out" 2>/dev/null; exit 0`,
].join('\n');

/** Marks the command killed and kills its process group (execd starts each command in one of its own). */
export const KILL = [
  `d=${CMD}/$1; [ -d "$d" ] || exit 0; : > "$d/killed"`,
  `k=0; while [ ! -s "$d/pid" ] && [ $k -lt 20 ]; do sleep 0.05; k=$((k+1)); done`,
  `p=$(cat "$d/pid" 2>/dev/null) && kill -9 -"$p" 2>/dev/null; exit 0`,
].join('\n');

/** Makes symlinks: pairs of (target, path) as $1 $2, $3 $4, … */
export const SYMLINKS = `while [ $# -gt 1 ]; do mkdir -p "$(dirname "$2")" && ln -sfn "$1" "$2" || exit 1; shift 2; done`;
