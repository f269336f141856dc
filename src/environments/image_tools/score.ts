// PivotRL's three levels for one image-tool call against the demonstrated one: the tool (zoom and crop as
// one decision), the image(s) it acts on, and its primary argument scored per tool family.
import { jsonLoadsPlain } from '../../python/json';
import { pyFloat, pyIntFromString } from '../../python/number';
import { pyRegExp } from '../../python/regex';
import { pyStrip } from '../../python/str';
import { pyEq, pyStr } from '../../python/values';

export type Family = 'bbox' | 'point' | 'color' | 'pair' | 'multi' | 'scalar' | 'unknown';

const FAMILIES: Record<string, Family> = {
  image_zoom_in_tool: 'bbox',
  image_crop_tool: 'bbox',
  color_at_tool: 'point',
  find_color_tool: 'color',
  count_objects_tool: 'color',
  image_diff_tool: 'pair',
  image_overlay_tool: 'pair',
  image_side_by_side_tool: 'multi',
  image_rotate_tool: 'scalar',
  image_flip_tool: 'scalar',
};
export const toolFamily = (name: string): Family => FAMILIES[name] ?? 'unknown';

/** Crop is zoom at factor 1, and factor is never compared: the two count as the same Level 0 decision. */
const REGION_INSPECT = new Set(['image_zoom_in_tool', 'image_crop_tool']);
export function sameTool(rollout: string, expected: string, unifyRegionInspect: boolean): boolean {
  const canonical = (name: string) => {
    const stripped = pyStrip(name);
    return unifyRegionInspect && REGION_INSPECT.has(stripped) ? '<region_inspect>' : stripped;
  };
  return canonical(rollout) === canonical(expected);
}

/** A value Python's int() refuses, or one it overflows on (inf), which NeMo Gym does not catch. */
export class Overflow extends Error {}

/** `int(value)`, or null where it raises TypeError/ValueError. */
export function asInt(value: unknown): number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return null;
    if (!Number.isFinite(value)) throw new Overflow('cannot convert float infinity to integer');
    return Math.trunc(value);
  }
  if (typeof value === 'string') {
    const n = pyIntFromString(value);
    return n === null ? null : Number(n);
  }
  return null;
}

/** `float(value)`, or null where it raises TypeError/ValueError. */
export function asFloat(value: unknown): number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return pyFloat(value);
  return null;
}

const NUMBER = pyRegExp(String.raw`[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?`);

function jsonOr<T>(value: string, otherwise: T): unknown {
  try {
    return jsonLoadsPlain(value);
  } catch {
    return otherwise;
  }
}

/** bbox_2d as [x1, y1, x2, y2] with the corners ordered; text that is not JSON gives its first four numbers. */
export function coerceBbox(value: unknown): number[] | null {
  if (typeof value === 'string') value = jsonOr(value, (value.match(NUMBER) ?? []).slice(0, 4));
  if (!Array.isArray(value) || value.length !== 4) return null;
  const v = value.map(asFloat);
  if (v.some((x) => x === null)) return null;
  const [x1, y1, x2, y2] = v as number[];
  return [Math.min(x1!, x2!), Math.min(y1!, y2!), Math.max(x1!, x2!), Math.max(y1!, y2!)];
}

export function bboxIou(a: readonly number[], b: readonly number[]): number {
  const [ax1, ay1, ax2, ay2] = a as [number, number, number, number];
  const [bx1, by1, bx2, by2] = b as [number, number, number, number];
  const inter = Math.max(0, Math.min(ax2, bx2) - Math.max(ax1, bx1)) * Math.max(0, Math.min(ay2, by2) - Math.max(ay1, by1));
  if (inter <= 0) return 0;
  const union = Math.max(0, ax2 - ax1) * Math.max(0, ay2 - ay1) + Math.max(0, bx2 - bx1) * Math.max(0, by2 - by1) - inter;
  return union > 0 ? inter / union : 0;
}

function coercePoint(value: unknown): number[] | null {
  if (typeof value === 'string') value = jsonOr(value, undefined);
  if (!Array.isArray(value) || value.length !== 2) return null;
  const v = value.map(asFloat);
  return v.some((x) => x === null) ? null : (v as number[]);
}

