// The page's service worker (served at /play/sw.js, scope /play): it keeps the page's own files —
// the page, its scripts, styles, icons — so /play opens without the server. Nothing of the API is
// ever kept: a game is live play, and its calls go to the network as if there were no worker.
// The server fills in the files and a digest of their contents (a new digest: a new cache).
const VERSION = '{{VERSION}}';
const FILES = {{FILES}};
const CACHE = `referee-play-${VERSION}`;

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n.startsWith('referee-play-') && n !== CACHE).map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});

/** The page's own files: /play (any fragment never reaches here) and /play/assets/…. */
function ours(url) {
  return url.origin === self.location.origin && (url.pathname === '/play' || url.pathname === '/play/' || url.pathname.startsWith('/play/assets/'));
}

// The network first (a phone online always runs today's files), the kept copy when it does not answer.
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || !ours(url)) return;
  const key = url.pathname === '/play/' ? '/play' : url.pathname;
  event.respondWith(fetch(event.request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(key, copy));
    }
    return response;
  }).catch(() => caches.open(CACHE).then((cache) => cache.match(key)).then((kept) => kept || Response.error())));
});
