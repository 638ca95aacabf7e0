import { createHash } from 'node:crypto';
import type { DASHBOARD_PAGES } from '@rota/contracts';

/**
 * The dashboard pages: self-contained HTML (no outside script, style or
 * font), each reading its data from `/dashboard/data/{view}` with the
 * dashboard cookie. Without a cookie a page asks for a key once and trades
 * it for the cookie at `POST /dashboard/session`; the key is not kept.
 */

type Page = (typeof DASHBOARD_PAGES)[number];

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:10px 20px;display:flex;gap:18px;align-items:center}
header a{color:#cfd6e4;text-decoration:none}header a.on{color:#fff;font-weight:600}
main{padding:20px;max-width:1200px}table{border-collapse:collapse;width:100%;background:#fff}
th,td{padding:6px 10px;border-bottom:1px solid #e3e6eb;text-align:left;vertical-align:top}th{background:#eef0f4}
.status{display:inline-block;padding:2px 10px;border-radius:10px;font-weight:600}
.healthy,.ok-true{background:#d9f2e3;color:#11643a}.degraded{background:#fff0cc;color:#7a5300}.down,.ok-false{background:#fbdada;color:#8a1c1c}
#login{max-width:420px;background:#fff;padding:20px;border-radius:6px}input[type=password],input[type=text]{width:100%;padding:6px;box-sizing:border-box}
button{padding:4px 10px;margin-right:4px}.mark-claimed{background:#d9f2e3}.mark-deferred{background:#fff0cc}.mark-rejected{background:#fbdada}
.err{color:#8a1c1c}`;

const NAV: [Page, string][] = [
  ['health', 'Health'],
  ['triggers', 'Triggers'],
  ['router', 'Router'],
  ['router-candidates', 'Candidates'],
  ['queues', 'Queues'],
];

/** Shared by every page: the login exchange and a JSON reader that asks for a key on 401. */
const COMMON = `
const $ = (s) => document.querySelector(s);
const esc = (v) => String(v ?? '').replace(/[&<>"']/g, (c) => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]));
function showLogin() {
  $('#app').innerHTML = '<form id="login"><p>Sign in with an API key. It is exchanged for a short-lived cookie and not kept.</p>'
    + '<input type="password" id="key" autocomplete="off" placeholder="csk_live_…" required> <p><button type="submit">Sign in</button> <span id="login-error" class="err"></span></p></form>';
  $('#login').addEventListener('submit', async (e) => {
    e.preventDefault();
    const res = await fetch('/dashboard/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: $('#key').value }), credentials: 'same-origin' });
    if (res.status === 204) location.reload(); else $('#login-error').textContent = res.status === 429 ? 'Too many attempts; wait a minute.' : 'That key was not accepted.';
  });
}
async function data(view) {
  const res = await fetch('/dashboard/data/' + view, { credentials: 'same-origin' });
  if (res.status === 401) { showLogin(); return null; }
  const body = await res.json();
  if (!res.ok) { $('#app').innerHTML = '<p class="err" id="error">' + esc(body.message || body.error) + '</p>'; return null; }
  return body;
}`;

const SCRIPTS: Record<Page, string> = {
  health: `
(async () => {
  const h = await data('health'); if (!h) return;
  const rows = Object.entries(h.checks).map(([name, c]) => '<tr data-check="' + esc(name) + '"><td>' + esc(name) + '</td><td><span class="status ok-' + c.ok + '">' + esc(c.status) + '</span></td><td>' + esc(c.scope) + '</td><td>' + esc(c.message || '') + '</td><td>' + c.ms + ' ms</td></tr>').join('');
  const conn = h.checks.connections;
  $('#app').innerHTML = '<h2>Status: <span id="overall" class="status ' + esc(h.status) + '">' + esc(h.status) + '</span></h2>'
    + '<p>Evaluated ' + esc(h.evaluated_at) + (h.project_id ? ' for ' + esc(h.project_id) + ' (' + esc(h.environment) + ')' : ' (deployment)') + '.</p>'
    + '<table id="checks"><tr><th>Check</th><th>Status</th><th>Scope</th><th>What is off</th><th>Took</th></tr>' + rows + '</table>'
    + '<h3>Connections</h3><div id="connections">' + (conn ? (conn.count ?? 0) + ' provider(s) connected: ' + (conn.providers.map(esc).join(', ') || 'none') : 'An operator key has no project connections.') + '</div>'
    + '<p><a id="triggers-link" href="/dashboard/triggers?event=system.health.degraded">Page on system.health.degraded →</a></p>';
})();`,
  triggers: `
const matches = (filter, name) => filter === '*' || filter === name || (filter.endsWith('.*') && name.startsWith(filter.slice(0, -1)));
(async () => {
  const t = await data('triggers'); if (!t) return;
  const params = new URLSearchParams(location.search);
  $('#app').innerHTML = '<label>Event <input type="text" id="event-filter" value="' + esc(params.get('event') || '') + '"></label><table id="webhooks"></table>';
  const render = () => {
    const want = $('#event-filter').value.trim();
    const list = t.webhooks.filter((w) => !want || w.events.some((f) => matches(f, want) || f === want));
    $('#webhooks').innerHTML = '<tr><th>Webhook</th><th>URL</th><th>Events</th><th>Latest deliveries</th></tr>' + list.map((w) => '<tr data-webhook="' + esc(w.id) + '"><td>' + esc(w.id) + '</td><td>' + esc(w.url) + '</td><td>' + w.events.map(esc).join(', ') + '</td><td>'
      + w.deliveries.map((d) => esc(d.event_type) + ': <span class="status ' + (d.status === 'delivered' ? 'healthy' : d.status === 'dead' ? 'down' : 'degraded') + '">' + esc(d.status) + '</span> (' + d.attempts.length + ' attempt(s))').join('<br>') + '</td></tr>').join('')
      + (list.length ? '' : '<tr><td colspan="4" id="no-webhooks">No webhook listens to this event. Create one with POST /v1/webhooks {"url", "events": ["' + esc(want || 'system.health.*') + '"]}.</td></tr>');
  };
  $('#event-filter').addEventListener('input', render);
  render();
})();`,
  router: `
function spark(values) {
  const v = values.map((x) => x ?? 0), max = Math.max(1, ...v), w = 120, h = 24;
  const pts = v.map((x, i) => (i * w / Math.max(1, v.length - 1)).toFixed(1) + ',' + (h - x / max * h).toFixed(1)).join(' ');
  return '<svg class="spark" width="' + w + '" height="' + h + '" viewBox="0 0 ' + w + ' ' + h + '"><polyline fill="none" stroke="#2a62c9" stroke-width="1.5" points="' + pts + '"/></svg>';
}
(async () => {
  const m = await data('router'); if (!m) return;
  // Busiest first; pairs nobody called in the window are folded away below.
  const sorted = m.rows.slice().sort((a, b) => b.attempts - a.attempts || a.provider_id.localeCompare(b.provider_id) || a.tool.localeCompare(b.tool));
  const head = '<tr><th>Provider</th><th>Tool</th><th>Attempts</th><th>Success</th><th>p50</th><th>Last error</th><th>Latency, 24 h</th></tr>';
  const row = (r) => '<tr data-pair="' + esc(r.provider_id + '|' + r.tool) + '"><td>' + esc(r.provider_id) + '</td><td>' + esc(r.tool) + '</td><td class="attempts">' + r.attempts + '</td><td>' + (r.success_rate === null ? '–' : (r.success_rate * 100).toFixed(1) + ' %') + '</td><td>' + (r.latency_p50_ms ?? '–') + (r.latency_p50_ms === null ? '' : ' ms') + '</td><td>' + esc(r.last_error_code || '') + '</td><td>' + spark(r.latency_24h) + '</td></tr>';
  const busy = sorted.filter((r) => r.attempts > 0), idle = sorted.filter((r) => r.attempts === 0);
  $('#app').innerHTML = '<p>Since ' + esc(m.window_start) + '.</p><table id="rows">' + head + busy.map(row).join('')
    + (busy.length ? '' : '<tr><td colspan="7" id="no-attempts">No attempts in this window.</td></tr>') + '</table>'
    + (idle.length ? '<details id="idle"><summary>' + idle.length + ' provider and tool pair(s) with no attempts</summary><table id="idle-rows">' + head + idle.map(row).join('') + '</table></details>' : '');
})();`,
  'router-candidates': `
let report = null, checksum = null, marks = {};
const storeKey = () => 'rota:candidates:' + checksum;
function render() {
  const list = report.candidates;
  $('#list').innerHTML = '<p id="summary">' + list.length + ' candidates, report ' + esc(checksum.slice(0, 12)) + '</p><table><tr><th>Tool</th><th>Meta-tool</th><th>Why</th><th>Mark</th></tr>' + list.map((c) => {
    const id = c.id; const m = marks[id] || '';
    return '<tr data-candidate="' + esc(id) + '" class="mark-' + esc(m) + '"><td>' + esc(c.tool || id) + '</td><td>' + esc(c.meta_tool || '') + '</td><td>' + esc(c.reason || '') + '</td><td>'
      + ['claimed', 'deferred', 'rejected'].map((s) => '<button data-mark="' + s + '"' + (m === s ? ' disabled' : '') + '>' + s + '</button>').join('') + '</td></tr>';
  }).join('') + '</table>';
}
async function load(text) {
  const parsed = JSON.parse(text);
  const candidates = (Array.isArray(parsed) ? parsed : parsed.candidates || []).map((c, i) => ({ ...c, id: String(c.id ?? ((c.server_id || '') + '/' + (c.tool || i))) }));
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  checksum = parsed.checksum || Array.from(new Uint8Array(digest)).map((b) => b.toString(16).padStart(2, '0')).join('');
  report = { candidates };
  marks = JSON.parse(localStorage.getItem(storeKey()) || '{}');
  sessionStorage.setItem('rota:candidates:last', text);
  render();
}
$('#app').innerHTML = '<p>Drop or pick the JSON report of <code>rota router candidates</code>. It stays in this browser.</p><input type="file" id="report" accept="application/json"> <button id="export">Export claimed</button><div id="list"></div><pre id="exported"></pre>';
$('#report').addEventListener('change', async (e) => { const f = e.target.files[0]; if (f) await load(await f.text()); });
document.addEventListener('drop', async (e) => { e.preventDefault(); const f = e.dataTransfer.files[0]; if (f) await load(await f.text()); });
document.addEventListener('dragover', (e) => e.preventDefault());
$('#list').addEventListener('click', (e) => {
  const b = e.target.closest('button[data-mark]'); if (!b) return;
  marks[b.closest('tr').dataset.candidate] = b.dataset.mark;
  localStorage.setItem(storeKey(), JSON.stringify(marks));
  render();
});
$('#export').addEventListener('click', () => {
  if (!report) return;
  const claimed = report.candidates.filter((c) => marks[c.id] === 'claimed');
  const text = JSON.stringify({ checksum, claimed }, null, 2);
  $('#exported').textContent = text;
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  a.download = 'claimed-candidates.json';
  a.click();
});
const last = sessionStorage.getItem('rota:candidates:last'); if (last) load(last);`,
  queues: `
(async () => {
  const q = await data('queues'); if (!q) return;
  $('#app').innerHTML = '<p><a id="board-link" href="/dashboard/queues/board/">Open the queue board</a>: job detail, retry and clean (the maintenance queue, call reconciliation and scheduled jobs stay read-only).</p>' + q.queues.map((x) => '<h3>' + esc(x.name) + '</h3><p class="counts" data-queue="' + esc(x.name) + '">' + Object.entries(x.counts).map(([k, v]) => esc(k) + ': ' + v).join(' · ') + '</p>'
    + (x.failed.length ? '<table><tr><th>Job</th><th>Name</th><th>Attempts</th><th>Reason</th><th>At</th></tr>' + x.failed.map((j) => '<tr><td>' + esc(j.id) + '</td><td>' + esc(j.name) + '</td><td>' + j.attempts + '</td><td>' + esc(j.reason) + '</td><td>' + esc(j.at) + '</td></tr>').join('') + '</table>' : '<p>No failed job.</p>')).join('');
})();`,
};

const TITLES: Record<Page, string> = {
  health: 'Health',
  triggers: 'Triggers',
  router: 'Router',
  'router-candidates': 'Router candidates',
  queues: 'Queues',
};

/** The HTML of one page, and the Content-Security-Policy that lets only its own inline script run. */
export function dashboardPage(page: Page): { html: string; csp: string } {
  const nav = NAV.map(([p, label]) => `<a href="/dashboard/${p}"${p === page ? ' class="on"' : ''}>${label}</a>`).join(
    '',
  );
  const script = `${COMMON}\n${SCRIPTS[page]}`;
  const hash = createHash('sha256').update(script).digest('base64');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Rota · ${TITLES[page]}</title><style>${STYLE}</style></head>
<body><header><strong>Rota</strong>${nav}</header><main><h1>${TITLES[page]}</h1><div id="app">Loading…</div></main>
<script>${script}</script></body></html>`;
  const csp = `default-src 'none'; script-src 'sha256-${hash}'; style-src 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;
  return { html, csp };
}
