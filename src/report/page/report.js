// The report page's script: unpacks the embedded rows (gzip'd JSON) and shows them a page at a time, with a
// search over ids, reasons, messages, verdicts, prompts and transcripts; only the visible page is in the DOM.
(async function () {
  'use strict';
  const PAGE_SIZE = 50;
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => '&#' + c.charCodeAt(0) + ';');

  async function load() {
    const b64 = document.getElementById('gf-data').textContent.trim();
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return JSON.parse(await new Response(stream).text());
  }

  const D = await load();
  const str = (i) => (i < 0 ? '' : D.strings[i]);
  const fmt = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(4));

  /** Tasks whose prompt contains the query: a row of such a task matches too. */
  function matchingTasks(q) {
    const tasks = new Set();
    for (const [task, prompt] of Object.entries(D.prompts)) if (prompt.toLowerCase().includes(q)) tasks.add(Number(task));
    return tasks;
  }

  const KINDS = {
    failures: {
      cols: D.failures,
      n: D.failures.id.length,
      head: ['rollout', 'task', 'repeat', 'class', 'stage', 'attempt', 'message', 'verdict'],
      cells: (c, i) => [c.id[i], c.task[i], c.repeat[i], str(c.failureClass[i]), str(c.stage[i]), c.attempt[i], c.message[i], str(c.verdict[i])],
      text: (c, i) => [c.id[i], str(c.failureClass[i]), str(c.stage[i]), c.message[i], str(c.verdict[i]), c.transcript[i]].join('\n'),
      detail: (c, i) => 'failed at ' + c.failedAt[i] + ' after attempt ' + c.attempt[i] + ': ' + c.message[i],
    },
    rollouts: {
      cols: D.rollouts,
      n: D.rollouts.id.length,
      head: ['rollout', 'task', 'repeat', 'reward', 'failure_reason', 'agent', 'model', 'verdict'],
      cells: (c, i) => [c.id[i], c.task[i], c.repeat[i], fmt(c.reward[i]), str(c.reason[i]), str(c.agent[i]), str(c.model[i]), str(c.verdict[i])],
      text: (c, i) => [c.id[i], str(c.reason[i]), str(c.model[i]), str(c.verdict[i]), c.verdictDetail[i], c.transcript[i]].join('\n'),
      detail: (c, i) => (c.verdictDetail[i] ? 'verdict ' + str(c.verdict[i]) + ': ' + c.verdictDetail[i] : ''),
    },
  };

  function mount(section) {
    const kind = KINDS[section.dataset.kind];
    const c = kind.cols;
    let haystack = null;
    let matches = null; // indices of matching rows, null for all
    let page = 0;
    let open = -1;

    section.insertAdjacentHTML(
      'beforeend',
      '<div class="controls"><input class="search" type="search" placeholder="search ids, reasons, messages, prompts, transcripts">' +
        '<button class="prev">‹ prev</button><span class="page"></span><button class="next">next ›</button><span class="count muted"></span></div>' +
        '<table><thead><tr>' +
        kind.head.map((h) => '<th>' + esc(h) + '</th>').join('') +
        '</tr></thead><tbody></tbody></table>',
    );
    const tbody = section.querySelector('tbody');
    const total = () => (matches ? matches.length : kind.n);
    const pages = () => Math.max(1, Math.ceil(total() / PAGE_SIZE));

    function render() {
      const rows = [];
      const start = page * PAGE_SIZE;
      for (let j = start; j < Math.min(total(), start + PAGE_SIZE); j++) {
        const i = matches ? matches[j] : j;
        const cells = kind.cells(c, i).map((v, k) => '<td' + (k === 6 && section.dataset.kind === 'failures' ? ' class="msg"' : '') + '>' + esc(v) + '</td>');
        rows.push('<tr class="row" data-i="' + i + '">' + cells.join('') + '</tr>');
        if (i === open) {
          const prompt = D.prompts[c.task[i]] || '';
          const extra = kind.detail(c, i);
          rows.push(
            '<tr class="detail"><td colspan="' +
              kind.head.length +
              '"><pre>' +
              esc((extra ? extra + '\n\n' : '') + '[prompt] ' + prompt + '\n\n' + (c.transcript[i] || '(no turns recorded)')) +
              '</pre></td></tr>',
          );
        }
      }
      tbody.innerHTML = rows.join('') || '<tr><td colspan="' + kind.head.length + '" class="muted">no rows</td></tr>';
      section.querySelector('.page').textContent = 'page ' + (page + 1) + ' of ' + pages();
      section.querySelector('.count').textContent = total() + (matches ? ' matching of ' + kind.n : ' rows');
      section.querySelector('.prev').disabled = page === 0;
      section.querySelector('.next').disabled = page >= pages() - 1;
    }

    function search(q) {
      q = q.trim().toLowerCase();
      page = 0;
      if (!q) {
        matches = null;
        return render();
      }
      if (!haystack) {
        haystack = new Array(kind.n);
        for (let i = 0; i < kind.n; i++) haystack[i] = kind.text(c, i).toLowerCase();
      }
      const tasks = matchingTasks(q);
      const found = [];
      for (let i = 0; i < kind.n; i++) if (haystack[i].includes(q) || tasks.has(c.task[i])) found.push(i);
      matches = found;
      render();
    }

    let timer = 0;
    section.querySelector('.search').addEventListener('input', (e) => {
      clearTimeout(timer);
      timer = setTimeout(() => search(e.target.value), 150);
    });
    section.querySelector('.prev').addEventListener('click', () => {
      page = Math.max(0, page - 1);
      render();
    });
    section.querySelector('.next').addEventListener('click', () => {
      page = Math.min(pages() - 1, page + 1);
      render();
    });
    tbody.addEventListener('click', (e) => {
      const tr = e.target.closest('tr.row');
      if (!tr) return;
      const i = Number(tr.dataset.i);
      open = open === i ? -1 : i;
      render();
    });
    render();
  }

  document.querySelectorAll('section.rows').forEach(mount);
  document.body.dataset.ready = 'true';
})().catch((e) => {
  document.body.dataset.ready = 'error';
  document.body.insertAdjacentHTML('afterbegin', '<p style="color:#b00">The report could not unpack its rows: ' + String(e) + '</p>');
});
