// The suite's one HTTP client. Every answer passes through `watch`, which
// counts responses that contain any registered secret (API keys, stored
// credential values), so the secrets grep covers every response of the run.
const secrets = new Set();
export const leaks = { responses: 0, examples: [] };

export function registerSecret(s) {
  if (s && s.length >= 8) secrets.add(s);
}
export const allSecrets = () => [...secrets];

function watch(text, label) {
  for (const s of secrets) {
    if (text.includes(s)) {
      leaks.responses++;
      if (leaks.examples.length < 5) leaks.examples.push(label);
      return;
    }
  }
}

/** The first chunk of a streamed body (or '' after a second without one); the stream is then closed. */
async function firstChunk(res) {
  const reader = res.body.getReader();
  let timer;
  try {
    const first = await Promise.race([
      reader.read(),
      new Promise((r) => (timer = setTimeout(() => r({ done: true }), 1000))),
    ]);
    return first.value ? new TextDecoder().decode(first.value) : '';
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * Sends one request; never throws. `status` is 0 when the connection failed
 * and -1 when no answer came before `timeoutMs`.
 */
export async function send(base, { method = 'GET', path, headers = {}, body, timeoutMs = 15_000 }) {
  const t0 = performance.now();
  try {
    const res = await fetch(base + path, { method, headers, body, signal: AbortSignal.timeout(timeoutMs) });
    // An event stream never ends by itself: its answer is the status, the
    // headers and what arrived first.
    const text = (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
      ? await firstChunk(res)
      : await res.text();
    const ms = performance.now() - t0;
    watch(text, `${method} ${path} ${res.status}`);
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json, ms };
  } catch (err) {
    const ms = performance.now() - t0;
    const timedOut = err?.name === 'TimeoutError' || err?.cause?.name === 'TimeoutError';
    return { status: timedOut ? -1 : 0, text: '', ms, error: String(err?.cause?.code ?? err?.message ?? err) };
  }
}

export const bearer = (key) => (key ? { authorization: `Bearer ${key}` } : {});
