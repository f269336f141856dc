// The image tools the image-tools agent runs (NeMo Gym's execute_image_tool), done with sharp (libvips): zoom,
// crop, rotate, flip, diff, side by side, overlay, colour search, object count and colour probe. Each returns
// the new image (PNG, RGB) and the JSON result the model is shown, in normalised 0–1000 coordinates.
import sharp, { type Sharp } from 'sharp';
import { roundHalfEven } from '../../util/round';
import { coerceBbox } from './score';

export const IMAGE_TOOL_NAMES = [
  'image_zoom_in_tool',
  'image_crop_tool',
  'image_rotate_tool',
  'image_flip_tool',
  'image_diff_tool',
  'image_side_by_side_tool',
  'image_overlay_tool',
  'count_objects_tool',
  'find_color_tool',
  'color_at_tool',
] as const;

/** A tool call NeMo Gym's tool refuses (its ValueError): the message is shown to the model. */
export class ImageToolError extends Error {}

/** An RGB image as raw pixels, row-major, 3 bytes a pixel. */
export interface Raster {
  width: number;
  height: number;
  data: Uint8Array;
}

export interface ImageToolResult {
  /** The image the tool produced, as PNG: the rollout's next image index. */
  png: Buffer;
  result: Record<string, unknown>;
}

/** A data URI or a file path, decoded to RGB (alpha dropped, as PIL's convert("RGB") does). */
export async function decodeImage(ref: string): Promise<Raster> {
  const input = ref.startsWith('data:') ? Buffer.from(ref.slice(ref.indexOf(',') + 1), 'base64') : ref.startsWith('file://') ? ref.slice('file://'.length) : ref;
  if (typeof input === 'string' && /^https?:\/\//.test(input)) throw new ImageToolError('images from URLs need a download; give them as data URIs or files');
  const { data, info } = await sharp(input).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

const fromRaster = (r: Raster) => sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.length), { raw: { width: r.width, height: r.height, channels: 3 } });
async function toRaster(image: Sharp): Promise<Raster> {
  const { data, info } = await image.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}
const crop = (r: Raster, [left, top, right, bottom]: number[]) => toRaster(fromRaster(r).extract({ left: left!, top: top!, width: right! - left!, height: bottom! - top! }));
const resize = (r: Raster, width: number, height: number) => toRaster(fromRaster(r).resize(width, height, { fit: 'fill', kernel: 'cubic' }));

/** PIL's NEAREST resize: each output pixel takes the source pixel under its centre. */
function resizeNearest(r: Raster, width: number, height: number): Raster {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const sy = Math.min(r.height - 1, Math.floor(((y + 0.5) * r.height) / height));
    for (let x = 0; x < width; x++) {
      const sx = Math.min(r.width - 1, Math.floor(((x + 0.5) * r.width) / width));
      data.set(r.data.subarray((sy * r.width + sx) * 3, (sy * r.width + sx) * 3 + 3), (y * width + x) * 3);
    }
  }
  return { width, height, data };
}

/** The canvas PIL's rotate(expand=True) gives: the rotated corners' bounds, outward to whole pixels. */
export function rotatedSize(width: number, height: number, degrees: number): [number, number] {
  const angle = ((((degrees % 360) + 360) % 360) * Math.PI) / 180;
  const cos = Number(Math.cos(angle).toFixed(15));
  const sin = Number(Math.sin(angle).toFixed(15));
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [x, y] of [
    [0, 0],
    [width, 0],
    [width, height],
    [0, height],
  ] as const) {
    const dx = x - width / 2;
    const dy = y - height / 2;
    xs.push(cos * dx + sin * dy);
    ys.push(-sin * dx + cos * dy);
  }
  return [Math.ceil(Math.max(...xs)) - Math.floor(Math.min(...xs)), Math.ceil(Math.max(...ys)) - Math.floor(Math.min(...ys))];
}

