// The public API, from the page's own origin: one request helper and live updates.
import { uuid } from './sha256.js';

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.code = this.problem.code || (status === 0 ? 'network' : 'http_error');
  }
}

// A request the referee has not answered in this long is given up (the phone's connection may have
// died without a word, as one does on a change of Wi-Fi), then sent once more with the same
// Idempotency-Key, then refused with code `timeout`.
export const REQUEST_TIMEOUT_MS = 10000;

/**
 * An event stream is dead once it has been silent this long: the referee writes a `: keep-alive`
 * comment every `REFEREE_STREAM_HEARTBEAT_SECONDS` (the page's meta tag), so silence past twice that
 * and a margin means the connection died without a word; the page reconnects and resyncs.
 */
export function streamSilenceMs() {
  return 2 * heartbeatMs() + 5000;
}

function heartbeatMs() {
  const meta = document.querySelector('meta[name="referee-stream-heartbeat"]');
  const seconds = Number(meta && meta.content);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 15) * 1000;
}

// The streams open now. A request that timed out makes each one look at its own silence: one that
// has missed a keep-alive too is given up at once, not only at its watchdog.
const streams = new Set();

/** A signal aborted by `outer` or after `ms`; `timedOut()` tells which. */
function timed(outer, ms) {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => { expired = true; controller.abort(); }, ms);
  const onAbort = () => controller.abort();
  if (outer) {
    if (outer.aborted) controller.abort();
    else outer.addEventListener('abort', onAbort, { once: true });
  }
  return {
    signal: controller.signal,
    timedOut: () => expired,
    done: () => { clearTimeout(timer); if (outer) outer.removeEventListener('abort', onAbort); },
  };
}

const sleep = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  if (signal) signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
});

/** Tell the page whether the server answered (offline.js shows a line while it cannot be reached). */
function reach(answered) {
  window.dispatchEvent(new CustomEvent('referee:reach', { detail: answered }));
}

/**
 * One API call. POSTs carry an Idempotency-Key, so the one retry after a network error or a 503 is
 * applied at most once. Resolves {status, data, etag}; a 304 has data null. Problems reject with ApiError.
 */
export async function call(method, path, { token, body, etag, signal } = {}) {
  const headers = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (etag) headers['If-None-Match'] = etag;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method === 'POST') headers['Idempotency-Key'] = uuid();
  const init = { method, headers, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' };
  if (body !== undefined) init.body = JSON.stringify(body);
  let response;
  let text;
  for (let attempt = 0; ; attempt++) {
    const deadline = timed(signal, REQUEST_TIMEOUT_MS);
    try {
      response = await fetch(path, { ...init, signal: deadline.signal });
      text = await response.text(); // the body too can stop half-way
    } catch (error) {
      const late = deadline.timedOut();
      deadline.done();
      if (!(signal && signal.aborted)) reach(false);
      if (late) for (const stream of streams) stream.suspect();
      if ((signal && signal.aborted) || attempt >= 1) {
        throw new ApiError(0, late ? { code: 'timeout', detail: `no answer in ${REQUEST_TIMEOUT_MS / 1000} s` } : { detail: String(error) });
      }
      await sleep(800, signal);
      continue;
    }
    deadline.done();
    reach(true);
    // The referee's store did not answer in time (503): once more, with the same Idempotency-Key,
    // so a move that did go through is not made twice.
    if (response.status === 503 && attempt < 1 && !(signal && signal.aborted)) {
      await sleep(500, signal);
      continue;
    }
    break;
  }
  if (response.status === 304) return { status: 304, data: null, etag: response.headers.get('ETag') };
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = null; }
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return { status: response.status, data, etag: response.headers.get('ETag') };
}

/** Parse a text/event-stream body, calling onEvent({id, event, data}) per event. */
async function readEvents(response, onEvent, signal, onBytes) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = { data: [], event: 'message', id: null };
  const line = (text) => {
    if (text === '') {
      if (event.data.length) onEvent({ id: event.id, event: event.event, data: event.data.join('\n') });
      event = { data: [], event: 'message', id: null };
      return;
    }
    if (text.startsWith(':')) return; // a comment: keep-alive
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') event.data.push(value);
    else if (field === 'event') event.event = value;
    else if (field === 'id') event.id = value;
  };
  while (!(signal && signal.aborted)) {
    const { value, done } = await reader.read();
    if (done) break;
    onBytes();
    buffer += decoder.decode(value, { stream: true });
    let newline;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const size = buffer[newline] === '\r' && buffer[newline + 1] === '\n' ? 2 : 1;
      line(buffer.slice(0, newline));
      buffer = buffer.slice(newline + size);
    }
  }
}

