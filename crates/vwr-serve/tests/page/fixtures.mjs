// The fixtures tests/page.rs writes with the Rust libraries (folder in VOXCAF_PAGE_FIXTURES).
import fs from 'node:fs';
import path from 'node:path';

const dir = process.env.VOXCAF_PAGE_FIXTURES;
if (!dir) {
  throw new Error('VOXCAF_PAGE_FIXTURES is not set: run these through `cargo test -p vwr-serve --test page`, which writes the fixtures');
}

/** A fixture file's bytes as an ArrayBuffer of its own (offset 0: typed views stay aligned). */
export function fixtureBuffer(name) {
  const b = fs.readFileSync(path.join(dir, name));
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
}

/** A fixture file's JSON. */
export const fixtureJson = (name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
