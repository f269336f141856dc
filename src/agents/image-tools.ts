// NeMo Gym's image-tools agent turn (ImageToolsGymToolLogic.process_nonterminal_turn): read the `<tool_call>` markup
// of one model turn, run the image tool on the rollout's images with sharp, and say what reward and reply it earns.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { z } from 'zod';
import { jsonDumps } from '../python/json';
import { parseImageToolCalls, type ImageToolCall } from '../environments/image_tools/calls';
import { decodeImage, IMAGE_TOOL_NAMES, runImageTool } from '../environments/image_tools/operations';
import { bboxIou, coerceBbox } from '../environments/image_tools/score';

/** The agent's settings (NeMo Gym's ImageToolsAgentConfig keys), with its configuration file's values as defaults. */
export const ImageToolsAgentSettings = z.object({
  /** Model turns per rollout. */
  max_steps: z.number().int().min(1).default(21),
  /** Set on a task's request when it sets none. */
  max_output_tokens: z.number().int().min(1).nullable().default(4096),
  /** Sent as the request's `stop`: the model pauses after each call so the tool can answer it. */
  stop_strings: z.array(z.string()).default(['</tool_call>']),
  crop_dir: z.string().min(1).default('image_tool_outputs'),
  crop_format: z.enum(['jpeg', 'jpg', 'png']).default('jpeg'),
  crop_jpeg_quality: z.number().int().min(1).max(100).default(95),
  crop_min_pixels: z.number().int().min(1).default(262144),
  crop_max_pixels: z.number().int().min(1).default(1048576),
  max_tool_calls: z.number().int().min(0).default(20),
  max_tool_calls_per_turn: z.number().int().min(0).default(1),
  tool_success_reward: z.number().default(0.02),
  tool_success_reward_cap: z.number().default(0.2),
  invalid_tool_call_penalty: z.number().default(-0.05),
  duplicate_tool_call_penalty: z.number().default(-0.02),
  force_final_after_duplicate: z.boolean().default(true),
  terminate_on_invalid_tool_call: z.boolean().default(true),
  duplicate_iou_threshold: z.number().default(0.5),
  forced_final_prompt: z
    .string()
    .default('This is your FINAL turn. Based on the original images and any image tool results already provided, answer the original question now. Do not call any more tools.'),
});
export type ImageToolsAgentSettings = z.infer<typeof ImageToolsAgentSettings>;

/** What the agent remembers between turns (NeMo Gym's ImageToolsGymToolMetadata); JSON, so it is journaled. */
export interface ImageToolsMemory {
  /** The task's images, then every image a tool made, by img_idx. */
  image_paths: string[];
  dataset: string;
  tool_call_count: number;
  tool_error_count: number;
  crop_paths: string[];
  seen_tool_sigs: string[];
  seen_bboxes: Record<string, number[][]>;
  force_final_next?: boolean;
}

/** One part of a tool reply: text, or an image the tool wrote (a file path). */
export type ReplyPart = { type: 'text'; text: string } | { type: 'image'; image: string };

export interface ImageToolsTurn {
  /** The user message sent back: text, or parts with the tool's images. */
  observation: string | ReplyPart[];
  reward: number;
  /** The episode ends on this turn (an answer, or an invalid call with terminate_on_invalid_tool_call). */
  done: boolean;
  /** The memory after the turn; null when the turn was an answer. */
  memory: ImageToolsMemory | null;
}

const MARKERS = ['<tool_call>', '</tool_call>', '<function=', '</function>'];
const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

/** Tool-call markup that is present but not clean calls: a reasoning tag, a nested or unclosed call. */
export function hasMalformedImageToolMarkup(text: string): boolean {
  if (!MARKERS.some((m) => text.includes(m))) return false;
  const calls = parseImageToolCalls(text);
  if (!calls.length) return true;
  const xml = calls.filter((c) => c.source === 'xml').length;
  if (occurrences(text, '<tool_call>') !== calls.length || occurrences(text, '</tool_call>') !== calls.length) return true;
  if (occurrences(text, '<function=') !== xml || occurrences(text, '</function>') !== xml) return true;
  return text.includes('</think>') || text.includes('<think>');
}

