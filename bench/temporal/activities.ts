// The bench-only activity: does no work, so a case measures only what Temporal costs per activity.

export async function noop(i: number): Promise<number> {
  return i;
}
