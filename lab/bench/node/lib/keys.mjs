// Key values as the Rust `keys` crate makes them: identifiers, ULIDs, shards, dates, timestamps,
// and the Rust `Debug` quoting its error messages use. Only what C1, C3 and O5 need.

import { randomBytes } from "node:crypto";

/** A value a key type refuses (Rust's `keys::KeyError`); its message is the Rust one. */
export class KeyError extends Error {}

/** Rust's `{:?}` of a `char`: `'#'`, `'é'`, `'\''`, `'\u{7f}'`. */
export function debugChar(c) {
  return `'${escapeDebug(c, "'")}'`;
}

/** Rust's `{:?}` of a `str`: `"ten"`, with `\"`, `\\`, `\n`... escaped. */
export function debugStr(s) {
  let out = "";
  for (const c of s) out += escapeDebug(c, '"');
  return `"${out}"`;
}

function escapeDebug(c, quote) {
  switch (c) {
    case "\\": return "\\\\";
    case "\n": return "\\n";
    case "\r": return "\\r";
    case "\t": return "\\t";
    case "\0": return "\\0";
    case quote: return `\\${quote}`;
  }
  const cp = c.codePointAt(0);
  // Control characters (C0, DEL, C1) are escaped; other characters print as they are.
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return `\\u{${cp.toString(16)}}`;
  return c;
}

export const MAX_ID_LEN = 64;

/** `keys::Id::parse`: 1 to 64 ASCII letters, digits, `-`, `_`, `.`, not `.` or `..`. Returns the id. */
export function parseId(what, value) {
  if (value.length === 0) throw new KeyError(`${what} must not be empty`);
  const chars = Array.from(value);
  if (chars.length > MAX_ID_LEN) throw new KeyError(`${what} is longer than ${MAX_ID_LEN} characters`);
  const found = chars.find((c) => !/^[A-Za-z0-9._-]$/.test(c));
  if (found !== undefined) {
    throw new KeyError(
      `${what} may only contain letters, digits, '-', '_' and '.'; found ${debugChar(found)}`,
    );
  }
  // A URL path cannot address it: clients and proxies resolve it away.
  if (value === "." || value === "..") throw new KeyError(`${what} may not be "." or "..": a URL cannot address it`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// ULIDs (`keys::SortableId`): 48 bits of milliseconds, 80 random bits, Crockford base 32.

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

function encodeTime(ms) {
  let out = "";
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

/** A new ULID for now (as `Ulid::new()`): `{ id, ms }`. */
export function newUlid() {
  const ms = Date.now();
  const bytes = randomBytes(10);
  // 80 random bits = 16 characters of 5 bits: read them as a bit string.
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  let random = "";
  for (let i = 0; i < 16; i++) {
    random = CROCKFORD[Number(bits & 31n)] + random;
    bits >>= 5n;
  }
  return { id: encodeTime(ms) + random, ms };
}

/** The smallest id of a millisecond (`SortableId::floor`). */
export const ulidFloor = (ms) => encodeTime(ms) + "0".repeat(16);
/** The largest id of a millisecond (`SortableId::ceiling`). */
export const ulidCeiling = (ms) => encodeTime(ms) + "Z".repeat(16);

// ---------------------------------------------------------------------------------------------
// Shards

/** `keys::code_point_shard`: the sum of the value's code points modulo `count`. */
export function codePointShard(value, count) {
  let sum = 0;
  for (const c of value) sum += c.codePointAt(0);
  return sum % count;
}

/** `ORDER_STATUS_SHARDS` as `store::Deps` reads it: an integer 1..=100, or the function stops. */
export function shardCountFromEnv(name) {
  const raw = process.env[name];
  if (raw === undefined) throw new Error(`configuration: ${name} is not set`);
  // Rust's `u32::from_str` takes an optional `+` and ASCII digits.
  if (!/^\+?[0-9]+$/.test(raw) || Number(raw.replace("+", "")) > 0xffffffff) {
    throw new Error(`configuration: ${name} is not a number: ${debugStr(raw)}`);
  }
  const n = Number(raw.replace("+", ""));
  if (n < 1 || n > 100) throw new Error(`configuration: ${name} must be 1..=100, not ${n}`);
  return n;
}

// ---------------------------------------------------------------------------------------------
// Dates and timestamps

/** A calendar date (UTC) from `YYYY-MM-DD` (`keys::Date::parse_iso`), as `{ y, m, d, iso }`. */
export function parseIsoDate(s) {
  const invalid = () => new KeyError(`${debugStr(s)} is not a valid calendar date (expected YYYY-MM-DD)`);
  const match = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(s);
  if (!match) throw invalid();
  const [y, m, d] = match.slice(1).map(Number);
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) throw invalid();
  return { y, m, d, iso: s };
}

export const date = (y, m, d) => ({
  y, m, d,
  iso: `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`,
});

function daysInMonth(y, m) {
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
}

/** Milliseconds at 00:00:00.000 UTC of the date (years 0..=99 too, unlike `Date.UTC`). */
export function startMs({ y, m, d }) {
  const t = new Date(0);
  t.setUTCFullYear(y, m - 1, d);
  return t.getTime();
}

/** Milliseconds at 23:59:59.999 UTC of the date. */
export const endMs = (day) => startMs(day) + 86_400_000 - 1;

/** `keys::Timestamp`'s form: fixed-width ISO-8601 UTC with milliseconds (years 1970..=9999). */
export const isoTimestamp = (ms) => new Date(ms).toISOString();