function coerceIndices(value: unknown): number[] | null {
  if (typeof value === 'string') value = jsonOr(value, undefined);
  if (typeof value === 'number' && Number.isInteger(value)) return [value];
  if (!Array.isArray(value)) return null;
  const v = value.map(asInt);
  return v.some((x) => x === null) ? null : (v as number[]);
}

function coerceColor(value: unknown): number[] | null {
  if (typeof value === 'string') value = jsonOr(value, undefined);
  if (!Array.isArray(value) || value.length !== 3) return null;
  const v = value.map(asInt);
  return v.some((x) => x === null) ? null : (v as number[]);
}

type Args = Record<string, unknown>;
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

/** Level 1: the same image(s). A side without an index cannot disprove it. */
export function sameTarget(family: Family, r: Args, e: Args): boolean {
  if (family === 'bbox' || family === 'point' || family === 'color' || family === 'scalar') {
    const ri = asInt(r.img_idx);
    const ei = asInt(e.img_idx);
    return ri === null || ei === null || ri === ei;
  }
  if (family === 'pair') {
    return ['img_idx_a', 'img_idx_b'].every((key) => {
      const rv = asInt(r[key]);
      const ev = asInt(e[key]);
      return rv === null || ev === null || rv === ev;
    });
  }
  if (family === 'multi') {
    const ri = coerceIndices(r.img_indices);
    const ei = coerceIndices(e.img_indices);
    return ri === null || ei === null || pyEq(sorted(ri), sorted(ei));
  }
  return true;
}

/** Level 2: the primary argument's score in [0, 1] and how it was scored. */
export function argumentScore(family: Family, r: Args, e: Args, tolerance: number): [number, string] {
  if (family === 'bbox') {
    const rb = coerceBbox(r.bbox_2d);
    const eb = coerceBbox(e.bbox_2d);
    if (eb === null) return [1, 'expected_bbox_unparseable'];
    if (rb === null) return [0, 'rollout_bbox_unparseable'];
    // Reproducing a degenerate (zero-area) demonstrated box must still score 1.
    if (rb.every((v, i) => v === eb[i])) return [1, 'exact_bbox'];
    return [bboxIou(rb, eb), 'iou'];
  }
  if (family === 'point') {
    const rp = coercePoint(r.point_2d);
    const ep = coercePoint(e.point_2d);
    if (ep === null) return [1, 'expected_point_unparseable'];
    if (rp === null) return [0, 'rollout_point_unparseable'];
    const distance = Math.sqrt((rp[0]! - ep[0]!) ** 2 + (rp[1]! - ep[1]!) ** 2);
    return [Math.max(0, 1 - distance / 1000), 'point_distance'];
  }
  if (family === 'color') {
    const rc = coerceColor(r.color);
    const ec = coerceColor(e.color);
    if (rc === null || ec === null) return pyEq(r.color ?? null, e.color ?? null) ? [1, 'color_absent'] : [0, 'color_mismatch'];
    const diff = rc.reduce((s, v, i) => s + Math.abs(v - ec[i]!), 0) / (3 * 255);
    return [Math.max(0, 1 - diff), 'color_distance'];
  }
  if (family === 'scalar') {
    for (const key of ['degrees', 'axis']) {
      if (!(key in e)) continue;
      const ev = e[key];
      const rv = r[key];
      const ef = asFloat(ev);
      const rf = asFloat(rv);
      if (ef !== null && rf !== null) {
        if (key === 'degrees') {
          // Rotations are modular (350 and -10 are one action); Python's % takes the divisor's sign.
          let delta = Math.abs((((rf - ef) % 360) + 360) % 360);
          delta = Math.min(delta, 360 - delta);
          return [delta <= tolerance ? 1 : 0, 'degrees'];
        }
        return [Math.abs(rf - ef) <= tolerance ? 1 : 0, key];
      }
      const text = (v: unknown) => pyStrip(v === undefined ? 'None' : pyStr(v)).toLowerCase();
      return [text(rv) === text(ev) ? 1 : 0, key];
    }
    return [1, 'scalar_no_key'];
  }
  if (family === 'pair' || family === 'multi') {
    const ea = asFloat(e.alpha);
    const ra = asFloat(r.alpha);
    if (ea !== null && ra !== null) return [Math.abs(ra - ea) <= tolerance ? 1 : 0, 'alpha'];
    return [1, 'index_only'];
  }
  return [1, 'unknown_family'];
}
