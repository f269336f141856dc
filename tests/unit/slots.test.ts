import { describe, expect, it } from 'vitest';
import { Slots } from '../../src/util/slots';

describe('Slots', () => {
  it('never grants more than its size, and hands freed slots to waiters in order', async () => {
    const slots = new Slots(2);
    const order: number[] = [];
    const a = await slots.take();
    const b = await slots.take();
    expect(slots.inUse).toBe(2);
    const waiters = [3, 4].map((n) => slots.take().then((release) => (order.push(n), release)));
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([]);
    a();
    const third = await waiters[0]!;
    expect(order).toEqual([3]);
    expect(slots.inUse).toBe(2);
    b();
    const fourth = await waiters[1]!;
    expect(order).toEqual([3, 4]);
    third();
    fourth();
    expect(slots.inUse).toBe(0);
  });

  it('counts a release once, however often it is called', async () => {
    const slots = new Slots(1);
    const release = await slots.take();
    release();
    release();
    await slots.take();
    expect(slots.inUse).toBe(1);
  });

  it('drops a waiter whose signal aborts, without taking a slot', async () => {
    const slots = new Slots(1);
    const held = await slots.take();
    const abort = new AbortController();
    const waiting = slots.take(abort.signal);
    abort.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    held();
    expect(slots.inUse).toBe(0);
    await expect(slots.take(abort.signal)).rejects.toThrow('cancelled');
  });

  it('refuses a size that is not a positive integer', () => {
    expect(() => new Slots(0)).toThrow(RangeError);
    expect(() => new Slots(1.5)).toThrow(RangeError);
  });
});