/** The raster centred on a white canvas of the given size (cropped where it is larger). */
async function onCanvas(r: Raster, width: number, height: number): Promise<Raster> {
  if (r.width === width && r.height === height) return r;
  const padX = Math.max(0, width - r.width);
  const padY = Math.max(0, height - r.height);
  const white = { r: 255, g: 255, b: 255 };
  const padded = await toRaster(fromRaster(r).extend({ left: Math.floor(padX / 2), right: Math.ceil(padX / 2), top: Math.floor(padY / 2), bottom: Math.ceil(padY / 2), background: white }));
  const left = Math.floor((padded.width - width) / 2);
  const top = Math.floor((padded.height - height) / 2);
  return crop(padded, [left, top, left + width, top + height]);
}

function bboxToPixels(b: number[], w: number, h: number): number[] {
  if (Math.max(...b.map(Math.abs)) > 1000) return b;
  return [(b[0]! / 1000) * w, (b[1]! / 1000) * h, (b[2]! / 1000) * w, (b[3]! / 1000) * h];
}

/** A zoom box grown about its centre to at least 32 pixels a side, inside the image. */
function zoomBox([x1, y1, x2, y2]: number[], w: number, h: number): number[] {
  let left = Math.max(0, Math.floor(x1!));
  let top = Math.max(0, Math.floor(y1!));
  let right = Math.min(w, Math.ceil(x2!));
  let bottom = Math.min(h, Math.ceil(y2!));
  const height = bottom - top;
  const width = right - left;
  if (height < 32 || width < 32) {
    const cx = (left + right) / 2;
    const cy = (top + bottom) / 2;
    const ratio = 32 / Math.max(1, Math.min(height, width));
    const halfH = Math.ceil(height * ratio * 0.5);
    const halfW = Math.ceil(width * ratio * 0.5);
    left = Math.max(0, Math.floor(cx - halfW));
    right = Math.min(w, Math.ceil(cx + halfW));
    top = Math.max(0, Math.floor(cy - halfH));
    bottom = Math.min(h, Math.ceil(cy + halfH));
  }
  return [left, top, right, bottom];
}

/** Qwen-VL's smart resize: both sides on a 32-pixel grid, the area clamped into [min, max] pixels. */
export function smartResize(height: number, width: number, minPixels: number, maxPixels: number, factor = 32): [number, number] {
  let h = Math.max(factor, roundHalfEven(height / factor) * factor);
  let w = Math.max(factor, roundHalfEven(width / factor) * factor);
  if (h * w > maxPixels) {
    const beta = Math.sqrt((height * width) / maxPixels);
    h = Math.floor(height / beta / factor) * factor;
    w = Math.floor(width / beta / factor) * factor;
  } else if (h * w < minPixels) {
    const beta = Math.sqrt(minPixels / (height * width));
    h = Math.ceil((height * beta) / factor) * factor;
    w = Math.ceil((width * beta) / factor) * factor;
  }
  return [h, w];
}

const clamp1000 = (v: number) => Math.max(0, Math.min(1000, roundHalfEven(v)));
const normBox = ([x1, y1, x2, y2]: number[], w: number, h: number) => [clamp1000((x1! / w) * 1000), clamp1000((y1! / h) * 1000), clamp1000((x2! / w) * 1000), clamp1000((y2! / h) * 1000)];
/** Python's round(x, n) for the statistics shown (ties by the float's exact value are rare enough to ignore). */
const roundTo = (x: number, n: number) => Number(x.toFixed(n));

function imageAt(images: readonly Raster[], value: unknown, parameter: string): [number, Raster] {
  const n = typeof value === 'number' ? Math.trunc(value) : typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : typeof value === 'boolean' ? Number(value) : NaN;
  if (!Number.isFinite(n)) throw new ImageToolError(`${parameter} must be an integer`);
  if (n < 0 || n >= images.length) throw new ImageToolError(`${parameter} ${n} is out of range for ${images.length} image(s)`);
  return [n, images[n]!];
}

