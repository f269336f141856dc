// A fixed number of slots shared by everything in one process that takes them: a worker's cap on the
// rollouts it plays at once, whichever activity and lane asks.

export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`slots: a size from 1 up, got ${size}`);
    this.free = size;
  }

  /** Resolves with the slot's release once one is free; rejects with the signal's reason if it aborts first. */
  take(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', abandon);
        resolve(this.releaser());
      };
      const abandon = () => {
        this.waiting.splice(this.waiting.indexOf(grant), 1);
        reject(signal!.reason);
      };
      this.waiting.push(grant);
      signal?.addEventListener('abort', abandon, { once: true });
    });
  }

  get inUse(): number {
    return this.size - this.free;
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // A freed slot goes straight to the longest waiter, so a steady stream of takers cannot starve it.
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}