export function imageToolsMemory(imagePaths: readonly string[], dataset: string): ImageToolsMemory {
  return { image_paths: [...imagePaths], dataset, tool_call_count: 0, tool_error_count: 0, crop_paths: [], seen_tool_sigs: [], seen_bboxes: {} };
}

const copyMemory = (m: ImageToolsMemory): ImageToolsMemory => ({
  ...m,
  image_paths: [...m.image_paths],
  crop_paths: [...m.crop_paths],
  seen_tool_sigs: [...m.seen_tool_sigs],
  seen_bboxes: Object.fromEntries(Object.entries(m.seen_bboxes).map(([k, v]) => [k, v.map((b) => [...b])])),
});

const pyTypeName = (v: unknown) => (v === null || v === undefined ? 'NoneType' : Array.isArray(v) ? 'list' : typeof v === 'object' ? 'dict' : typeof v);

/** Python's int(value) for a JSON value, with its error messages (the agent shows them to the model). */
function pyInt(value: unknown): number {
  if (typeof value === 'boolean') return Number(value);
  if (typeof value === 'number') {
    if (Number.isNaN(value)) throw new Error('cannot convert float NaN to integer');
    if (!Number.isFinite(value)) throw new Error('cannot convert float infinity to integer');
    return Math.trunc(value);
  }
  if (typeof value === 'string') {
    const t = value.trim();
    if (/^[+-]?\d+(_\d+)*$/.test(t)) return Number(t.replaceAll('_', ''));
    throw new Error(`invalid literal for int() with base 10: '${value}'`);
  }
  throw new Error(`int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(value)}'`);
}

/** Python truthiness of a JSON value, for NeMo Gym's `arguments or {}`. */
const truthy = (v: unknown) =>
  !(v === null || v === undefined || v === false || v === 0 || v === '' || (Array.isArray(v) && !v.length) || (typeof v === 'object' && !Array.isArray(v) && !Object.keys(v as object).length));

export interface ImageToolsRunner {
  /** One model turn's text against the memory before it. */
  turn(text: string, memory: ImageToolsMemory): Promise<ImageToolsTurn>;
}

