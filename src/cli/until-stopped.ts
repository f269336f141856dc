// How a serving command (`gym env serve`, `gym gateway serve`) waits: until SIGINT or SIGTERM, then it
// closes its server and returns, so the process exits 0.
export function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
