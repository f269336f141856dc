// The notebook environments' shared parts: cell indexes read as Python reads them, outputs kept without their
// image bytes, the .ipynb file, the per-process sessions, and the jailed runner's two modes, failures included.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cellIndex, newCodeCell, notebookFile, pyPosition, withoutImages } from '../../src/environments/notebook/cells';
import { LiveKernel, runNotebook, type KernelSettings } from '../../src/environments/notebook/kernel';
import { SessionPool } from '../../src/environments/notebook/sessions';

const CAPSULE = path.resolve(import.meta.dirname, '../../src/environments/aviary_bixbench/data/standin/CapsuleData-9b7e2a64-1d3c-4f85-a0e6-2c4d8f1b3a97');
const JAILED: KernelSettings = { isolation: 'bwrap', memoryBytes: 8 * 1024 ** 3 };

describe('notebook cells', () => {
  it("reads a cell index as Python's int() does, None where it raises", () => {
    expect([null, 3, -2, 2.9, -2.9, true, false, '4', ' -1 ', '1_0', '٣', '1.5', 'x', ''].map((i) => cellIndex(i))).toEqual([null, 3, -2, 2, -2, 1, 0, 4, -1, 10, 3, null, null, null]);
    expect([0, 2, -1, -3, 3, -4].map((i) => pyPosition(i, 3))).toEqual([0, 2, 2, 0, null, null]);
  });

  it('keeps an image output its place and type but not its bytes', () => {
    const outputs = [
      { output_type: 'display_data', data: { 'image/png': 'iVBORw0KGgo=', 'text/plain': '<Figure>' } },
      { output_type: 'stream', name: 'stdout', text: 'x' },
    ];
    expect(withoutImages(outputs)).toEqual([{ output_type: 'display_data', data: { 'image/png': '', 'text/plain': '<Figure>' } }, outputs[1]]);
  });

  it('writes an nbformat 4 notebook with the Python kernelspec Aviary names', () => {
    const file = JSON.parse(notebookFile([newCodeCell('print(1)'), { cell_type: 'markdown', source: '# t', outputs: [] }]));
    expect(file).toEqual({
      cells: [
        { cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: 'print(1)' },
        { cell_type: 'markdown', metadata: {}, source: '# t' },
      ],
      metadata: { kernelspec: { name: 'python', display_name: 'Python 3 (ipykernel)', language: 'python' } },
      nbformat: 4,
      nbformat_minor: 4,
    });
  });
});

describe('notebook sessions and the jailed runner', () => {
  it('copies the capsule per session, evicts the least recently used, and removes what it closes', async () => {
    const pool = new SessionPool({ at: '/workspace', idleMs: 600_000, max: 2, jailed: true });
    const a = await pool.create('a', CAPSULE);
    const b = await pool.create('b', CAPSULE);
    expect(existsSync(path.join(a.folders.workspace, 'raw/sites.csv'))).toBe(true);
    pool.get('a');
    await pool.create('c', CAPSULE);
    expect([pool.get('a'), pool.get('b'), pool.get('c')].map((s) => s?.id)).toEqual(['a', undefined, 'c']);
    expect(existsSync(b.folders.workspace)).toBe(false);
    await pool.close('a');
    await pool.close('c');
    expect(existsSync(a.folders.workspace)).toBe(false);
  });

  it('runs a notebook in place, and says so when it cannot read it', { timeout: 60_000 }, async () => {
    const pool = new SessionPool({ at: '/workspace', idleMs: 600_000, max: 4, jailed: true });
    const session = await pool.create('nb', CAPSULE);
    await pool.writeFile(session, 'notebook.ipynb', notebookFile([newCodeCell("import os\nprint(os.getcwd())\nsorted(os.listdir('.'))")]));
    const run = await runNotebook(session.folders, 'notebook.ipynb', JAILED, 60_000);
    expect(run).toMatchObject({ status: 'done', cells: [{ source: "import os\nprint(os.getcwd())\nsorted(os.listdir('.'))" }] });
    const outputs = run.status === 'done' ? run.cells[0]!.outputs : [];
    expect(outputs.map((o) => o.output_type)).toEqual(['stream', 'execute_result']);
    expect(outputs[0]!.text).toBe('/workspace\n');
    expect(outputs[1]!.data).toEqual({ 'text/plain': "['notebook.ipynb', 'raw', 'trial.csv']" });
    await pool.writeFile(session, 'notebook.ipynb', 'not a notebook');
    expect(await runNotebook(session.folders, 'notebook.ipynb', JAILED, 60_000)).toMatchObject({ status: 'failed', exitCode: 1 });
    await pool.close('nb');
  });

  it('keeps a live kernel, says when the code killed it, and refuses code once closed', { timeout: 60_000 }, async () => {
    const pool = new SessionPool({ at: '/data_workspace', idleMs: 600_000, max: 4, jailed: true });
    const session = await pool.create('live', CAPSULE);
    const kernel = await LiveKernel.start(session.folders, JAILED, 60_000);
    expect(await kernel.execute('n = 6\nn * 7', 10)).toMatchObject({ outputs: [{ output_type: 'execute_result', data: { 'text/plain': '42' } }], error: false });
    expect(await kernel.execute('import os\nos._exit(3)', 10)).toMatchObject({ died: true, error: true, outputs: [{ ename: 'DeadKernelError' }] });
    kernel.close();
    expect(kernel.alive).toBe(false);
    await expect(kernel.execute('1', 10)).rejects.toThrow(/the notebook kernel is gone/);
    await pool.close('live');
  });
});
