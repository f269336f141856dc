// A client for the HTTP server OSWorld runs inside its desktop VM (desktop_env/server, port 5000): the
// endpoints DesktopEnv's PythonController and SetupController call, sent as they send them.
import { GymError } from '../../errors';

/** What /execute and /setup/execute answer. */
export interface CommandResult {
  status?: string;
  output: string;
  error: string;
  returncode?: number;
}

export interface DesktopOptions {
  /** The desktop server's base URL, e.g. http://<vm>:5000. */
  url: string;
  /** Per-request timeout; a screenshot or command that takes longer is a failed request. */
  timeoutMs: number;
}

// DesktopEnv's PythonController wraps every pyautogui action in this prefix before sending it to /execute.
const PYAUTOGUI_PREFIX = 'import pyautogui; import time; pyautogui.FAILSAFE = False; ';

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];

function startsWith(bytes: Uint8Array, magic: number[]): boolean {
  return bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b);
}

export class Desktop {
  constructor(readonly options: DesktopOptions) {}

  private async request(path: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(path.replace(/^\//, ''), this.options.url.endsWith('/') ? this.options.url : `${this.options.url}/`);
    let response: Response;
    try {
      response = await fetch(url, { ...init, signal: AbortSignal.timeout(this.options.timeoutMs) });
    } catch (e) {
      throw new GymError('ENV_ERROR', `osworld: the desktop server at ${this.options.url} did not answer ${path}: ${(e as Error).message}`);
    }
    if (!response.ok) {
      const body = (await response.text().catch(() => '')).slice(0, 300);
      throw new GymError('ENV_ERROR', `osworld: the desktop server answered ${path} with HTTP ${response.status}${body ? `: ${body}` : ''}`);
    }
    return response;
  }

  private json(path: string, body: unknown): Promise<Response> {
    return this.request(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  }

  /** GET /screenshot: the screen as PNG (or JPEG) bytes; anything else is refused as OSWorld's controller refuses it. */
  async screenshot(): Promise<Uint8Array> {
    const response = await this.request('/screenshot');
    const bytes = new Uint8Array(await response.arrayBuffer());
    const type = response.headers.get('content-type') ?? '';
    if (startsWith(bytes, PNG) || startsWith(bytes, JPEG) || (bytes.length > 0 && /image\/(png|jpe?g)/.test(type))) return bytes;
    throw new GymError('ENV_ERROR', `osworld: the desktop server's /screenshot is not a PNG or JPEG image (${bytes.length} bytes, ${type || 'no content type'})`);
  }

  /** GET /accessibility: the accessibility tree's XML (the reply's `AT`). */
  async accessibilityTree(): Promise<string> {
    const body = (await (await this.request('/accessibility')).json()) as { AT?: unknown };
    return typeof body.AT === 'string' ? body.AT : JSON.stringify(body.AT ?? null);
  }

  /** POST /execute: runs a pyautogui action (with DesktopEnv's prefix) as `python -c`. */
  async runPython(command: string): Promise<CommandResult> {
    return (await this.json('/execute', { command: ['python', '-c', PYAUTOGUI_PREFIX + command], shell: false })).json() as Promise<CommandResult>;
  }

  /** POST /execute with a command as given (OSWorld's vm_command_line getter sends it without the prefix). */
  async executeRaw(command: string | string[], shell = false): Promise<CommandResult> {
    return (await this.json('/execute', { command, shell })).json() as Promise<CommandResult>;
  }

  /** GET /terminal: the terminal's text (the reply's `output`). */
  async terminal(): Promise<string | null> {
    const body = (await (await this.request('/terminal')).json()) as { output?: unknown };
    return typeof body.output === 'string' ? body.output : null;
  }

  /** POST /file: a file of the VM's, by path. */
  async file(filePath: string): Promise<Uint8Array> {
    const response = await this.request('/file', { method: 'POST', body: new URLSearchParams({ file_path: filePath }) });
    return new Uint8Array(await response.arrayBuffer());
  }

  /** POST /setup/launch: starts a program and does not wait for it. */
  async launch(command: string | string[], shell = false): Promise<void> {
    await this.json('/setup/launch', { command, shell });
  }

  /** POST /setup/execute: runs a command and answers its output. */
  async execute(command: string | string[], shell = false): Promise<CommandResult> {
    return (await this.json('/setup/execute', { command, shell })).json() as Promise<CommandResult>;
  }

  /** POST /setup/open_file: opens a file with its application. */
  async openFile(filePath: string): Promise<void> {
    await this.json('/setup/open_file', { path: filePath });
  }

  /** POST /setup/activate_window and /setup/close_window. */
  async window(action: 'activate' | 'close', windowName: string, strict = false, byClass = false): Promise<void> {
    await this.json(`/setup/${action}_window`, { window_name: windowName, strict, by_class: byClass });
  }

  /** POST /setup/upload: writes bytes to a path in the VM (multipart, as SetupController sends downloaded files). */
  async upload(filePath: string, data: Uint8Array): Promise<void> {
    const form = new FormData();
    form.set('file_path', filePath);
    form.set('file_data', new Blob([data]), filePath.split('/').pop() || 'file');
    await this.request('/setup/upload', { method: 'POST', body: form });
  }
}
