// A hold on a FAKE upstream's streamed answer: the fake calls `gate.first()` once its first piece is written
// and waits for `gate.released`; the test awaits `firstPieceSent` (a piece is out, the rest held back) and
// calls `release()` — so a test can see a piece reach the caller while the upstream is still "generating".
export interface StreamHold {
  gate: { first: () => void; released: Promise<void> };
  firstPieceSent: Promise<void>;
  release(): void;
}

export function streamHold(): StreamHold {
  let first!: () => void;
  let release!: () => void;
  const firstPieceSent = new Promise<void>((resolve) => (first = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return { gate: { first, released }, firstPieceSent, release };
}
