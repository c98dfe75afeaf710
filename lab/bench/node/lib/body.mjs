// The JSON body as `api::json_body` reads it: serde_json with `preserve_order`, then serde's
// derive rules. JSON.parse cannot tell `42` from `42.0` (serde refuses the second for an
// integer field) and loses integers beyond 2^53, so the body is parsed here into typed values:
// integers as BigInt (`u64` when not negative, `i64` otherwise), other numbers as `f64`, objects
// as ordered Maps. Syntax errors name serde_json's message where it is easy to; the wording of
// those messages may differ from serde_json's.

import { ApiError, badRequest } from "./api.mjs";
import { debugStr } from "./keys.mjs";

export const MAX_BODY_BYTES = 64 * 1024;
const U64_MAX = (1n << 64n) - 1n;
const I64_MIN = -(1n << 63n);
const RECURSION_LIMIT = 128;

class SyntaxFault extends Error {}

/** A member named twice in one object (`api::body::unique`): refused as read, naming its path. */
class Duplicate extends Error {}

/** The path of a member (`items[0].sku`) or an element (`items[0]`) under `at`. */
const member = (at, name) => (at ? `${at}.${name}` : name);

function parse(text) {
  let i = 0;
  const fail = (what) => {
    let line = 1, column = 0;
    for (let k = 0; k < Math.min(i, text.length); k++) {
      if (text[k] === "\n") { line++; column = 0; } else column++;
    }
    throw new SyntaxFault(`${what} at line ${line} column ${column}`);
  };
  const ws = () => { while (i < text.length && " \t\n\r".includes(text[i])) i++; };
  const value = (depth, at) => {
    ws();
    if (i >= text.length) fail("EOF while parsing a value");
    const c = text[i];
    if (c === "{") return object(depth + 1, at);
    if (c === "[") return array(depth + 1, at);
    if (c === '"') return { t: "str", v: string() };
    if (c === "-" || (c >= "0" && c <= "9")) return number();
    const word = { t: "true", f: "false", n: "null" }[c];
    if (word === undefined) { i++; fail("expected value"); }
    // serde_json reads an ident letter by letter: a wrong letter is "expected ident" there.
    for (const expected of word) {
      if (i >= text.length) fail("EOF while parsing a value");
      if (text[i++] !== expected) fail("expected ident");
    }
    return word === "null" ? { t: "null" } : { t: "bool", v: word === "true" };
  };
  const object = (depth, at) => {
    if (depth > RECURSION_LIMIT) fail("recursion limit exceeded");
    i++;
    const entries = new Map();
    ws();
    if (text[i] === "}") { i++; return { t: "map", v: entries }; }
    for (;;) {
      ws();
      if (i >= text.length) fail("EOF while parsing an object");
      if (text[i] !== '"') { i++; fail("key must be a string"); }
      const key = string();
      if (entries.has(key)) throw new Duplicate(member(at, key));
      ws();
      if (i >= text.length) fail("EOF while parsing an object");
      if (text[i] !== ":") { i++; fail("expected `:`"); }
      i++;
      entries.set(key, value(depth, member(at, key)));
      ws();
      if (i >= text.length) fail("EOF while parsing an object");
      if (text[i] === ",") { i++; ws(); if (text[i] === "}") { i++; fail("trailing comma"); } continue; }
      if (text[i] === "}") { i++; return { t: "map", v: entries }; }
      i++;
      fail("expected `,` or `}`");
    }
  };
  const array = (depth, at) => {
    if (depth > RECURSION_LIMIT) fail("recursion limit exceeded");
    i++;
    const items = [];
    ws();
    if (i >= text.length) fail("EOF while parsing a list");
    if (text[i] === "]") { i++; return { t: "seq", v: items }; }
    for (;;) {
      items.push(value(depth, `${at}[${items.length}]`));
      ws();
      if (i >= text.length) fail("EOF while parsing a list");
      if (text[i] === ",") { i++; ws(); if (text[i] === "]") { i++; fail("trailing comma"); } continue; }
      if (text[i] === "]") { i++; return { t: "seq", v: items }; }
      i++;
      fail("expected `,` or `]`");
    }
  };
  const string = () => {
    i++;
    let out = "";
    for (;;) {
      if (i >= text.length) fail("EOF while parsing a string");
      const c = text[i++];
      if (c === '"') return out;
      if (c < " ") fail("control character (\\u0000-\\u001F) found while parsing a string");
      if (c !== "\\") { out += c; continue; }
      if (i >= text.length) fail("EOF while parsing a string");
      const e = text[i++];
      const simple = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" }[e];
      if (simple !== undefined) { out += simple; continue; }
      if (e !== "u") fail("invalid escape");
      const hex = () => {
        const h = text.slice(i, i + 4);
        if (!/^[0-9A-Fa-f]{4}$/.test(h)) fail(h.length < 4 ? "EOF while parsing a string" : "invalid escape");
        i += 4;
        return parseInt(h, 16);
      };
      const u = hex();
      if (u >= 0xdc00 && u <= 0xdfff) fail("lone leading surrogate in hex escape");
      if (u >= 0xd800 && u <= 0xdbff) {
        if (text[i] !== "\\" || text[i + 1] !== "u") fail("unexpected end of hex escape");
        i += 2;
        const low = hex();
        if (low < 0xdc00 || low > 0xdfff) fail("lone leading surrogate in hex escape");
        out += String.fromCharCode(u, low);
      } else out += String.fromCharCode(u);
    }
  };
  const number = () => {
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i));
    if (!m) { i++; fail("invalid number"); }
    i += m[0].length;
    if (m[2] === undefined && m[3] === undefined) {
      // serde_json: u64 if it fits; a negative fits i64 (but -0 is the float -0.0); else f64.
      const n = BigInt(m[0]);
      if (n >= 0n && !m[0].startsWith("-")) return n <= U64_MAX ? { t: "u64", v: n } : { t: "f64", v: Number(m[0]) };
      if (n === 0n) return { t: "f64", v: -0 };
      return n >= I64_MIN ? { t: "i64", v: n } : { t: "f64", v: Number(m[0]) };
    }
    const f = Number(m[0]);
    if (!Number.isFinite(f)) fail("number out of range");
    return { t: "f64", v: f };
  };
  const result = value(0, "");
  ws();
  if (i < text.length) { i++; fail("trailing characters"); }
  return result;
}

