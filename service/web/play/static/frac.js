// Exact scores: the API sends "7" or "9/2"; sums stay exact (BigInt fractions).
function gcd(a, b) {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a || 1n;
}

export function parse(text) {
  const [n, d] = String(text).split('/');
  return [BigInt(n), BigInt(d || '1')];
}

export function add(x, y) {
  const n = x[0] * y[1] + y[0] * x[1];
  const d = x[1] * y[1];
  const g = gcd(n, d);
  return [n / g, d / g];
}

export function format([n, d]) {
  return d === 1n ? String(n) : `${n}/${d}`;
}

export function sum(texts) {
  return format(texts.reduce((acc, t) => add(acc, parse(t)), [0n, 1n]));
}
