// HTTP plumbing mirroring the Rust `api` crate: errors as `{"code", "message"}`, path and query
// parameters read as `lambda_http` reads an API Gateway HTTP API (payload 2.0) event, the
// authorization rule of `api::auth`, and one `serve` that runs a handler as `api::serve` does.

import { KeyError, debugStr, parseId, parseIsoDate, date } from "./keys.mjs";

/** An error answer: HTTP status, a stable code, a message (Rust's `api::ApiError`). */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export const badRequest = (code, message) => new ApiError(400, code, message);
export const notFound = (code, message) => new ApiError(404, code, message);
export const invalidParameter = (name, why) => badRequest("invalid_parameter", `${name}: ${why}`);
const internal = () =>
  new ApiError(500, "internal_error", "Something went wrong on our side; try again later.");
export const throttled = () =>
  new ApiError(503, "throttled", "The service is busy; retry after a short pause.");

/** DynamoDB's error codes that mean "busy" (`store::error::THROTTLES`). */
const THROTTLES = new Set([
  "ProvisionedThroughputExceededException",
  "RequestLimitExceeded",
  "ThrottlingException",
  "TransactionConflictException",
]);

/** A failure talking to the table as `StoreError` → `ApiError` maps it: busy is a 503, else 500. */
export function fromStoreError(err) {
  if (err instanceof ApiError) return err;
  // ElectroDB wraps the SDK's error; its `cause` is the SDK's, whose `name` is DynamoDB's code.
  const sdk = err && err.cause && err.cause.name ? err.cause : err;
  if (sdk && THROTTLES.has(sdk.name)) {
    console.warn(JSON.stringify({ level: "WARN", message: "throttled", detail: String(sdk.message) }));
    return throttled();
  }
  console.error(JSON.stringify({ level: "ERROR", message: "store error", error: String(err && err.stack || err) }));
  return internal();
}

// ---------------------------------------------------------------------------------------------
// Responses

/** A JSON response (`api::json`): the body as text, `content-type: application/json`. */
export function json(status, body, headers = {}) {
  return {
    statusCode: status,
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
}

/** The response of an error (`api::error_response`); a 503 says when to retry. */
export function errorResponse(e) {
  const headers = e.status === 503 ? { "retry-after": "1" } : {};
  return json(e.status, { code: e.code, message: e.message }, headers);
}

// ---------------------------------------------------------------------------------------------
// Request parameters

/** A path parameter as an identifier (`api::path_id`). */
export function pathId(event, name) {
  const value = event.pathParameters ? event.pathParameters[name] : undefined;
  if (typeof value !== "string") throw invalidParameter(name, "missing");
  try {
    return parseId(name, value);
  } catch (e) {
    if (e instanceof KeyError) throw badRequest("invalid_parameter", e.message);
    throw e;
  }
}

/**
 * The query parameters as `lambda_http` builds them for a 2.0 event: parsed from
 * `rawQueryString` (WHATWG form decoding) when present, else `queryStringParameters`.
 */
function queryMap(event) {
  if (!event.__query) {
    let q;
    if (typeof event.rawQueryString === "string") {
      q = new URLSearchParams(event.rawQueryString);
    } else {
      q = new URLSearchParams();
      for (const [k, v] of Object.entries(event.queryStringParameters || {})) q.append(k, v);
    }
    Object.defineProperty(event, "__query", { value: q, enumerable: false });
  }
  return event.__query;
}

/** A query parameter, first value; present but empty counts as absent (`api::query`). */
export function query(event, name) {
  const v = queryMap(event).get(name);
  return v === null || v === "" ? undefined : v;
}

/** An integer query parameter within `min..=max`, or `dflt` when absent (`api::query_u32`). */
export function queryU32(event, name, dflt, min, max) {
  const v = query(event, name);
  if (v === undefined) return dflt;
  // Rust's `u32::from_str`: an optional `+`, then ASCII digits, at most u32::MAX.
  const n = /^\+?[0-9]+$/.test(v) ? Number(v.replace("+", "")) : NaN;
  if (!(n <= 0xffffffff) || n < min || n > max) {
    throw invalidParameter(name, `${debugStr(v)} is not an integer from ${min} to ${max}`);
  }
  return n;
}

function queryDate(event, name) {
  const v = query(event, name);
  if (v === undefined) return undefined;
  try {
    return parseIsoDate(v);
  } catch (e) {
    if (e instanceof KeyError) throw invalidParameter(name, e.message);
    throw e;
  }
}

/** `?from=&to=` (`api::query_order_dates`): both ends included, open-ended when omitted. */
export function queryOrderDates(event) {
  const earliest = date(1970, 1, 1);
  const from = queryDate(event, "from") ?? earliest;
  const to = queryDate(event, "to") ?? date(9999, 12, 31);
  // Zero-padded ISO dates compare as dates.
  if (from.iso < earliest.iso) throw invalidParameter("from", "give a date from 1970-01-01");
  if (from.iso > to.iso) throw badRequest("invalid_range", `from (${from.iso}) is after to (${to.iso})`);
  return { from, to };
}

/** A header's value, if present (API Gateway sends lower-case names). */
export function header(event, name) {
  const headers = event.headers || {};
  if (name in headers) return headers[name];
  const found = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return found === undefined ? undefined : headers[found];
}

// ---------------------------------------------------------------------------------------------
// Authorization (`api::auth`)

export const STAFF = { kind: "staff" };
export const owner = (param, notFoundCode) => ({ kind: "owner", param, notFoundCode });

/** The caller from the JWT authorizer's claims; `undefined` without a token. */
function caller(event) {
  const claims = event.requestContext?.authorizer?.jwt?.claims;
  if (!claims) return undefined;
  const sub = claims.sub;
  if (typeof sub !== "string" || sub === "") return undefined;
  const groups = claims["cognito:groups"];
  // API Gateway flattens a list claim to `[a b]`; other emulators send `["a","b"]`.
  const staff =
    typeof groups === "string" &&
    groups
      .trim()
      .replace(/^\[+/, "")
      .replace(/\]+$/, "")
      .split(/[ ,]/)
      .map((g) => g.trim().replace(/^"+|"+$/g, ""))
      .some((g) => g === "staff");
  return { sub, staff };
}

/** Enforces `access` before the handler runs (`api::auth::authorize`). */
function authorize(access, event) {
  const who = caller(event);
  if (!who) throw new ApiError(401, "unauthorized", "Sign in: this route needs a bearer token.");
  if (access.kind === "staff") {
    if (!who.staff) throw new ApiError(403, "forbidden", "Only staff may do this.");
    return who;
  }
  // A malformed id is a 400 whoever asks: it says nothing about what exists.
  const id = pathId(event, access.param);
  if (who.sub !== id) {
    throw notFound(access.notFoundCode, `There is no ${access.param} ${id} that you can see.`);
  }
  return who;
}

/**
 * A Lambda handler for API Gateway events (`api::serve` + `api::dispatch`): authorize, handle,
 * and turn every error into its JSON answer. A 5xx is logged.
 */
export function serve(access, handle) {
  return async (event) => {
    try {
      authorize(access, event);
      return await handle(event);
    } catch (err) {
      const e = fromStoreError(err);
      if (e.status >= 500) console.error(JSON.stringify({ level: "ERROR", code: e.code, message: `answered ${e.status}` }));
      return errorResponse(e);
    }
  };
}

/** `TABLE_NAME` and the like: a missing setting stops the function at init, as `Deps::from_env`. */
export function requireEnv(name) {
  const v = process.env[name];
  if (v === undefined) throw new Error(`configuration: ${name} is not set`);
  return v;
}
