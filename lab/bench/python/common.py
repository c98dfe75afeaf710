"""What the three handlers share: the Python counterpart of the parts of `shared/` (api, auth,
keys, model, store, cursor) that C1, C3 and O5 use. Imported once per process, at init.

Not part of the backend: a benchmark peer of the Rust functions (see README.md).

Items are converted by hand (S and N only, which is all these items hold) rather than with
boto3.dynamodb.types.TypeSerializer/TypeDeserializer: those go through decimal.Decimal for every
number, which the views would then have to turn back into int before json.dumps.
"""

import base64
import hashlib
import hmac
import json
import os
import random
import re
import sys
import time
import unicodedata
from datetime import date, datetime, timedelta, timezone
from urllib.parse import parse_qsl

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

# ---------------------------------------------------------------------------------------------
# Configuration, read once (as `store::Deps::from_env`): a bad setting fails the init.

TABLE = os.environ.get("TABLE_NAME") or ""
if not TABLE:
    raise RuntimeError("configuration: TABLE_NAME is not set")

MAX_SHARDS = 100  # keys::Shard::MAX_COUNT


def shard_count_from_env(name):
    """`ORDER_STATUS_SHARDS`: 1..=100 (store::deps::count_from_env)."""
    raw = os.environ.get(name)
    if raw is None:
        raise RuntimeError(f"configuration: {name} is not set")
    n = parse_u32(raw)
    if n is None:
        raise RuntimeError(f"configuration: {name} is not a number: {rust_str_debug(raw)}")
    if not 1 <= n <= MAX_SHARDS:
        raise RuntimeError(f"configuration: {name} must be 1..={MAX_SHARDS}, not {n}")
    return n


def make_client(max_pool_connections=10):
    """The DynamoDB client, made once. Region from AWS_REGION (which Lambda sets beside
    AWS_DEFAULT_REGION; botocore itself reads only the latter), endpoint from
    AWS_ENDPOINT_URL_DYNAMODB (botocore reads it). Retries as the Rust SDK's defaults: standard
    mode, 3 attempts in all."""
    return boto3.client(
        "dynamodb",
        region_name=os.environ.get("AWS_REGION") or None,
        config=Config(
            retries={"mode": "standard", "max_attempts": 3},
            max_pool_connections=max_pool_connections,
        ),
    )


# ---------------------------------------------------------------------------------------------
# Errors and responses (api::ApiError, api::json, api::error_response)


class ApiError(Exception):
    def __init__(self, status, code, message):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


def bad_request(code, message):
    return ApiError(400, code, message)


def invalid_parameter(name, why):
    return bad_request("invalid_parameter", f"{name}: {why}")


def internal(detail):
    # Logged, as api::From<StoreError> logs it; the client learns nothing.
    print(f"store error: {detail}", file=sys.stderr)
    return ApiError(500, "internal_error", "Something went wrong on our side; try again later.")


def throttled(detail):
    print(f"throttled: {detail}", file=sys.stderr)
    return ApiError(503, "throttled", "The service is busy; retry after a short pause.")


