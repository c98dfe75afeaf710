// Signed pagination cursors, byte for byte as `store::cursor::CursorCodec` made them before it
// sealed them (commit 7da2936; lambda-bench compares a page's cursor by its presence only):
// `<key id>.<payload>.<signature>`, the payload `{"b":<binding>,"k":{<sorted string map>}}` as
// serde_json writes it, base64url without padding, signed with HMAC-SHA256; the key id is the
// first 6 bytes of SHA-256(secret). `CURSOR_SIGNING_KEY_PREVIOUS` is accepted too (rotation).

import { createHash, createHmac, timingSafeEqual } from "node:crypto";

const MAX_CURSOR_LEN = 8192;
const MIN_SECRET_LEN = 32;

/** Why a cursor is refused (`store::cursor::CursorError`'s messages). */
export const CursorError = {
  Malformed: "the cursor is malformed",
  BadSignature: "the cursor's signature does not match",
  WrongBinding: "the cursor was issued for another query",
};

function signingKey(secret) {
  const bytes = Buffer.from(secret, "utf8");
  if (bytes.length < MIN_SECRET_LEN) {
    throw new Error(`configuration: a cursor signing key must be at least ${MIN_SECRET_LEN} bytes`);
  }
  const id = createHash("sha256").update(bytes).digest().subarray(0, 6).toString("base64url");
  return { id, secret: bytes };
}

const mac = (key, payload) => createHmac("sha256", key.secret).update(payload).digest();

/** Strict base64url without padding, as Rust's `URL_SAFE_NO_PAD` decodes; `null` if not. */
function decodeB64(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const bytes = Buffer.from(text, "base64url");
  // Non-canonical trailing bits are refused by Rust's decoder.
  return bytes.toString("base64url") === text ? bytes : null;
}

/**
 * The payload as serde_json writes `Payload { b, k: BTreeMap }`: keys sorted by bytes. Built by
 * hand: a JS object would put integer-like keys ("2", a finished shard) first.
 */
function payloadJson(binding, key) {
  const entries = Object.keys(key)
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(key[k])}`);
  return `{"b":${JSON.stringify(binding)},"k":{${entries.join(",")}}}`;
}

export class CursorCodec {
  /** `CURSOR_SIGNING_KEY` and `CURSOR_SIGNING_KEY_PREVIOUS` (empty or absent: none), at init. */
  static fromEnv() {
    const current = process.env.CURSOR_SIGNING_KEY;
    if (current === undefined) throw new Error("configuration: CURSOR_SIGNING_KEY is not set");
    const previous = process.env.CURSOR_SIGNING_KEY_PREVIOUS;
    return new CursorCodec(current, previous ? previous : undefined);
  }

  constructor(current, previous) {
    this.current = signingKey(current);
    this.previous = previous === undefined ? undefined : signingKey(previous);
  }

  /** A cursor for `key` (a map of strings: DynamoDB's key, or merged positions). */
  encode(binding, key) {
    for (const v of Object.values(key)) {
      if (typeof v !== "string") throw new Error("corrupt item: a key attribute is not a string");
    }
    const payload = Buffer.from(payloadJson(binding, key), "utf8");
    const sig = mac(this.current, payload);
    return `${this.current.id}.${payload.toString("base64url")}.${sig.toString("base64url")}`;
  }

  /** The key map of a cursor issued for `binding`; throws one of `CursorError`'s messages. */
  decode(binding, cursor) {
    if (Buffer.byteLength(cursor) > MAX_CURSOR_LEN) throw new Error(CursorError.Malformed);
    const parts = cursor.split(".");
    let id, payloadText, sigText;
    if (parts.length === 3) [id, payloadText, sigText] = parts;
    else if (parts.length === 2) [payloadText, sigText] = parts;
    else throw new Error(CursorError.Malformed);
    const payload = decodeB64(payloadText);
    const sig = decodeB64(sigText);
    if (!payload || !sig) throw new Error(CursorError.Malformed);
    const keys = [this.current, this.previous].filter((k) => k && (id === undefined || k.id === id));
    const verified = keys.some((k) => {
      const expected = mac(k, payload);
      return expected.length === sig.length && timingSafeEqual(expected, sig);
    });
    if (!verified) throw new Error(CursorError.BadSignature);
    let parsed;
    try {
      parsed = JSON.parse(payload.toString("utf8"));
    } catch {
      throw new Error(CursorError.Malformed);
    }
    const ok =
      parsed && typeof parsed === "object" && typeof parsed.b === "string" &&
      parsed.k && typeof parsed.k === "object" && !Array.isArray(parsed.k) &&
      Object.values(parsed.k).every((v) => typeof v === "string");
    if (!ok) throw new Error(CursorError.Malformed);
    if (parsed.b !== binding) throw new Error(CursorError.WrongBinding);
    return parsed.k;
  }
}
