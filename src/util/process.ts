// Whether a process is alive, for the state files (dev server, test ports) that name one by pid.
// EPERM means it exists but belongs to someone else: alive.

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