/**
 * A float as serde_json writes it in messages (its `zmij` formatter): the shortest digits that
 * read back, fixed notation for decimal exponents -5..=15 (an integer gets `.0`), else
 * `d.ddde+XX` / `d.ddde-X`.
 */
function formatFloat(f) {
  if (f === 0) return Object.is(f, -0) ? "-0.0" : "0.0";
  const [mantissa, exponent] = Math.abs(f).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const e = Number(exponent);
  const sign = f < 0 ? "-" : "";
  if (e >= -5 && e <= 15) {
    if (digits.length - 1 <= e) return `${sign}${digits}${"0".repeat(e + 1 - digits.length)}.0`;
    if (e >= 0) return `${sign}${digits.slice(0, e + 1)}.${digits.slice(e + 1)}`;
    return `${sign}0.${"0".repeat(-e - 1)}${digits}`;
  }
  const rest = digits.length > 1 ? `.${digits.slice(1)}` : "";
  return `${sign}${digits[0]}${rest}e${e < 0 ? "-" : "+"}${Math.abs(e)}`;
}

/** serde's `Unexpected` of a value, as serde_json's messages write it. */
function unexpected(v) {
  switch (v.t) {
    case "null": return "null";
    case "bool": return `boolean \`${v.v}\``;
    case "u64": case "i64": return `integer \`${v.v}\``;
    case "f64": return `floating point \`${formatFloat(v.v)}\``;
    case "str": return `string ${debugStr(v.v)}`;
    case "seq": return "sequence";
    case "map": return "map";
  }
}