function numberArg(value: unknown, message: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (Number.isNaN(n) && !(typeof value === 'string' && /^\s*[+-]?nan\s*$/i.test(value))) throw new ImageToolError(message);
  return n;
}

/** PIL's Image.blend on 8-bit channels: a + alpha·(b − a) in float32, truncated. */
function blend(a: Raster, b: Raster, alpha: number): Raster {
  const out = new Uint8Array(a.data.length);
  const f = Math.fround(alpha);
  for (let i = 0; i < out.length; i++) {
    const t = Math.fround(a.data[i]! + Math.fround(f * (b.data[i]! - a.data[i]!)));
    out[i] = t <= 0 ? 0 : t >= 255 ? 255 : Math.trunc(t);
  }
  return { width: a.width, height: a.height, data: out };
}

const sameSize = (b: Raster, a: Raster) => (b.width === a.width && b.height === a.height ? Promise.resolve(b) : resize(b, a.width, a.height));

interface Blob {
  bbox: number[];
  center: number[];
  pixels: number;
}

/** 4-connected components of the mask, numbered in raster order of their first pixel (scipy's ndimage.label); the first 40 of at least `minSize` pixels. */
export function components(mask: Uint8Array, width: number, height: number, minSize: number, maxBlobs = 40): Blob[] {
  const label = new Int32Array(mask.length);
  const stack: number[] = [];
  const blobs: Blob[] = [];
  let next = 0;
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || label[start]) continue;
    next++;
    let pixels = 0;
    let sx = 0;
    let sy = 0;
    let [x1, y1, x2, y2] = [width, height, -1, -1];
    label[start] = next;
    stack.push(start);
    while (stack.length) {
      const p = stack.pop()!;
      const x = p % width;
      const y = (p - x) / width;
      pixels++;
      sx += x;
      sy += y;
      x1 = Math.min(x1, x);
      y1 = Math.min(y1, y);
      x2 = Math.max(x2, x);
      y2 = Math.max(y2, y);
      for (const q of [x > 0 ? p - 1 : -1, x < width - 1 ? p + 1 : -1, y > 0 ? p - width : -1, y < height - 1 ? p + width : -1]) {
        if (q >= 0 && mask[q] && !label[q]) {
          label[q] = next;
          stack.push(q);
        }
      }
    }
    if (pixels < minSize) continue;
    blobs.push({ bbox: [x1, y1, x2 + 1, y2 + 1], center: [sx / pixels, sy / pixels], pixels });
    if (blobs.length >= maxBlobs) break;
  }
  return blobs;
}

/** numpy's median of the border pixels (corners counted twice, as the concatenated rows and columns hold them), truncated to int. */
function borderMedian(r: Raster): number[] {
  const at = (x: number, y: number) => (y * r.width + x) * 3;
  const idx: number[] = [];
  for (let x = 0; x < r.width; x++) idx.push(at(x, 0));
  for (let x = 0; x < r.width; x++) idx.push(at(x, r.height - 1));
  for (let y = 0; y < r.height; y++) idx.push(at(0, y));
  for (let y = 0; y < r.height; y++) idx.push(at(r.width - 1, y));
  return [0, 1, 2].map((c) => {
    const v = idx.map((i) => r.data[i + c]!).sort((a, b) => a - b);
    const mid = v.length / 2;
    return Math.trunc(v.length % 2 ? v[Math.floor(mid)]! : (v[mid - 1]! + v[mid]!) / 2);
  });
}

function rgbArg(value: unknown, required: boolean): number[] | null {
  if ((value === undefined || value === null) && !required) return null;
  if (!Array.isArray(value) || value.length !== 3) throw new ImageToolError('color must be an [R, G, B] list');
  const c = value.map((v) => (typeof v === 'number' ? Math.trunc(v) : typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v) ? Number(v) : NaN));
  if (c.some(Number.isNaN)) throw new ImageToolError('color must contain three integers');
  if (c.some((v) => v < 0 || v > 255)) throw new ImageToolError('color channels must be in the 0-255 range');
  return c;
}

