// A FAKE OSWorld desktop, for tests only (OSWorld's Ubuntu VM needs KVM and a 30 GB image these machines do not
// have): on loopback it speaks the HTTP API of the server OSWorld runs inside the VM (desktop_env/server, port
// 5000) — GET /screenshot, /accessibility, /terminal; POST /execute, /file, /setup/launch, /setup/execute,
// /setup/open_file, /setup/activate_window, /setup/close_window, /setup/upload — with the request and reply shapes
// DesktopEnv's controllers use. Behind it is a tiny scripted desktop: Chrome's search-engine settings page, whose
// "Make Bing default" button (a box on the screen and an element of the accessibility tree) sets the Preferences
// file OSWorld's default_search_engine getter reads. pyautogui is not run: the fake reads the click calls out of
// the Python it is sent. Everything received is kept, in order, for the test to read.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

export const PREFERENCES = '/home/user/.config/google-chrome/Default/Preferences';
/** The Bing button: left, top, width, height in screen pixels. */
export const BING_BUTTON = { x: 1190, y: 708, width: 100, height: 30 } as const;

export interface FakeRequest {
  method: string;
  path: string;
  /** The JSON body, the form fields, or null. */
  body: unknown;
}

export interface FakeDesktopOptions {
  /** Paths answered with HTTP 500, to make a step or the evaluator fail. */
  failing?: string[];
  /** Answer /screenshot with bytes that are not an image. */
  brokenScreenshot?: boolean;
}

export interface FakeDesktop {
  url: string;
  received: FakeRequest[];
  /** Files of the VM by path (the Preferences file among them). */
  files: Map<string, Uint8Array>;
  /** The default search engine the scripted Chrome is set to. */
  searchEngine(): string;
  /** A fresh VM: Preferences back to Google, nothing received. */
  reset(): void;
  failing: Set<string>;
  stop(): Promise<void>;
}

function preferences(engine: string): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ default_search_provider_data: { template_url_data: { short_name: engine, keyword: engine.toLowerCase() } } }));
}

function accessibilityTree(): string {
  const b = BING_BUTTON;
  return [
    '<desktop-frame name="main" x="0" y="0" width="1920" height="1080">',
    '  <push-button name="Make Google default" x="1190" y="660" width="100" height="30" showing="true"/>',
    `  <push-button name="Make Bing default" x="${b.x}" y="${b.y}" width="${b.width}" height="${b.height}" showing="true"/>`,
    '</desktop-frame>',
  ].join('\n');
}

const CLICK = /pyautogui\.click\(\s*(?:x\s*=\s*)?(\d+)\s*,\s*(?:y\s*=\s*)?(\d+)/g;

export async function startFakeOSWorldDesktop(options: FakeDesktopOptions = {}): Promise<FakeDesktop> {
  const files = new Map<string, Uint8Array>();
  const received: FakeRequest[] = [];
  const failing = new Set(options.failing ?? []);
  // One small PNG per state, so a screenshot shows which engine is set.
  const png = async (rgb: [number, number, number]) =>
    sharp({ create: { width: 64, height: 36, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } })
      .png()
      .toBuffer();
  const screens = { Google: await png([66, 133, 244]), Bing: await png([0, 128, 96]) };
  const engine = () => JSON.parse(new TextDecoder().decode(files.get(PREFERENCES)!)).default_search_provider_data.template_url_data.short_name as string;
  const reset = () => {
    files.clear();
    files.set(PREFERENCES, preferences('Google'));
    received.length = 0;
  };
  reset();

  /** The scripted desktop's answer to one Python program sent to /execute. */
  function runPython(program: string): { output: string; error: string; returncode: number } {
    if (program.includes('print(platform.system())')) return { output: 'Linux\n', error: '', returncode: 0 };
    if (program.includes(".config/google-chrome/Default/Preferences'))")) return { output: `${PREFERENCES}\n`, error: '', returncode: 0 };
    for (const m of program.matchAll(CLICK)) {
      const [x, y] = [Number(m[1]), Number(m[2])];
      const b = BING_BUTTON;
      if (x >= b.x && x < b.x + b.width && y >= b.y && y < b.y + b.height) files.set(PREFERENCES, preferences('Bing'));
    }
    return { output: '', error: '', returncode: 0 };
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const type = req.headers['content-type'] ?? '';
    let body: unknown = null;
    if (type.startsWith('application/json')) body = JSON.parse(raw.toString('utf8'));
    else if (type.startsWith('application/x-www-form-urlencoded')) body = Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
    else if (type.startsWith('multipart/form-data')) {
      const form = await new Request('http://fake', { method: 'POST', headers: { 'content-type': type }, body: raw }).formData();
      const file = form.get('file_data') as Blob;
      body = { file_path: form.get('file_path'), file_data: new Uint8Array(await file.arrayBuffer()) };
    }
    received.push({ method: req.method ?? 'GET', path: url.pathname, body });
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (failing.has(url.pathname)) return json(500, { status: 'error', message: 'FAKE failure' });
    const route = `${req.method} ${url.pathname}`;
    switch (route) {
      case 'GET /screenshot':
        res.writeHead(200, { 'content-type': options.brokenScreenshot ? 'text/plain' : 'image/png' });
        return void res.end(options.brokenScreenshot ? 'not an image' : engine() === 'Bing' ? screens.Bing : screens.Google);
      case 'GET /accessibility':
        return json(200, { AT: accessibilityTree() });
      case 'GET /terminal':
        return json(200, { output: '' });
      case 'POST /execute': {
        const { command } = body as { command: string | string[] };
        const program = Array.isArray(command) ? (command[0] === 'python' && command[1] === '-c' ? command[2]! : command.join(' ')) : command;
        return json(200, { status: 'success', ...runPython(program) });
      }
      case 'POST /file': {
        const file = files.get(String((body as { file_path?: unknown }).file_path));
        if (!file) return json(404, { error: 'File not found' });
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return void res.end(file);
      }
      case 'POST /setup/upload': {
        const { file_path, file_data } = body as { file_path: string; file_data: Uint8Array };
        files.set(file_path, file_data);
        return void res.end('File Uploaded');
      }
      case 'POST /setup/launch':
        return void res.end('launched');
      case 'POST /setup/execute':
        return json(200, { status: 'success', output: '', error: '', returncode: 0 });
      case 'POST /setup/open_file':
      case 'POST /setup/activate_window':
      case 'POST /setup/close_window':
        return void res.end('ok');
      default:
        return json(404, { error: `FAKE desktop has no ${route}` });
    }
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e: Error) => {
      res.writeHead(500);
      res.end(e.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    files,
    failing,
    searchEngine: engine,
    reset,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