/**
 * A serde shape error (`invalid type`, `missing field`...) as serde writes it, at
 * serde_path_to_error's path (`items[0].sku`; `""` for the body itself).
 */
export class ShapeError extends Error {
  constructor(message, path = "") {
    super(message);
    this.path = path;
  }
}

/** An integer of a Rust integer type (`u64`, `u32`, `i64`) from a parsed value at `at`, as a BigInt. */
export function integer(v, type, at = "") {
  if (v.t !== "u64" && v.t !== "i64") throw new ShapeError(`invalid type: ${unexpected(v)}, expected ${type}`, at);
  const [min, max] = { u64: [0n, U64_MAX], u32: [0n, 0xffffffffn], i64: [I64_MIN, (1n << 63n) - 1n] }[type];
  if (v.v < min || v.v > max) throw new ShapeError(`invalid value: ${unexpected(v)}, expected ${type}`, at);
  return v.v;
}

/** A sequence (`Vec<T>`) at `at`, each element read by `each(element, its path)`. */
export function sequence(v, at = "", each = (x) => x) {
  if (v.t !== "seq") throw new ShapeError(`invalid type: ${unexpected(v)}, expected a sequence`, at);
  return v.v.map((x, k) => each(x, `${at}[${k}]`));
}

/** Any JSON value, as serde's `Option<serde_json::Value>` takes it: `null` is no value. */
export const anyValue = (v) => (v.t === "null" ? undefined : v);

/**
 * A struct with `deny_unknown_fields` at `at` from a map (fields read in the body's order, each
 * converted as it comes by `fields[name](value, its path)`; then the first missing field in
 * declaration order, the `optional` ones (`#[serde(default)]`) aside) or, as serde derives
 * allow, from a sequence of its fields in order.
 */
export function struct(v, name, fields, at = "", optional = []) {
  const names = Object.keys(fields);
  const out = {};
  if (v.t === "map") {
    for (const [key, value] of v.v) {
      if (!(key in fields)) {
        const expected = names.length === 1 ? `\`${names[0]}\`` : `one of ${names.map((n) => `\`${n}\``).join(", ")}`;
        // serde_path_to_error's path names the unknown member itself.
        throw new ShapeError(`unknown field \`${key}\`, expected ${expected}`, member(at, key));
      }
      out[key] = fields[key](value, member(at, key));
    }
    for (const n of names) {
      if (!(n in out) && !optional.includes(n)) throw new ShapeError(`missing field \`${n}\``, at);
    }
    return out;
  }
  if (v.t === "seq") {
    // Element by element, as serde reads them; then whether the length fits.
    names.slice(0, v.v.length).forEach((n, k) => {
      out[n] = fields[n](v.v[k], `${at}[${k}]`);
    });
    const required = names.filter((n) => !optional.includes(n)).length;
    if (v.v.length < required) {
      throw new ShapeError(`invalid length ${v.v.length}, expected struct ${name} with ${required} elements`, at);
    }
    if (v.v.length > names.length) throw new ShapeError(`invalid length ${v.v.length}, expected fewer elements in array`, at);
    return out;
  }
  throw new ShapeError(`invalid type: ${unexpected(v)}, expected struct ${name}`, at);
}

// ---------------------------------------------------------------------------------------------
// serde's refusals in the API's words (`api::body::words::reason`)

/** The first `` `name` `` after `prefix`, when `message` starts with it. */
function quotedAfter(message, prefix) {
  if (!message.startsWith(`${prefix}\``)) return undefined;
  const rest = message.slice(prefix.length + 1);
  const end = rest.indexOf("`");
  return end < 0 ? undefined : rest.slice(0, end);
}

/** The `` `names` `` serde lists after "expected". */
function namesAfter(message) {
  const at = message.indexOf("expected ");
  if (at < 0) return [];
  return message.slice(at + "expected ".length).split("`").filter((_, k) => k % 2 === 1);
}