def dumps(value):
    """serde_json's compact form: no spaces, non-ASCII as is, the same escapes."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def body_reason(field, message):
    """api::body::words::reason: serde's refusal `message` of the body's `field`
    (serde_path_to_error's path, `.` for the body) in the API's words."""
    field = "" if field == "." else field

    def member(name):
        return f"{field}.{name}" if field else name

    def quoted_after(prefix):
        if not message.startswith(prefix + "`"):
            return None
        rest = message[len(prefix) + 1:]
        return rest.split("`", 1)[0] if "`" in rest else None

    def names_after():
        if "expected " not in message:
            return []
        return message.split("expected ", 1)[1].split("`")[1::2]

    name = quoted_after("missing field ")
    if name is not None:
        return f"{member(name)} is required."
    name = quoted_after("unknown field ")
    if name is not None:
        known = names_after()
        unknown = field or name  # the path already ends in the unknown field
        if not known:
            return f"{unknown} is not a field here; this object takes none."
        return f"{unknown} is not a field here; the fields are {', '.join(known)}."
    for kind in ("invalid type: ", "invalid value: "):
        if message.startswith(kind) and ", expected " in message:
            given, expected = message[len(kind):].rsplit(", expected ", 1)
            return f"{field}: {_given_value(given)} is not {_accepted(expected)}."
    if message.startswith("invalid length "):
        return f"{field}: a list of the wrong length."
    return f"{field}: {message}" if field else message


def _given_value(given):
    if given.startswith("string "):
        return given[len("string "):]
    if given in ("null", "unit value"):
        return "null"
    if given == "sequence":
        return "a list"
    if given == "map":
        return "an object"
    ticked = given.split("`")
    return ticked[1] if len(ticked) > 1 else given


def _accepted(expected):
    whole = {"u8": ("0", "255"), "u16": ("0", "65535"), "u32": ("0", "4294967295"),
             "i8": ("-128", "127"), "i16": ("-32768", "32767"),
             "i32": ("-2147483648", "2147483647")}
    if expected in whole:
        return "a whole number from %s to %s" % whole[expected]
    if expected in ("u64", "usize"):
        return "a whole number, 0 or more"
    if expected in ("i64", "isize"):
        return "a whole number"
    if expected in ("f32", "f64"):
        return "a number"
    if expected == "a boolean":
        return "true or false"
    if expected in ("a string", "a borrowed string", "a character"):
        return "a string"
    if expected == "a sequence":
        return "a list"
    if expected == "a map" or expected.startswith("struct "):
        return "an object"
    if expected.startswith(("tuple", "a tuple")):
        return "a list"
    if expected.startswith(("enum ", "variant ")):
        return "one of the listed values"
    return expected


def json_response(status, body, headers=None):
    h = {"content-type": "application/json"}
    drifted = []
    _take_drift(body, drifted)
    if drifted:
        h["x-derived-inconsistent"] = ", ".join(drifted)
    if headers:
        h.update(headers)
    return {"statusCode": status, "headers": h, "body": dumps(body)}


def error_response(e):
    if e.status >= 500:
        print(f"answered {e.status} ({e.code})", file=sys.stderr)
    h = {"content-type": "application/json"}
    if e.status == 503:
        h["retry-after"] = "1"
    return {"statusCode": e.status, "headers": h, "body": dumps({"code": e.code, "message": e.message})}


DRIFT = "_drift"


def _take_drift(value, names):
    """api::views::take_drift: removes the views' drift notes, collecting their names."""
    if isinstance(value, dict):
        found = value.pop(DRIFT, None)
        if isinstance(found, list):
            names.extend(v for v in found if isinstance(v, str))
        for v in value.values():
            _take_drift(v, names)
    elif isinstance(value, list):
        for v in value:
            _take_drift(v, names)


def store_error(e):
    """store::error::from_sdk, then api::From<StoreError>: a throttle is a 503, the rest a 500."""
    if isinstance(e, ClientError):
        code = e.response.get("Error", {}).get("Code", "")
        if code in THROTTLES:
            return throttled(str(e))
    return internal(str(e))


THROTTLES = {
    "ProvisionedThroughputExceededException",
    "RequestLimitExceeded",
    "ThrottlingException",
    "TransactionConflictException",
}
SDK_ERRORS = (ClientError, BotoCoreError)

# ---------------------------------------------------------------------------------------------
# Rust's Debug formatting, for the messages that quote a value ({:?})


def _escaped_in_debug(c):
    cat = unicodedata.category(c)
    return cat in ("Mn", "Me") or not c.isprintable()


def _escape_char(c):
    table = {"\0": "\\0", "\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\"}
    if c in table:
        return table[c]
    if _escaped_in_debug(c):
        return "\\u{%x}" % ord(c)
    return c


def rust_char_debug(c):
    return "'" + ("\\'" if c == "'" else _escape_char(c)) + "'"


def rust_str_debug(s):
    return '"' + "".join('\\"' if c == '"' else _escape_char(c) for c in s) + '"'


# ---------------------------------------------------------------------------------------------
# Identifiers, numbers, dates, timestamps (keys::Id, keys::Date, keys::Timestamp)

MAX_ID_LEN = 64
_ID_CHARS = re.compile(r"[A-Za-z0-9._-]*")


def parse_id(what, value):
    """keys::Id::parse: 1 to 64 ASCII letters, digits, '-', '_' or '.', not "." or ".."; raises ValueError with
    the KeyError's text."""
    if value == "":
        raise ValueError(f"{what} must not be empty")
    if len(value) > MAX_ID_LEN:
        raise ValueError(f"{what} is longer than {MAX_ID_LEN} characters")
    if not _ID_CHARS.fullmatch(value):
        bad = next(c for c in value if not (c.isascii() and (c.isalnum() or c in "-_.")))
        raise ValueError(
            f"{what} may only contain letters, digits, '-', '_' and '.'; found {rust_char_debug(bad)}"
        )
    if value in (".", ".."):  # a URL path cannot address it
        raise ValueError(f'{what} may not be "." or "..": a URL cannot address it')
    return value


_U_INT = re.compile(r"\+?[0-9]+")


def parse_u32(s):
    """Rust's `str::parse::<u32>`: an optional '+', ASCII digits, at most u32::MAX."""
    if not _U_INT.fullmatch(s):
        return None
    n = int(s)
    return n if n <= 0xFFFFFFFF else None


_ISO_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")


def parse_iso_date(s):
    """keys::Date::parse_iso: `YYYY-MM-DD`, years 0000-9999, a real calendar day. A tuple
    (y, m, d), which orders as dates do; raises ValueError with the KeyError's text."""
    m = _ISO_DATE.fullmatch(s)
    if not m:
        raise ValueError(f"{rust_str_debug(s)} is not a valid calendar date (expected YYYY-MM-DD)")
    y, mo, d = (int(g) for g in m.groups())
    try:
        # Year 0 (proleptic, a leap year) is valid for Rust's `time`; 2000 has its calendar.
        date(y if y > 0 else 2000, mo, d)
    except ValueError:
        raise ValueError(
            f"{rust_str_debug(s)} is not a valid calendar date (expected YYYY-MM-DD)"
        ) from None
    return (y, mo, d)


def iso(d):
    return "%04d-%02d-%02d" % d


_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def date_start_ms(d):
    """Milliseconds at 00:00:00.000 UTC of a date from 1970 (the only ones that reach here)."""
    return (date(*d).toordinal() - _EPOCH_ORDINAL) * 86_400_000


def date_end_ms(d):
    return date_start_ms(d) + 86_400_000 - 1


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def iso_timestamp(ms):
    """keys::iso_timestamp: `2002-08-05T02:46:00.000Z`."""
    t = _EPOCH + timedelta(milliseconds=ms)
    return "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ" % (
        t.year, t.month, t.day, t.hour, t.minute, t.second, ms % 1000,
    )


# ---------------------------------------------------------------------------------------------
# ULIDs (keys::SortableId): 48 bits of milliseconds, 80 random bits, Crockford base 32

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
RANDOM_MAX = (1 << 80) - 1


def ulid(ms, rand):
    n = ((ms & ((1 << 48) - 1)) << 80) | (rand & RANDOM_MAX)
    out = []
    for _ in range(26):
        out.append(_CROCKFORD[n & 31])
        n >>= 5
    return "".join(reversed(out))


def new_ulid():
    """A new id for now, and its milliseconds (Ulid::new)."""
    ms = time.time_ns() // 1_000_000
    return ulid(ms, int.from_bytes(os.urandom(10), "big")), ms


# ---------------------------------------------------------------------------------------------
# Items: hand-written conversion of the S and N attributes these items hold


def S(v):
    return {"S": v}


def N(v):
    return {"N": str(v)}


def s_of(item, name):
    """A required string attribute; a missing or mistyped one is a corrupt item (500)."""
    v = item.get(name)
    if not v or "S" not in v:
        raise internal(f"corrupt item: {name} is not a string")
    return v["S"]


_I_INT = re.compile(r"[+-]?[0-9]+")


def int_of(item, name, lo, hi):
    """A required integer attribute in lo..=hi (i64: Total, u64: ItemCount)."""
    v = item.get(name)
    raw = v.get("N") if v else None
    if raw is None or not _I_INT.fullmatch(raw) or not lo <= int(raw) <= hi:
        raise internal(f"corrupt item: {name} is not an integer in range")
    return int(raw)


I64 = (-(1 << 63), (1 << 63) - 1)
U64 = (0, (1 << 64) - 1)


def derived(item, name, drift):
    """model::Derived as a view shows it: a non-negative i64, else null and named in `drift`.
    Absent counts as 0 (nothing added yet)."""
    v = item.get(name)
    if v is None:
        return 0
    n = None
    if "N" in v:
        raw = v["N"]
        if _I_INT.fullmatch(raw):
            n = int(raw) if I64[0] <= int(raw) <= I64[1] else None
        else:
            try:
                f = float(raw)
                if f.is_integer() and -(2.0**63) <= f <= 2.0**63:
                    n = int(f)
            except ValueError:
                n = None
    elif "S" in v and _I_INT.fullmatch(v["S"]) and I64[0] <= int(v["S"]) <= I64[1]:
        n = int(v["S"])
    if n is None or n < 0:
        drift.append(name[0].lower() + name[1:])
        return None
    return n


def type_of(item):
    t = item.get("Type")
    return t.get("S") if t else None


# ---------------------------------------------------------------------------------------------
# The API Gateway HTTP API (payload 2.0) event, as lambda_http reads it


def path_param(event, name):
    return (event.get("pathParameters") or {}).get(name)


def path_id(event, name):
    """api::path_id: a path parameter as an identifier."""
    value = path_param(event, name)
    if value is None:
        raise invalid_parameter(name, "missing")
    try:
        return parse_id(name, value)
    except ValueError as e:
        raise bad_request("invalid_parameter", str(e)) from None


def query_params(event):
    """lambda_http parses `rawQueryString` (URL-encoded form rules) and ignores
    `queryStringParameters` unless there is no raw string. The first value of a name wins."""
    raw = event.get("rawQueryString")
    if raw is not None:
        out = {}
        for k, v in parse_qsl(raw, keep_blank_values=True):
            out.setdefault(k, v)
        return out
    return {k: (v.split(",")[0] if isinstance(v, str) else v)
            for k, v in (event.get("queryStringParameters") or {}).items()}


def query(params, name):
    """api::query: present but empty counts as absent."""
    v = params.get(name)
    return v if v else None


def query_u32(params, name, default, lo, hi):
    v = query(params, name)
    if v is None:
        return default
    n = parse_u32(v)
    if n is None or not lo <= n <= hi:
        raise invalid_parameter(name, f"{rust_str_debug(v)} is not an integer from {lo} to {hi}")
    return n


def header(event, name):
    """A header (API Gateway gives them lower-cased; looked up without regard to case)."""
    for k, v in (event.get("headers") or {}).items():
        if k.lower() == name:
            return v
    return None


# ---------------------------------------------------------------------------------------------
# Who may call (api::auth)

GROUPS_CLAIM = "cognito:groups"
STAFF_GROUP = "staff"


def caller(event):
    """(sub, staff) from the JWT authorizer's claims; None without a token."""
    try:
        claims = event["requestContext"]["authorizer"]["jwt"]["claims"]
    except (KeyError, TypeError):
        return None
    sub = claims.get("sub") if isinstance(claims, dict) else None
    if not isinstance(sub, str) or not sub:
        return None
    groups = claims.get(GROUPS_CLAIM)
    staff = isinstance(groups, str) and STAFF_GROUP in _flattened_list(groups)
    return sub, staff


def _flattened_list(value):
    """`[a b c]` as API Gateway flattens a list claim (or `["a","b"]`)."""
    inner = value.strip().lstrip("[").rstrip("]")
    return [g for g in (p.strip().strip('"') for p in re.split("[ ,]", inner)) if g]


def signed_in_caller(event):
    c = caller(event)
    if c is None:
        raise ApiError(401, "unauthorized", "Sign in: this route needs a bearer token.")
    return c


def authorize_owner(event, param, not_found):
    """Access::Owner: the caller whose `sub` is the path parameter; anyone else a 404."""
    sub, _ = signed_in_caller(event)
    owner = path_id(event, param)
    if sub != owner:
        raise ApiError(404, not_found, f"There is no {param} {owner} that you can see.")


def authorize_staff(event):
    """Access::Staff: staff only; anyone else a 403."""
    _, staff = signed_in_caller(event)
    if not staff:
        raise ApiError(403, "forbidden", "Only staff may do this.")


# ---------------------------------------------------------------------------------------------
# Views (api::views::commerce)


def customer_view(item):
    drift = []
    view = {
        "customerId": s_of(item, "CustomerId"),
        "name": s_of(item, "Name"),
        "email": s_of(item, "Email"),
        "createdAt": s_of(item, "CreatedAt"),
        "updatedAt": s_of(item, "UpdatedAt"),
        "orderCount": derived(item, "OrderCount", drift),
        "lifetimeValue": derived(item, "LifetimeValue", drift),
        "accountRepId": item["AccountRepId"]["S"] if "AccountRepId" in item else None,
    }
    if drift:
        view[DRIFT] = drift
    return view


def order_summary_view(item):
    return {
        "orderId": s_of(item, "OrderId"),
        "customerId": s_of(item, "CustomerId"),
        "status": s_of(item, "Status"),
        "createdAt": s_of(item, "CreatedAt"),
        "currency": item["Currency"]["S"] if "Currency" in item else None,
        "total": int_of(item, "Total", *I64),
        "itemCount": int_of(item, "ItemCount", *U64),
        "accountRepId": item["AccountRepId"]["S"] if "AccountRepId" in item else None,
    }


# ---------------------------------------------------------------------------------------------
# Retries (store::retry): exponential backoff with full jitter, 2 ms doubling to 64 ms


def backoff(attempt):
    ceiling_us = min(2 << min(attempt - 1, 16), 64) * 1000
    time.sleep((random.randrange(ceiling_us) + 100) / 1e6)


# ---------------------------------------------------------------------------------------------
# Cursors (store::cursor::CursorCodec): HMAC-SHA256 over the JSON payload {"b": binding,
# "k": key}, `<key id>.<payload>.<signature>`, base64url without padding. Byte-identical to
# the Rust codec's output for the same binding and key.

MAX_CURSOR_LEN = 8192
MIN_SECRET_LEN = 32


class CursorError(Exception):
    pass


MALFORMED = "the cursor is malformed"
BAD_SIGNATURE = "the cursor's signature does not match"
WRONG_BINDING = "the cursor was issued for another query"


def b64e(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode("ascii")


def b64d(s):
    """URL_SAFE_NO_PAD.decode: no padding, no stray characters, canonical trailing bits."""
    if not re.fullmatch(r"[A-Za-z0-9_-]*", s) or len(s) % 4 == 1:
        raise CursorError(MALFORMED)
    b = base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
    if b64e(b) != s:
        raise CursorError(MALFORMED)
    return b


class CursorCodec:
    def __init__(self, current, previous=None):
        self.keys = [self._key(current)] + ([self._key(previous)] if previous else [])

    @staticmethod
    def _key(secret):
        secret = secret.encode("utf-8")
        if len(secret) < MIN_SECRET_LEN:
            raise RuntimeError(
                f"configuration: a cursor signing key must be at least {MIN_SECRET_LEN} bytes"
            )
        return b64e(hashlib.sha256(secret).digest()[:6]), secret

    @classmethod
    def from_env(cls):
        current = os.environ.get("CURSOR_SIGNING_KEY")
        if current is None:
            raise RuntimeError("configuration: CURSOR_SIGNING_KEY is not set")
        return cls(current, os.environ.get("CURSOR_SIGNING_KEY_PREVIOUS") or None)

    def encode(self, binding, key):
        """`key`: attribute name -> string value (serde's BTreeMap: sorted by name)."""
        payload = dumps({"b": binding, "k": dict(sorted(key.items()))}).encode("utf-8")
        key_id, secret = self.keys[0]
        sig = hmac.new(secret, payload, hashlib.sha256).digest()
        return f"{key_id}.{b64e(payload)}.{b64e(sig)}"

    def decode(self, binding, cursor):
        """The cursor's key (name -> string) if it was issued for `binding`; CursorError if not."""
        if len(cursor.encode("utf-8")) > MAX_CURSOR_LEN:
            raise CursorError(MALFORMED)
        parts = cursor.split(".")
        if len(parts) == 3:
            key_id, payload, sig = parts
        elif len(parts) == 2:
            key_id, (payload, sig) = None, parts
        else:
            raise CursorError(MALFORMED)
        payload, sig = b64d(payload), b64d(sig)
        candidates = [s for i, s in self.keys if key_id is None or i == key_id]
        if not any(
            hmac.compare_digest(hmac.new(s, payload, hashlib.sha256).digest(), sig)
            for s in candidates
        ):
            raise CursorError(BAD_SIGNATURE)
        try:
            p = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise CursorError(MALFORMED) from None
        if (
            not isinstance(p, dict)
            or not isinstance(p.get("b"), str)
            or not isinstance(p.get("k"), dict)
            or not all(isinstance(v, str) for v in p["k"].values())
        ):
            raise CursorError(MALFORMED)
        if p["b"] != binding:
            raise CursorError(WRONG_BINDING)
        return p["k"]


def cursor_error(e):
    return bad_request(
        "invalid_cursor",
        f"{e}: pass back the nextCursor of the previous page unchanged, with the same parameters",
    )
