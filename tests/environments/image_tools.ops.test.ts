// Gymflow's image operations (sharp) against NeMo Gym 0.7.0's execute_image_tool (PIL), on two of its example
// photos and a drawn image of shapes (image_tools.ops.cases.py): the same results and errors, the same output
// sizes, and the same pixels where no resampling is involved (libvips's and PIL's resamplers differ slightly).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeImage, ImageToolError, runImageTool, type Raster } from '../../src/environments/image_tools/operations';
import { readJsonl } from './nemo_fixtures';

const HERE = import.meta.dirname;
const rows = readJsonl<{ responses_create_params: { input: { content?: unknown }[] } }>(path.resolve(HERE, '../../src/environments/image_tools/data/example.jsonl'));
const photo = (i: number) =>
  rows[i]!.responses_create_params.input.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((p: { type?: string }) => p.type === 'input_image').image_url as string;

interface OpCase {
  name: string;
  args: Record<string, unknown>;
  result?: Record<string, unknown>;
  output?: { size: number[]; mean: number[]; sha256: string };
  error?: string;
}
const cases = readJsonl<OpCase>(path.join(HERE, 'image_tools.ops.cases.jsonl'));

/** Images 0 and 2 are 640×480 and 480×640, the shapes 240×160: a pair of different sizes is resized to the first's. */
const SIZES = [
  [640, 480],
  [240, 160],
  [480, 640],
];
const resizedPair = (c: OpCase) => (c.name === 'image_diff_tool' || c.name === 'image_overlay_tool') && String(SIZES[c.args.img_idx_a as number]) !== String(SIZES[c.args.img_idx_b as number]);
/** Tools whose output pixels involve resampling (or text NeMo Gym draws and Gymflow does not): compared by mean colour. */
const resampled = (c: OpCase) =>
  c.name === 'image_zoom_in_tool' || (c.name === 'image_rotate_tool' && Number(c.args.degrees) % 90 !== 0) || c.name === 'image_side_by_side_tool' || c.name === 'count_objects_tool' || resizedPair(c);

describe('image operations against NeMo Gym execute_image_tool', async () => {
  const images: Raster[] = [await decodeImage(photo(0)), await decodeImage(path.join(HERE, 'image_tools.shapes.png')), await decodeImage(photo(2))];

  it.each(cases.map((c) => [`${c.name} ${JSON.stringify(c.args)}`, c] as const))('%s', async (_name, c) => {
    if (c.error) {
      await expect(runImageTool(c.name, c.args, images)).rejects.toThrow(new ImageToolError(c.error));
      return;
    }
    const { png, result } = await runImageTool(c.name, c.args, images);
    if (resizedPair(c) && c.name === 'image_diff_tool') {
      // Statistics over a resampled image: equal to within what the resamplers' difference moves them.
      type Stats = { mean_abs_diff: number; changed_pixel_fraction: number; changed_bbox: number[] };
      const { mean_abs_diff, changed_pixel_fraction, changed_bbox, ...rest } = result as unknown as Stats;
      const expected = c.result as unknown as Stats;
      expect(rest).toEqual(Object.fromEntries(Object.entries(expected).filter(([k]) => !['mean_abs_diff', 'changed_pixel_fraction', 'changed_bbox'].includes(k))));
      expect(Math.abs(mean_abs_diff - expected.mean_abs_diff)).toBeLessThan(0.5);
      expect(Math.abs(changed_pixel_fraction - expected.changed_pixel_fraction)).toBeLessThan(0.01);
      changed_bbox.forEach((v, i) => expect(Math.abs(v - expected.changed_bbox[i]!)).toBeLessThanOrEqual(5));
    } else expect(result).toEqual(c.result);
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual(c.output!.size);
    const mean = [0, 1, 2].map((ch) => {
      let s = 0;
      for (let i = ch; i < data.length; i += 3) s += data[i]!;
      return s / (data.length / 3);
    });
    if (resampled(c)) mean.forEach((m, ch) => expect(Math.abs(m - c.output!.mean[ch]!)).toBeLessThan(3));
    else expect(createHash('sha256').update(data).digest('hex')).toBe(c.output!.sha256);
  });

  it('decodes the data URIs the task rows carry, and refuses URLs that would need a download', async () => {
    expect(images[0]!.data.length).toBe(images[0]!.width * images[0]!.height * 3);
    await expect(decodeImage('https://example.com/x.png')).rejects.toThrow(/download/);
    expect(readFileSync(path.join(HERE, 'image_tools.shapes.png')).length).toBeGreaterThan(0);
  });
});
