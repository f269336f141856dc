// Each rollout's notebook session in this process: its workspace (a copy of the task's data capsule), a
// scratch /tmp and, for environments that keep one, a live kernel. A session this process does not hold
// (another worker played the earlier calls, or it restarted) is built again from the episode's state.
import { chownSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jailUser } from '../../sandboxes/local/bwrap';
import type { KernelFolders, LiveKernel } from './kernel';

export interface Session {
  readonly id: string;
  readonly folders: KernelFolders;
  kernel?: LiveKernel;
  /** The code the live kernel has run since it started, in order: what the episode's state must match. */
  executed: string[];
}

interface Held {
  session: Session;
  root: string;
  timer: NodeJS.Timeout;
}

const roots = new Set<string>();
let cleanupInstalled = false;

/** Whatever sessions a process still holds when it exits are removed with it. */
function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.once('exit', () => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });
}

/** Gives a folder tree to the jail's user, who must write the workspace (and nothing else of the host). */
function chownTree(dir: string, owner: { uid: number; gid: number }): void {
  chownSync(dir, owner.uid, owner.gid);
  for (const entry of readdirSync(dir)) {
    const child = path.join(dir, entry);
    if (lstatSync(child).isDirectory()) chownTree(child, owner);
    else chownSync(child, owner.uid, owner.gid);
  }
}

export interface SessionPoolOptions {
  /** Where the workspace appears inside the jail (its working directory). */
  at: string;
  /** A session unused this long is closed: its kernel stopped, its folders removed. */
  idleMs: number;
  /** Sessions held at once; the least recently used goes first. */
  max: number;
  /** Whether the folders are given to the jail's user (bubblewrap as root). */
  jailed: boolean;
}

export class SessionPool {
  private readonly held = new Map<string, Held>();

  constructor(private readonly options: SessionPoolOptions) {}

  /** The session, if this process holds it; its idle clock starts again. */
  get(id: string): Session | undefined {
    const held = this.held.get(id);
    if (!held) return undefined;
    this.held.delete(id);
    this.held.set(id, held);
    held.timer.refresh();
    return held.session;
  }

  /** A new session for `id` (replacing one held), its workspace a copy of `capsule`. */
  async create(id: string, capsule: string): Promise<Session> {
    await this.close(id);
    installCleanup();
    const root = await mkdtemp(path.join(tmpdir(), 'gymflow-notebook-'));
    roots.add(root);
    const folders: KernelFolders = { workspace: path.join(root, 'workspace'), scratch: path.join(root, 'tmp'), at: this.options.at };
    try {
      // The jail's user must reach its folders through the root.
      await chmod(root, 0o755);
      await cp(capsule, folders.workspace, { recursive: true });
      await mkdir(folders.scratch);
      const owner = this.options.jailed ? jailUser() : undefined;
      if (owner) {
        chownTree(folders.workspace, owner);
        chownTree(folders.scratch, owner);
      }
    } catch (e) {
      roots.delete(root);
      await rm(root, { recursive: true, force: true });
      throw e;
    }
    const session: Session = { id, folders, executed: [] };
    const timer = setTimeout(() => void this.close(id), this.options.idleMs).unref();
    this.held.set(id, { session, root, timer });
    while (this.held.size > this.options.max) await this.close(this.held.keys().next().value!);
    return session;
  }

  /** Writes a file of the workspace (the notebook, its markdown view) as the jail's user, who may rewrite it. */
  async writeFile(session: Session, name: string, content: string): Promise<void> {
    const file = path.join(session.folders.workspace, name);
    await writeFile(file, content);
    const owner = this.options.jailed ? jailUser() : undefined;
    if (owner) chownSync(file, owner.uid, owner.gid);
  }

  /** Stops the session's kernel and removes its folders. */
  async close(id: string): Promise<void> {
    const held = this.held.get(id);
    if (!held) return;
    this.held.delete(id);
    clearTimeout(held.timer);
    held.session.kernel?.close();
    roots.delete(held.root);
    await rm(held.root, { recursive: true, force: true });
  }
}