/**
 * Keep a view up to date: Server-Sent Events from `${viewPath}/events`-style `eventsPath` read
 * with fetch() (EventSource cannot send the Authorization header), resumed with Last-Event-ID;
 * when the service has no events endpoint (404 not_found), poll `viewPath` every 1.5 s with
 * If-None-Match. onView(view) gets every new version; onError(error) a problem that stops it
 * (the game is gone, the token is refused). Returns {stop, mode()}.
 */
export function watch({ viewPath, eventsPath, token, onView, onError, onMode }) {
  const controller = new AbortController();
  const { signal } = controller;
  let mode = 'connecting';
  const setMode = (m) => { if (m !== mode) { mode = m; if (onMode) onMode(m); } };

  async function stream() {
    let lastId = null;
    let failures = 0;
    while (!signal.aborted) {
      const headers = { Accept: 'text/event-stream' };
      if (token) headers.Authorization = `Bearer ${token}`;
      if (lastId) headers['Last-Event-ID'] = lastId;
      // This connection: aborted when the page leaves, or when it has been silent too long.
      const connection = new AbortController();
      const leave = () => connection.abort();
      signal.addEventListener('abort', leave, { once: true });
      let watchdog = null;
      let lastHeard = performance.now();
      const dead = () => { setMode('offline'); connection.abort(); };
      const heard = () => {
        lastHeard = performance.now();
        clearTimeout(watchdog);
        watchdog = setTimeout(dead, streamSilenceMs());
      };
      const entry = { suspect: () => { if (performance.now() - lastHeard > heartbeatMs() + 2000) dead(); } };
      streams.add(entry);
      const hangUp = () => { clearTimeout(watchdog); streams.delete(entry); signal.removeEventListener('abort', leave); connection.abort(); };
      heard();
      let response;
      try {
        response = await fetch(eventsPath, { headers, signal: connection.signal, cache: 'no-store', credentials: 'omit' });
      } catch (error) {
        hangUp();
        if (signal.aborted) return;
        if (!connection.signal.aborted) reach(false); // refused, not given up by the watchdog
        setMode('offline');
        failures += 1;
        if (failures >= 3) return poll();
        await sleep(2000, signal);
        continue;
      }
      reach(true);
      if (response.status === 204) { hangUp(); setMode('done'); return; }
      const type = response.headers.get('Content-Type') || '';
      if (!response.ok || !type.startsWith('text/event-stream')) {
        let problem = null;
        try { problem = await response.json(); } catch { problem = null; }
        hangUp();
        const code = problem && problem.code;
        if (response.status === 401 || response.status === 403 || code === 'game_not_found') {
          onError(new ApiError(response.status, problem));
          return;
        }
        return poll(); // no live updates on this server (404 not_found, 405, 406...): poll
      }
      heard();
      setMode('live');
      failures = 0;
      try {
        await readEvents(response, (ev) => {
          if (ev.id) lastId = ev.id;
          if (ev.event === 'state' || ev.event === 'message') {
            try { onView(JSON.parse(ev.data)); } catch (error) { console.warn('bad event', error); }
          }
        }, connection.signal, heard);
      } catch (error) {
        if (signal.aborted) { hangUp(); return; }
      }
      const silent = connection.signal.aborted && !signal.aborted;
      hangUp();
      if (signal.aborted) return;
      // A stream silent past its keep-alives died on the way: connect again at once, from the
      // last version seen (the referee sends anything newer first).
      if (silent) continue;
      await sleep(500, signal); // the stream ended (timeout, game over): resume after the last id
    }
  }

  async function poll() {
    setMode('polling');
    let etag = null;
    while (!signal.aborted) {
      try {
        const r = await call('GET', viewPath, { token, etag, signal });
        if (r.status === 200) {
          etag = r.etag;
          onView(r.data);
        }
        setMode('polling');
      } catch (error) {
        if (signal.aborted) return;
        if (error.status === 401 || error.status === 403 || error.status === 404) { onError(error); return; }
        setMode('offline');
      }
      await sleep(1500, signal);
    }
  }

  stream();
  return { stop: () => controller.abort(), mode: () => mode };
}