/** The value serde was given, as JSON: `string "x"` → `"x"`, ``integer `-1` `` → `-1`. */
function givenValue(given) {
  if (given.startsWith("string ")) return given.slice("string ".length);
  if (given === "null" || given === "unit value") return "null";
  if (given === "sequence") return "a list";
  if (given === "map") return "an object";
  const ticked = given.split("`");
  return ticked.length > 1 ? ticked[1] : given;
}

const WHOLE = {
  u8: ["0", "255"], u16: ["0", "65535"], u32: ["0", "4294967295"],
  i8: ["-128", "127"], i16: ["-32768", "32767"], i32: ["-2147483648", "2147483647"],
};

/** What a Rust type accepts, in JSON's words. */
function accepted(expected) {
  if (expected in WHOLE) return `a whole number from ${WHOLE[expected][0]} to ${WHOLE[expected][1]}`;
  if (expected === "u64" || expected === "usize") return "a whole number, 0 or more";
  if (expected === "i64" || expected === "isize") return "a whole number";
  if (expected === "f32" || expected === "f64") return "a number";
  if (expected === "a boolean") return "true or false";
  if (["a string", "a borrowed string", "a character"].includes(expected)) return "a string";
  if (expected === "a sequence" || expected.startsWith("tuple") || expected.startsWith("a tuple")) return "a list";
  if (expected === "a map" || expected.startsWith("struct ")) return "an object";
  if (expected.startsWith("enum ") || expected.startsWith("variant ")) return "one of the listed values";
  return expected;
}

/** The reason the body's `field` was refused, from serde's `message`. */
export function reason(field, message) {
  const name = quotedAfter(message, "missing field ");
  if (name !== undefined) return `${member(field, name)} is required.`;
  const unknown = quotedAfter(message, "unknown field ");
  if (unknown !== undefined) {
    const known = namesAfter(message);
    const named = field && field !== "." ? field : unknown; // the path already ends in it
    return known.length === 0
      ? `${named} is not a field here; this object takes none.`
      : `${named} is not a field here; the fields are ${known.join(", ")}.`;
  }
  for (const kind of ["invalid type: ", "invalid value: "]) {
    const split = message.lastIndexOf(", expected ");
    if (message.startsWith(kind) && split >= kind.length) {
      const given = message.slice(kind.length, split);
      const expected = message.slice(split + ", expected ".length);
      return `${field}: ${givenValue(given)} is not ${accepted(expected)}.`;
    }
  }
  if (message.startsWith("invalid length ")) return `${field}: a list of the wrong length.`;
  return field ? `${field}: ${message}` : message;
}

/**
 * The body, which must be a JSON object, read by `read` (a function of the parsed map built with
 * the helpers above), with `api::json_body`'s answers to what does not fit.
 */
export function jsonBody(event, read) {
  let bytes;
  if (typeof event.body !== "string") bytes = Buffer.alloc(0);
  else bytes = event.isBase64Encoded ? Buffer.from(event.body, "base64") : Buffer.from(event.body, "utf8");
  // `u8::is_ascii_whitespace`: space, \t, \n, \x0C, \r.
  if (bytes.every((b) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d)) {
    throw badRequest("missing_body", "A JSON body is required.");
  }
  if (bytes.length > MAX_BODY_BYTES) {
    throw new ApiError(413, "body_too_large", `The body is larger than ${MAX_BODY_BYTES} bytes.`);
  }
  let value;
  try {
    value = parse(bytes.toString("utf8"));
  } catch (e) {
    if (e instanceof Duplicate) {
      throw badRequest("duplicate_field", `${e.message} is given twice in the body; give it once.`);
    }
    if (e instanceof SyntaxFault || e instanceof RangeError) {
      throw badRequest("invalid_json", `The body is not valid JSON: ${e.message}`);
    }
    throw e;
  }
  if (value.t !== "map") throw badRequest("invalid_body", "The body must be a JSON object.");
  try {
    return read(value);
  } catch (e) {
    if (e instanceof ShapeError) {
      throw badRequest("invalid_body", `The body does not fit this request: ${reason(e.path, e.message)}`);
    }
    throw e;
  }
}
