// A fixed clock and seeded randomness for scripts/screens.mjs (the README's screen captures),
// so that regenerating the captures gives the same text: same dates, same key prefixes, same
// ids, same deposit address and QR code. Never used by keydeck itself.
//
// - The clock: `Date` (and `Date.now()`) read real time plus an offset, so a process can be put
//   at any instant (setNow) and time still runs. Every timestamp keydeck and its embedded
//   sandbox make comes from Date.
// - Randomness: `crypto.randomBytes` and `crypto.randomUUID` draw from SHA-256 in counter mode
//   over a seed (the sandbox makes key values, ids, session tokens and deposit addresses with
//   them), and `syncBuiltinESMExports()` makes `import { randomBytes } from 'node:crypto'` see
//   the replacements. Not random at all: for screenshots only.
//
// Two ways in: `installDeterminism({ nowMs, seed })` in the script's own process, or
// `node --import <this file>` (through NODE_OPTIONS) with KEYDECK_SCREENS_NOW_MS (the instant
// the process starts at, epoch ms) and KEYDECK_SCREENS_SEED set.
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';

const RealDate = Date;
let offsetMs = 0;
let installed = false;

/** Puts this process's clock at `epochMs` (time runs on from there). */
export function setNow(epochMs) {
  offsetMs = epochMs - RealDate.now();
}

/** Moves this process's clock forward (or back, negative) by `ms`. */
export function shiftClock(ms) {
  offsetMs += ms;
}

/** The shifted current time, epoch ms. */
export function now() {
  return RealDate.now() + offsetMs;
}

/** Replaces Date, randomBytes and randomUUID in this process (once); the clock starts at `nowMs`. */
export function installDeterminism({ nowMs, seed }) {
  setNow(nowMs);
  if (installed) return;
  installed = true;

  class ShiftedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(RealDate.now() + offsetMs);
      else super(...args);
    }
    static now() {
      return RealDate.now() + offsetMs;
    }
  }
  globalThis.Date = ShiftedDate;

  let counter = 0;
  let pool = Buffer.alloc(0);
  const take = (size) => {
    while (pool.length < size) {
      const block = crypto.createHash('sha256').update(`${seed}:${counter++}`).digest();
      pool = Buffer.concat([pool, block]);
    }
    const out = Buffer.from(pool.subarray(0, size));
    pool = pool.subarray(size);
    return out;
  };
  crypto.randomBytes = function randomBytes(size, callback) {
    const bytes = take(size);
    if (typeof callback === 'function') {
      process.nextTick(callback, null, bytes);
      return undefined;
    }
    return bytes;
  };
  crypto.randomUUID = function randomUUID() {
    const b = take(16);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = b.toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  };
  syncBuiltinESMExports();
}

if (process.env.KEYDECK_SCREENS_NOW_MS && process.env.KEYDECK_SCREENS_SEED) {
  installDeterminism({ nowMs: Number(process.env.KEYDECK_SCREENS_NOW_MS), seed: process.env.KEYDECK_SCREENS_SEED });
}