function intArg(value: unknown, fallback: number, message: string): number {
  if (value === undefined) return fallback;
  const n = typeof value === 'number' ? Math.trunc(value) : typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : NaN;
  if (Number.isNaN(n)) throw new ImageToolError(message);
  return n;
}

function strokeRect(r: Raster, [x1, y1, x2, y2]: number[], rgb: number[], width = 2) {
  // PIL's rectangle outline: `width` pixels inward from the inclusive corners.
  const set = (x: number, y: number) => {
    if (x < 0 || y < 0 || x >= r.width || y >= r.height) return;
    r.data.set(rgb, (y * r.width + x) * 3);
  };
  for (let k = 0; k < width; k++) {
    for (let x = x1! + k; x <= x2! - k; x++) {
      set(x, y1! + k);
      set(x, y2! - k);
    }
    for (let y = y1! + k; y <= y2! - k; y++) {
      set(x1! + k, y);
      set(x2! - k, y);
    }
  }
}

/**
 * Runs one image tool over the rollout's images. Differences from NeMo Gym (PIL): resampling (zoom, rotation by
 * other than a right angle, resizes to a common size) is libvips's, so pixels differ slightly; no text is drawn
 * (side-by-side labels, count numbers), because PIL's bitmap font is not libvips's.
 */
