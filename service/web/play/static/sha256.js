// SHA-256 for commitments, from the vendored js-sha256 (pure JavaScript).
// Not crypto.subtle.digest: on http://192.168.x.x (not a secure context) crypto.subtle is missing.
import { sha256 } from './vendor/js-sha256@1.0.0/index.mjs';

// The test vectors of docs/client-guide.md (Commitments): message, expected lowercase hex digest.
export const VECTORS = [
  ['gops-bid-v1|g1|1|0|9|' + '00'.repeat(32), '46d7d03167c517bb7c078be660341cb9f2eaf24ef113d2c1e6c98c12475cc50a'],
  ['gops-bid-v1|demo-game_7|3|1|3,11|' + '0123456789abcdef'.repeat(4), 'c8c8e73e13989124a2f7221cd08c4a979db608bab407e8e655696f8a9413db6d'],
  ['gops-bid-v1|X|13|6|13|' + 'ff'.repeat(32), '0f508fa78c9056dbc6617469ff7cb72544690fa7584a4519ee9b973d9ad50fb8'],
  ['gops-bid-v1|match-2|1|2|1,2|' + 'a5'.repeat(32), '38bcfb060e328564a781a3a025c3d1f83715fa783e482772a83cd3e2e5d37bfd'],
];

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`. */
export function sha256hex(text) {
  return sha256.hex(new TextEncoder().encode(text));
}

let checked = null;

/** True when every test vector hashes as published; computed once. */
export function selfTest() {
  if (checked === null) {
    checked = VECTORS.every(([message, digest]) => sha256hex(message) === digest);
  }
  return checked;
}

/** 32 random bytes from the CSPRNG (crypto.getRandomValues works on any origin) as 64 hex chars. */
export function randomHex(bytes = 32) {
  const buffer = new Uint8Array(bytes);
  crypto.getRandomValues(buffer);
  return Array.from(buffer, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A random UUID (v4) without crypto.randomUUID, which insecure contexts lack too. */
export function uuid() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const x = Array.from(b, (v) => v.toString(16).padStart(2, '0')).join('');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

export function bidMessage(gameId, round, seat, cards, salt) {
  return `gops-bid-v1|${gameId}|${round}|${seat}|${cards.join(',')}|${salt}`;
}

export function bidCommitment(gameId, round, seat, cards, salt) {
  return sha256hex(bidMessage(gameId, round, seat, cards, salt));
}

/**
 * A seat's salt for one round, from the secret its join link carries in its fragment (which no
 * server sees): HMAC-SHA-256, keyed with the secret's bytes, of `gops-salt-v1|<game_id>|<round>|<seat>`.
 * Any phone holding the link can so reveal the seat's bid; the referee, which sees every bearer
 * token but never a fragment, cannot.
 */
export function seatSalt(secret, gameId, round, seat) {
  const key = Uint8Array.from(secret.match(/../g), (byte) => parseInt(byte, 16));
  return sha256.hmac.hex(key, `gops-salt-v1|${gameId}|${round}|${seat}`);
}

/** The ranks from 1 to `ranks`, `size` at a time, each set in ascending order. */
function* rankSets(ranks, size, from = 1) {
  if (size === 0) { yield []; return; }
  for (let r = from; r <= ranks - size + 1; r++) {
    for (const rest of rankSets(ranks, size - 1, r + 1)) yield [r, ...rest];
  }
}

/**
 * The cards a commitment seals, given its salt: bids made with a link's secret are hashed in
 * ascending order, so at most C(13, 6) = 1716 sets are tried. Null when none matches.
 */
export function openCommitment(commitment, gameId, round, seat, salt, { ranks, cards }) {
  for (const set of rankSets(ranks, cards)) {
    if (bidCommitment(gameId, round, seat, set, salt) === commitment) return set;
  }
  return null;
}

export function prizeCommitment(gameId, order, salt) {
  return sha256hex(`gops-prizes-v1|${gameId}|${order.join(',')}|${salt}`);
}
