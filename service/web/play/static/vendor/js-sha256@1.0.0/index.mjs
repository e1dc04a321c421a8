export { default, sha224, sha256 } from './core.mjs';