export function imageToolsRunner(settings: ImageToolsAgentSettings): ImageToolsRunner {
  const invalid = (message: string, memory: ImageToolsMemory): ImageToolsTurn => {
    const next = copyMemory(memory);
    next.tool_error_count += 1;
    return {
      observation: `<tool_response>\n${message}\n</tool_response>`,
      reward: settings.invalid_tool_call_penalty,
      done: settings.terminate_on_invalid_tool_call,
      memory: next,
    };
  };

  /** Writes the tool's image as NeMo Gym does: crop_dir/<dataset>/<uuid>/<uuid>.<ext>, JPEG at crop_jpeg_quality or PNG. */
  async function save(png: Buffer, dataset: string): Promise<string> {
    const dir = path.resolve(settings.crop_dir, dataset, randomUUID());
    await mkdir(dir, { recursive: true });
    const jpeg = settings.crop_format !== 'png';
    const file = path.join(dir, `${randomUUID()}.${jpeg ? 'jpg' : 'png'}`);
    await writeFile(file, jpeg ? await sharp(png).jpeg({ quality: settings.crop_jpeg_quality }).toBuffer() : png);
    return file;
  }

  async function runCall(call: ImageToolCall, name: string, args: Record<string, unknown>, next: ImageToolsMemory, images: readonly string[]) {
    const sig = jsonDumps({ name, arguments: args }, { sortKeys: true });
    const exact = next.seen_tool_sigs.includes(sig);
    next.seen_tool_sigs.push(sig);
    let nearIou: number | undefined;
    if (name === 'image_zoom_in_tool' || name === 'image_crop_tool') {
      const bbox = coerceBbox(args.bbox_2d);
      // Python's arguments.get("img_idx", 0): a null given is kept (and refused).
      const imgIdx = pyInt(Object.hasOwn(args, 'img_idx') ? args.img_idx : 0);
      if (bbox === null) throw new Error('bbox_2d must be a list of four numbers');
      const seen = (next.seen_bboxes[`${name}:${imgIdx}`] ??= []);
      nearIou = seen.map((b) => bboxIou(b, bbox)).find((iou) => iou >= settings.duplicate_iou_threshold);
      seen.push(bbox);
    }
    const rasters = await Promise.all(images.map((ref) => decodeImage(ref)));
    const out = await runImageTool(call.name as string, args, rasters, { minPixels: settings.crop_min_pixels, maxPixels: settings.crop_max_pixels });
    return { exact, nearIou, out };
  }

  return {
    async turn(text, memory) {
      const calls = parseImageToolCalls(text);
      if (hasMalformedImageToolMarkup(text)) return invalid('Invalid image tool call format.', memory);
      if (!calls.length) return { observation: '', reward: 0, done: true, memory: null };
      if (memory.force_final_next) return invalid('No more tool calls are allowed. A final answer was required.', memory);
      if (memory.tool_call_count >= settings.max_tool_calls) {
        return { observation: settings.forced_final_prompt, reward: 0, done: false, memory: { ...copyMemory(memory), force_final_next: true } };
      }
      const selected = calls.slice(0, Math.max(0, Math.min(settings.max_tool_calls_per_turn, settings.max_tool_calls - memory.tool_call_count)));
      const next = copyMemory(memory);
      const images = [...next.image_paths];
      if (!images.length) return invalid('Image tools are unavailable because no source images were provided.', memory);
      const parts: ReplyPart[] = [{ type: 'text', text: '<tool_response>\n' }];
      let reward = 0;
      let forceFinal = false;
      for (const call of selected) {
        const name = String(call.name ?? '');
        if (!(IMAGE_TOOL_NAMES as readonly string[]).includes(name)) return invalid(`Unknown tool name: ${name}`, memory);
        const args = truthy(call.arguments) ? call.arguments : {};
        if (typeof args !== 'object' || args === null || Array.isArray(args)) return invalid('Tool arguments must be an object.', memory);
        let ran: Awaited<ReturnType<typeof runCall>>;
        try {
          ran = await runCall(call, name, args as Record<string, unknown>, next, images);
        } catch (e) {
          return invalid(`${name} failed: ${(e as Error).message}`, memory);
        }
        const file = await save(ran.out.png, next.dataset);
        let warning: string | undefined;
        if (ran.exact) {
          warning = 'You already requested this exact tool call. Use the evidence you have and provide the final answer.';
        } else if (ran.nearIou !== undefined) {
          warning = `This region heavily overlaps a previous ${name} result (IoU=${ran.nearIou.toFixed(2)}). Use the evidence you have and provide the final answer.`;
        }
        if (warning === undefined) reward += settings.tool_success_reward;
        else {
          reward += settings.duplicate_tool_call_penalty;
          forceFinal = settings.force_final_after_duplicate;
        }
        const shown = { ok: true, ...ran.out.result, new_img_indices: [images.length], ...(warning === undefined ? {} : { warning }) };
        parts.push({ type: 'text', text: jsonDumps(shown, { ensureAscii: false }) + '\n' }, { type: 'image', image: file }, { type: 'text', text: '\n' });
        images.push(file);
        next.image_paths = images;
        next.crop_paths.push(file);
        next.tool_call_count += 1;
      }
      if (calls.length > selected.length) {
        parts.push({ type: 'text', text: `Only the first ${selected.length} tool call(s) were executed this turn. Call tools one turn at a time.\n` });
      }
      parts.push({ type: 'text', text: '</tool_response>' });
      next.force_final_next = forceFinal;
      return { observation: parts, reward, done: false, memory: next };
    },
  };
}

/** An image file as the data URI the model is shown: decoded and encoded again, as NeMo Gym's _pil_to_data_url does. */
export async function imageDataUri(file: string, format: ImageToolsAgentSettings['crop_format']): Promise<string> {
  const png = format === 'png';
  // PIL's save defaults: JPEG quality 75.
  const bytes = await (png ? sharp(file).removeAlpha().png() : sharp(file).removeAlpha().jpeg({ quality: 75 })).toBuffer();
  return `data:image/${png ? 'png' : format};base64,${bytes.toString('base64')}`;
}