export async function runImageTool(
  name: string,
  args: Record<string, unknown>,
  images: readonly Raster[],
  { minPixels = 256 * 32 * 32, maxPixels = 12845056 }: { minPixels?: number; maxPixels?: number } = {},
): Promise<ImageToolResult> {
  if (!(IMAGE_TOOL_NAMES as readonly string[]).includes(name)) throw new ImageToolError(`Unknown tool name: ${name}`);
  const label = args.label === undefined ? '' : String(args.label);
  let out: Raster;
  let result: Record<string, unknown>;
  if (name === 'image_zoom_in_tool' || name === 'image_crop_tool') {
    const bbox = coerceBbox(args.bbox_2d);
    if (bbox === null) throw new ImageToolError('bbox_2d must be a list of four numbers');
    const [idx, image] = imageAt(images, args.img_idx ?? 0, 'img_idx');
    const px = bboxToPixels(bbox, image.width, image.height);
    if (name === 'image_zoom_in_tool') {
      const box = zoomBox(px, image.width, image.height);
      if (box[2]! <= box[0]! || box[3]! <= box[1]!) throw new ImageToolError(`Invalid crop after clipping: [${box.join(', ')}]`);
      const factor = args.factor === undefined ? 3 : numberArg(args.factor, 'factor must be a number');
      if (!Number.isFinite(factor) || factor <= 0) throw new ImageToolError('factor must be a positive finite number');
      const [h, w] = smartResize(Math.max(1, roundHalfEven((box[3]! - box[1]!) * factor)), Math.max(1, roundHalfEven((box[2]! - box[0]!) * factor)), minPixels, maxPixels);
      out = await resize(await crop(image, box), w, h);
      result = { box: bbox, factor, label, img_idx: idx };
    } else {
      const box = [Math.max(0, Math.floor(px[0]!)), Math.max(0, Math.floor(px[1]!)), Math.min(image.width, Math.ceil(px[2]!)), Math.min(image.height, Math.ceil(px[3]!))];
      if (box[2]! <= box[0]! || box[3]! <= box[1]!) throw new ImageToolError(`Invalid crop after clipping: [${box.join(', ')}]`);
      out = await crop(image, box);
      result = { box: bbox, size: [out.width, out.height], label, img_idx: idx };
    }
  } else if (name === 'image_rotate_tool') {
    const [idx, image] = imageAt(images, args.img_idx ?? 0, 'img_idx');
    const degrees = numberArg(args.degrees, 'degrees must be a number');
    if (!Number.isFinite(degrees)) throw new ImageToolError('degrees must be finite');
    // PIL turns counter-clockwise and fills the expanded corners white; sharp turns clockwise.
    const [w, h] = rotatedSize(image.width, image.height, degrees);
    out = await onCanvas(await toRaster(fromRaster(image).rotate(-degrees, { background: { r: 255, g: 255, b: 255 } })), w, h);
    result = { degrees, size: [out.width, out.height], label, img_idx: idx };
  } else if (name === 'image_flip_tool') {
    const [idx, image] = imageAt(images, args.img_idx ?? 0, 'img_idx');
    const axis = args.axis === undefined ? '' : String(args.axis);
    if (axis !== 'horizontal' && axis !== 'vertical') throw new ImageToolError('axis must be "horizontal" or "vertical"');
    out = await toRaster(axis === 'horizontal' ? fromRaster(image).flop() : fromRaster(image).flip());
    result = { axis, size: [out.width, out.height], label, img_idx: idx };
  } else if (name === 'image_diff_tool' || name === 'image_overlay_tool') {
    const [ia, a] = imageAt(images, args.img_idx_a, 'img_idx_a');
    const [ib, rawB] = imageAt(images, args.img_idx_b, 'img_idx_b');
    if (name === 'image_overlay_tool') {
      const alpha = args.alpha === undefined ? 0.5 : numberArg(args.alpha, 'alpha must be a number');
      if (!(alpha >= 0 && alpha <= 1)) throw new ImageToolError('alpha must be in the 0-1 range');
      out = blend(a, await sameSize(rawB, a), alpha);
      result = { alpha, label, img_idx_a: ia, img_idx_b: ib };
    } else {
      const b = await sameSize(rawB, a);
      const n = a.width * a.height;
      const heat = new Uint8Array(a.data.length);
      let sum = 0;
      let changed = 0;
      let [x1, y1, x2, y2] = [Infinity, Infinity, -1, -1];
      for (let p = 0; p < n; p++) {
        let gray = 0;
        for (let c = 0; c < 3; c++) {
          const d = Math.abs(a.data[p * 3 + c]! - b.data[p * 3 + c]!);
          sum += d;
          gray = Math.max(gray, d);
        }
        heat[p * 3] = Math.min(255, gray * 3);
        if (gray > 30) {
          changed++;
          const x = p % a.width;
          const y = (p - x) / a.width;
          [x1, y1, x2, y2] = [Math.min(x1, x), Math.min(y1, y), Math.max(x2, x), Math.max(y2, y)];
        }
      }
      result = { mean_abs_diff: roundTo(sum / (n * 3), 2), changed_pixel_fraction: roundTo(changed / n, 4), label, img_idx_a: ia, img_idx_b: ib };
      if (changed) result.changed_bbox = normBox([x1, y1, x2 + 1, y2 + 1], a.width, a.height);
      out = blend(a, { width: a.width, height: a.height, data: heat }, 0.6);
    }
  } else if (name === 'image_side_by_side_tool') {
    const raw = args.img_indices;
    if (!Array.isArray(raw) || raw.length < 2 || raw.length > 6) throw new ImageToolError('img_indices must contain between two and six image indices');
    const picked = raw.map((v) => imageAt(images, v, 'img_indices'));
    const height = Math.max(...picked.map(([, im]) => im.height));
    const scaled = await Promise.all(picked.map(([, im]) => (im.height === height ? im : resize(im, Math.max(1, roundHalfEven((im.width * height) / im.height)), height))));
    if (args.labels !== undefined && args.labels !== null && !Array.isArray(args.labels)) throw new ImageToolError('labels must be an array when provided');
    const padding = 8;
    const width = scaled.reduce((s, im) => s + im.width, 0) + padding * (scaled.length - 1);
    const canvas = { width, height, data: new Uint8Array(width * height * 3).fill(255) };
    let x = 0;
    for (const im of scaled) {
      for (let y = 0; y < im.height; y++) canvas.data.set(im.data.subarray(y * im.width * 3, (y + 1) * im.width * 3), (y * width + x) * 3);
      x += im.width + padding;
    }
    out = canvas;
    result = { img_indices: picked.map(([i]) => i), size: [width, height], label };
  } else if (name === 'count_objects_tool' || name === 'find_color_tool') {
    const [idx, image] = imageAt(images, args.img_idx ?? 0, 'img_idx');
    const tolerance = intArg(args.tolerance, 40, 'tolerance must be an integer');
    if (tolerance < 0 || tolerance > 255) throw new ImageToolError('tolerance must be in the 0-255 range');
    const color = rgbArg(args.color, name === 'find_color_tool');
    const n = image.width * image.height;
    const mask = new Uint8Array(n);
    const reference = color ?? borderMedian(image);
    for (let p = 0; p < n; p++) {
      const d = [0, 1, 2].map((c) => Math.abs(image.data[p * 3 + c]! - reference[c]!));
      mask[p] = color ? Number(d.every((v) => v <= tolerance)) : Number(d.some((v) => v > tolerance));
    }
    const minSize = intArg(args.min_size, 30, 'min_size must be an integer');
    if (minSize < 1) throw new ImageToolError('min_size must be positive');
    const blobs = components(mask, image.width, image.height, name === 'count_objects_tool' ? minSize : 20);
    const shown = blobs.map((b) => {
      const center = [clamp1000((b.center[0]! / image.width) * 1000), clamp1000((b.center[1]! / image.height) * 1000)];
      return { bbox: normBox(b.bbox, image.width, image.height), center, centroid: center, pixels: b.pixels };
    });
    out = { width: image.width, height: image.height, data: Uint8Array.from(image.data) };
    if (name === 'count_objects_tool') {
      for (const b of blobs) strokeRect(out, b.bbox, [255, 0, 0]);
      result = { count: shown.length, blobs: shown, label, img_idx: idx };
    } else {
      let matched = 0;
      for (let p = 0; p < n; p++) if (mask[p]) (matched++, out.data.set([255, 0, 255], p * 3));
      result = { match_fraction: roundTo(matched / n, 4), count: shown.length, blobs: shown, label, img_idx: idx };
    }
  } else {
    const [idx, image] = imageAt(images, args.img_idx ?? 0, 'img_idx');
    const point = args.point_2d;
    if (!Array.isArray(point) || point.length !== 2) throw new ImageToolError('point_2d must be an [x, y] list');
    const [nx, ny] = point.map((v) => numberArg(v, 'point_2d must contain two numbers')) as [number, number];
    if (!(nx >= 0 && nx <= 1000 && ny >= 0 && ny <= 1000)) throw new ImageToolError('point_2d coordinates must be in the 0-1000 range');
    const x = Math.min(image.width - 1, Math.max(0, roundHalfEven((nx / 1000) * image.width)));
    const y = Math.min(image.height - 1, Math.max(0, roundHalfEven((ny / 1000) * image.height)));
    const rgb = [...image.data.subarray((y * image.width + x) * 3, (y * image.width + x) * 3 + 3)];
    const patch = await crop(image, [Math.max(0, x - 12), Math.max(0, y - 12), Math.min(image.width, x + 13), Math.min(image.height, y + 13)]);
    out = resizeNearest(patch, 150, 150);
    result = { point_2d: [roundHalfEven(nx), roundHalfEven(ny)], rgb, label, img_idx: idx };
  }
  if (Math.max(out.width, out.height) > 4096) out = await toRaster(fromRaster(out).resize(4096, 4096, { fit: 'inside', kernel: 'lanczos3' }));
  result.size = [out.width, out.height];
  return { png: await fromRaster(out).png().toBuffer(), result };
}
