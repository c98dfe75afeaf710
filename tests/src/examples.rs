//! The documentation's examples cannot drift: every `$ curl` line in a fenced block of README.md,
//! CONTRIBUTING.md or a page under docs/ is sent to a fresh local stack seeded as `make seed` seeds
//! it, and its answer must be the JSON the page shows under it.
//!
//! A page shows plain shell and the answer as `jq` prints it:
//!
//! ```text
//! $ curl -s -H "$(as 123)" 'localhost:3000/customers/123?orders=2' | jq
//! { "customer": { ... }, "orders": [ ... ] }
//! ```
//!
//! - The request: `-X METHOD`, `-H 'name: value'` (repeatable), `-d BODY` (a POST unless `-X`
//!   says otherwise; sent as curl sends it, `application/x-www-form-urlencoded`), `-s`, and the
//!   URL `localhost:3000/...`. The caller is `$(as SUB [GROUP])` (the pages define `as`, a whole
//!   `authorization` header) or `$(make -s token SUB=... [GROUPS=...])`, signed by the stack's
//!   issuer. After `| jq`, an optional filter of fields and indexes (`.order`, `.items[0]`).
//!   Anything else is refused, so a page cannot hold an example this test does not run.
//! - The answer: the lines up to the next `$` line or the end of the block, compared structurally
//!   (key order aside, numbers by value). Nothing shown means an empty body.
//! - Examples run in the page's order on one stack per page, as a reader runs them after
//!   `make reset`; before each one, if the one before wrote, the test waits until the stack's
//!   stream handlers have caught up (`GET /_local/streams`), so a page shows derived values
//!   (counts, ratings, statuses) once they are derived.
//! - Values the server makes during the run are volatile: a timestamp or a ULID (`orderId`,
//!   `eventId`) whose instant falls within the run. The page's value need only have the same shape,
//!   and an id the page shows is the id later requests of the page use: the test substitutes the id
//!   the server returned wherever the page writes it afterwards (in a path, a header, a body, or an
//!   answer, which must then show the same id). Values of the seed (2020's orders, 2026's) are
//!   compared as they are.
//! - A cursor (`nextCursor`) is compared as `make run` would seal it: the page's cursor must
//!   hold, under the Makefile's `LOCAL_CURSOR_KEY`, the page the test stack's cursor holds.
//!
//! `UPDATE_EXAMPLES=1 cargo test -p tests examples` rewrites each shown answer that differs with
//! the answer received (volatile values kept as the page had them): review the diff.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::stack::{Stack, start_stack};

/// The host and port every example names: `make run`'s API.
const HOSTS: [&str; 2] = ["localhost:3000", "127.0.0.1:3000"];

/// The pages whose examples run, relative to the workspace root.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut pages = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    pages.retain(|p| p.is_file());
    pages.sort();
    pages
}

/// A piece of a shell word: literal text, or a command substitution `$(...)`.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Text(String),
    Command(String),
}

type Word = Vec<Piece>;

/// A caller's token: `sub` in `groups`.
type Tokens<'a> = &'a dyn Fn(&str, &[&str]) -> String;

#[derive(Debug, Clone)]
struct Request {
    method: String,
    /// Path and query, as the URL writes them.
    path: Word,
    headers: Vec<Word>,
    body: Option<Word>,
}

impl Request {
    /// Whether it may change the stack's data: anything but a GET.
    fn writes(&self) -> bool {
        self.method != "GET"
    }
}

/// One `$ curl` example of a page.
#[derive(Debug)]
struct Example {
    /// 1-based line of the `$ curl` line.
    line: usize,
    command: String,
    request: Request,
    /// The `jq` filter: field names and indexes.
    filter: Vec<Step>,
    /// The lines (0-based, end exclusive) of the answer shown; empty at the line after the
    /// command when none is.
    shown_lines: (usize, usize),
    shown: Option<Value>,
}

#[derive(Debug, Clone, PartialEq)]
enum Step {
    Field(String),
    Index(usize),
}

/// The examples of a page, or what is wrong with them.
fn parse_page(text: &str) -> Result<Vec<Example>, Vec<String>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut examples = Vec::new();
    let mut errors = Vec::new();
    let mut fence: Option<String> = None;
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim_start();
        match &fence {
            None => {
                if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                    fence = Some(
                        trimmed
                            .chars()
                            .take_while(|&c| c == '`' || c == '~')
                            .collect(),
                    );
                }
                i += 1;
                continue;
            }
            Some(open) if trimmed.starts_with(open.as_str()) => {
                fence = None;
                i += 1;
                continue;
            }
            Some(_) => {}
        }
        let Some(command) = trimmed
            .strip_prefix("$ ")
            .filter(|c| c.starts_with("curl "))
        else {
            i += 1;
            continue;
        };
        // The answer: every line up to the next prompt or the end of the block.
        let start = i + 1;
        let mut end = start;
        while end < lines.len() {
            let t = lines[end].trim_start();
            if t.starts_with("$ ") || fence.as_deref().is_some_and(|f| t.starts_with(f)) {
                break;
            }
            end += 1;
        }
        let (mut first, mut last) = (start, end);
        while first < last && lines[first].trim().is_empty() {
            first += 1;
        }
        while last > first && lines[last - 1].trim().is_empty() {
            last -= 1;
        }
        let shown_text = lines[first..last].join("\n");
        let parsed = parse_curl(command).and_then(|(request, filter)| {
            let shown = if shown_text.trim().is_empty() {
                None
            } else {
                Some(
                    serde_json::from_str(&shown_text)
                        .map_err(|e| format!("the answer shown is not JSON: {e}"))?,
                )
            };
            Ok((request, filter, shown))
        });
        match parsed {
            Ok((request, filter, shown)) => examples.push(Example {
                line: i + 1,
                command: command.to_owned(),
                request,
                filter,
                shown_lines: if first < last {
                    (first, last)
                } else {
                    (start, start)
                },
                shown,
            }),
            Err(e) => errors.push(format!("line {}: {e}: {command}", i + 1)),
        }
        i = end;
    }
    if errors.is_empty() {
        Ok(examples)
    } else {
        Err(errors)
    }
}

/// Splits a command line into shell words (quotes, `\` escapes, `$(...)`), up to an unquoted `#`.
/// `|` is a word of its own.
fn shell_words(line: &str) -> Result<Vec<Word>, String> {
    let chars: Vec<char> = line.chars().collect();
    let mut words = Vec::new();
    let mut word: Word = Vec::new();
    let mut in_word = false;
    let mut i = 0;
    fn push_char(word: &mut Word, c: char) {
        match word.last_mut() {
            Some(Piece::Text(t)) => t.push(c),
            _ => word.push(Piece::Text(c.to_string())),
        }
    }
    // `$(...)` starting at `i` (the `$`): the command and the index after `)`.
    let substitution = |i: usize| -> Result<(String, usize), String> {
        let mut depth = 0;
        for (j, &c) in chars.iter().enumerate().skip(i + 1) {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok((chars[i + 2..j].iter().collect(), j + 1));
                    }
                }
                _ => {}
            }
        }
        Err("an unclosed $(".into())
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
                i += 1;
            }
            '#' if !in_word => break,
            '|' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
                words.push(vec![Piece::Text("|".into())]);
                i += 1;
            }
            '\'' => {
                in_word = true;
                let close = chars[i + 1..]
                    .iter()
                    .position(|&c| c == '\'')
                    .ok_or("an unclosed '")?;
                for &c in &chars[i + 1..i + 1 + close] {
                    push_char(&mut word, c);
                }
                // An empty '' is still a word.
                if word.is_empty() {
                    word.push(Piece::Text(String::new()));
                }
                i += close + 2;
            }
            '"' => {
                in_word = true;
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err("an unclosed \"".into()),
                        Some('"') => {
                            i += 1;
                            break;
                        }
                        Some('\\') if matches!(chars.get(i + 1), Some('"' | '\\' | '$' | '`')) => {
                            push_char(&mut word, chars[i + 1]);
                            i += 2;
                        }
                        Some('$') if chars.get(i + 1) == Some(&'(') => {
                            let (command, next) = substitution(i)?;
                            word.push(Piece::Command(command));
                            i = next;
                        }
                        Some('$' | '`') => {
                            return Err("a shell variable or backquote in a quoted word".into());
                        }
                        Some(&c) => {
                            push_char(&mut word, c);
                            i += 1;
                        }
                    }
                }
            }
            '\\' => {
                in_word = true;
                let next = chars.get(i + 1).ok_or("a trailing \\")?;
                push_char(&mut word, *next);
                i += 2;
            }
            '$' if chars.get(i + 1) == Some(&'(') => {
                in_word = true;
                let (command, next) = substitution(i)?;
                word.push(Piece::Command(command));
                i = next;
            }
            '$' | '`' | ';' | '&' | '<' | '>' => {
                return Err(format!("'{c}' outside quotes"));
            }
            _ => {
                in_word = true;
                push_char(&mut word, c);
                i += 1;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// The word as plain text, if it has no command substitution.
fn plain(word: &Word) -> Option<String> {
    let mut out = String::new();
    for piece in word {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Command(_) => return None,
        }
    }
    Some(out)
}

/// What a command substitution prints: `as SUB [GROUP]` (an `authorization` header) or
/// `make -s token SUB=... [GROUPS=...]` (a token).
fn run_substitution(command: &str, tokens: Tokens) -> Result<String, String> {
    let words: Vec<&str> = command.split_whitespace().collect();
    match words.as_slice() {
        ["as", sub] => Ok(format!("authorization: {}", tokens(sub, &[]))),
        ["as", sub, group] => Ok(format!("authorization: {}", tokens(sub, &[group]))),
        ["make", "-s", "token", rest @ ..] => {
            let mut sub = None;
            let mut groups = Vec::new();
            for w in rest {
                if let Some(s) = w.strip_prefix("SUB=") {
                    sub = Some(s);
                } else if let Some(g) = w.strip_prefix("GROUPS=") {
                    groups.extend(g.split(',').filter(|g| !g.is_empty()));
                } else {
                    return Err(format!("make token: unknown argument {w}"));
                }
            }
            let sub = sub.ok_or("make token without SUB=")?;
            let bearer = tokens(sub, &groups);
            Ok(bearer.strip_prefix("Bearer ").unwrap_or(&bearer).to_owned())
        }
        _ => Err(format!(
            "$({command}): only $(as SUB [GROUP]) and $(make -s token SUB=...) are understood"
        )),
    }
}

/// The word with its substitutions run and the ids the server gave substituted for the page's.
fn expand(word: &Word, tokens: Tokens, ids: &BTreeMap<String, String>) -> Result<String, String> {
    let mut out = String::new();
    for piece in word {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Command(c) => out.push_str(&run_substitution(c, tokens)?),
        }
    }
    for (shown, actual) in ids {
        out = out.replace(shown, actual);
    }
    Ok(out)
}

/// A `curl ... [| jq [FILTER]]` command line.
fn parse_curl(command: &str) -> Result<(Request, Vec<Step>), String> {
    let words = shell_words(command)?;
    let bar = words.iter().position(|w| plain(w).as_deref() == Some("|"));
    let (curl, jq) = match bar {
        Some(b) => (&words[..b], Some(&words[b + 1..])),
        None => (&words[..], None),
    };
    let mut method = None;
    let mut url = None;
    let mut headers = Vec::new();
    let mut body = None;
    let mut rest = curl.iter().skip(1);
    while let Some(word) = rest.next() {
        let flag = plain(word);
        let mut value = || {
            rest.next()
                .cloned()
                .ok_or_else(|| format!("{} needs a value", flag.as_deref().unwrap_or("?")))
        };
        match flag.as_deref() {
            Some("-s" | "--silent" | "-sS" | "-S") => {}
            Some("-X" | "--request") => {
                method = Some(plain(&value()?).ok_or("a computed method")?);
            }
            Some("-H" | "--header") => headers.push(value()?),
            Some("-d" | "--data" | "--data-raw") => {
                if body.is_some() {
                    return Err("two -d".into());
                }
                body = Some(value()?);
            }
            Some(f) if f.starts_with('-') => return Err(format!("curl {f} is not understood")),
            _ if url.is_some() => return Err("two URLs".into()),
            _ => url = Some(word.clone()),
        }
    }
    let url = url.ok_or("no URL")?;
    let url = plain(&url).ok_or("a computed URL")?;
    let url = url.strip_prefix("http://").unwrap_or(&url);
    let path = HOSTS
        .iter()
        .find_map(|h| url.strip_prefix(h))
        .ok_or_else(|| format!("the URL {url} is not on {}", HOSTS[0]))?;
    let path = if path.is_empty() { "/" } else { path };
    if !path.starts_with('/') {
        return Err(format!("the URL {url} has no path"));
    }
    let method = method.unwrap_or_else(|| if body.is_some() { "POST" } else { "GET" }.into());
    // Every substitution is one the test can run.
    for word in headers.iter().chain(&body) {
        for piece in word {
            if let Piece::Command(c) = piece {
                run_substitution(c, &|_, _| String::new())?;
            }
        }
    }
    let filter = match jq {
        None => Vec::new(),
        Some([jq]) if plain(jq).as_deref() == Some("jq") => Vec::new(),
        Some([jq, filter]) if plain(jq).as_deref() == Some("jq") => {
            parse_filter(&plain(filter).ok_or("a computed jq filter")?)?
        }
        Some(_) => return Err("only `| jq [FILTER]` may follow curl".into()),
    };
    Ok((
        Request {
            method,
            path: vec![Piece::Text(path.to_owned())],
            headers,
            body,
        },
        filter,
    ))
}

/// `.`, `.a.b`, `.items[0]`.
fn parse_filter(filter: &str) -> Result<Vec<Step>, String> {
    let bad = || format!("jq {filter}: only fields and indexes (.a.b[0]) are understood");
    if filter == "." {
        return Ok(Vec::new());
    }
    let mut steps = Vec::new();
    let mut rest = filter;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let name = &r[..end];
            if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return Err(bad());
            }
            steps.push(Step::Field(name.to_owned()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']').ok_or_else(bad)?;
            steps.push(Step::Index(r[..end].parse().map_err(|_| bad())?));
            rest = &r[end + 1..];
        } else {
            return Err(bad());
        }
    }
    Ok(steps)
}

fn apply(filter: &[Step], value: &Value) -> Value {
    filter.iter().fold(value.clone(), |v, step| match step {
        Step::Field(f) => v.get(f).cloned().unwrap_or(Value::Null),
        Step::Index(i) => v.get(i).cloned().unwrap_or(Value::Null),
    })
}

/// The Makefile's `LOCAL_CURSOR_KEY`: what `make run` signs cursors with.
fn make_run_cursor_key(root: &Path) -> String {
    let makefile = std::fs::read_to_string(root.join("Makefile")).expect("the Makefile");
    makefile
        .lines()
        .find_map(|l| l.strip_prefix("LOCAL_CURSOR_KEY ?="))
        .map(|k| k.trim().to_owned())
        .expect("the Makefile sets LOCAL_CURSOR_KEY")
}

/// What the page's values are compared with, and what the page's ids stand for.
struct Run {
    /// The instants (ms) between which the server made what it returned.
    window: (u64, u64),
    /// Ids the page shows, and the ids the server returned in their place.
    ids: BTreeMap<String, String>,
    /// The other way round, and for the times the server made too: what the page shows for a
    /// value of the server's, so that a rewritten answer shows it the same way.
    shown_as: BTreeMap<String, String>,
    /// Seals cursors as `make run` does.
    cursors: store::cursor::CursorCodec,
    /// Opens the test stack's cursors.
    stack_cursors: store::cursor::CursorCodec,
}

impl Run {
    fn fresh(&self, ms: u64) -> bool {
        self.window.0 <= ms && ms <= self.window.1
    }

    /// A ULID the server made during the run.
    fn fresh_id(&self, s: &str) -> bool {
        is_ulid(s) && self.fresh(ulid::Ulid::from_string(s).unwrap().timestamp_ms())
    }

    /// A timestamp the server made during the run.
    fn fresh_time(&self, s: &str) -> bool {
        keys::Timestamp::parse(s).is_ok_and(|t| self.fresh(t.ms()))
    }

    /// The cursor to show for the stack's `cursor`: the page's `shown` one if it holds the same
    /// page under `make run`'s key, else the same page sealed with that key (cursors are sealed
    /// with a random nonce, so two runs never give the same string for the same page).
    fn as_make_run_seals(&self, shown: Option<&str>, cursor: &str) -> Option<String> {
        let page = self.stack_cursors.open(cursor).ok()?;
        if let Some(s) = shown
            && self.cursors.open(s).ok() == Some(page.clone())
        {
            return Some(s.to_owned());
        }
        self.cursors.encode(&page.0, &page.1).ok()
    }

    /// The answer as the page should show it: `actual`, except where a value is the server's
    /// own making and the page shows one of the same shape (then the page's, and an id is
    /// remembered), and cursors signed as `make run` signs them.
    fn expected(&mut self, shown: Option<&Value>, actual: &Value, key: Option<&str>) -> Value {
        match (shown, actual) {
            (Some(Value::Object(s)), Value::Object(a)) => Value::Object(
                a.iter()
                    .map(|(k, v)| (k.clone(), self.expected(s.get(k), v, Some(k))))
                    .collect(),
            ),
            (_, Value::Object(a)) => Value::Object(
                a.iter()
                    .map(|(k, v)| (k.clone(), self.expected(None, v, Some(k))))
                    .collect(),
            ),
            (Some(Value::Array(s)), Value::Array(a)) => Value::Array(
                a.iter()
                    .enumerate()
                    .map(|(i, v)| self.expected(s.get(i), v, None))
                    .collect(),
            ),
            (_, Value::Array(a)) => {
                Value::Array(a.iter().map(|v| self.expected(None, v, None)).collect())
            }
            (shown, Value::String(a)) => {
                let shown = shown.and_then(Value::as_str);
                if let Some(s) = shown
                    && let Some(mapped) = self.ids.get(s)
                {
                    // An id the page showed before: it must be the one the server gave then.
                    return if mapped == a {
                        s.into()
                    } else {
                        a.as_str().into()
                    };
                }
                let fresh_id = self.fresh_id(a);
                if fresh_id || self.fresh_time(a) {
                    let same_shape = |s: &str| {
                        if fresh_id {
                            is_ulid(s)
                        } else {
                            keys::Timestamp::parse(s).is_ok()
                        }
                    };
                    return match shown {
                        Some(s) if same_shape(s) => {
                            if fresh_id && s != a {
                                self.ids.insert(s.to_owned(), a.clone());
                            }
                            self.shown_as.insert(a.clone(), s.to_owned());
                            s.into()
                        }
                        _ => self.shown_as.get(a).unwrap_or(a).as_str().into(),
                    };
                }
                if key.is_some_and(|k| k.ends_with("Cursor") || k == "cursor")
                    && let Some(signed) = self.as_make_run_seals(shown, a)
                {
                    return signed.into();
                }
                a.as_str().into()
            }
            // A number as the page writes it (`9` or `9.0`), if it is the same number.
            (Some(Value::Number(s)), Value::Number(a)) if s.as_f64() == a.as_f64() => {
                Value::Number(s.clone())
            }
            (_, other) => other.clone(),
        }
    }
}

fn is_ulid(s: &str) -> bool {
    s.len() == 26 && ulid::Ulid::from_string(s).is_ok()
}

/// Where `shown` and `expected` differ, as JSON paths; key order aside, numbers by value.
fn differences(path: &str, shown: &Value, expected: &Value, out: &mut Vec<String>) {
    match (shown, expected) {
        (Value::Object(s), Value::Object(e)) => {
            for (k, v) in e {
                match s.get(k) {
                    Some(sv) => differences(&format!("{path}.{k}"), sv, v, out),
                    None => out.push(format!("{path}.{k}: not shown; the answer has {v}")),
                }
            }
            for k in s.keys().filter(|k| !e.contains_key(*k)) {
                out.push(format!("{path}.{k}: shown, but not in the answer"));
            }
        }
        (Value::Array(s), Value::Array(e)) if s.len() == e.len() => {
            for (i, (sv, ev)) in s.iter().zip(e).enumerate() {
                differences(&format!("{path}[{i}]"), sv, ev, out);
            }
        }
        (Value::Array(s), Value::Array(e)) => out.push(format!(
            "{path}: {} elements shown, {} in the answer",
            s.len(),
            e.len()
        )),
        (Value::Number(s), Value::Number(e)) if s.as_f64() == e.as_f64() => {}
        (s, e) if s == e => {}
        (s, e) => out.push(format!("{path}: shown {s}, the answer has {e}")),
    }
}

/// One HTTP/1.1 exchange as curl sends it: its headers, and a `-d` body as a form.
async fn send(
    port: u16,
    method: &str,
    path: &str,
    headers: &[String],
    body: Option<&str>,
) -> (u16, String) {
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost:{port}\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\nConnection: close\r\n"
    );
    for h in headers {
        req.push_str(h);
        req.push_str("\r\n");
    }
    if let Some(body) = body {
        let typed = headers
            .iter()
            .any(|h| h.to_ascii_lowercase().starts_with("content-type:"));
        if !typed {
            req.push_str("Content-Type: application/x-www-form-urlencoded\r\n");
        }
        req.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    req.push_str("\r\n");
    req.push_str(body.unwrap_or(""));
    let (status, _, body) = crate::stack::exchange(port, &req).await;
    (status, body)
}

/// Polls `GET /_local/streams` until it says `drained` twice in a row: every change written so far,
/// and what the stream handlers wrote in turn, has been dealt with.
async fn drained(port: u16) {
    let start = Instant::now();
    let mut consecutive = 0;
    loop {
        let (status, body) = send(port, "GET", "/_local/streams", &[], None).await;
        let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        if status == 200 && body["drained"] == true {
            consecutive += 1;
            if consecutive >= 2 {
                return;
            }
        } else {
            consecutive = 0;
        }
        // The seed and the org are some 4,400 stream records, applied while the whole suite
        // shares 2 cores.
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "the streams did not drain in 300 s: {status} {body}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A fresh stack, seeded as `make seed` seeds it, its streams drained.
async fn seeded_stack() -> (Stack, u64) {
    let stack = start_stack().await;
    // The stack answers once it has made its table.
    let (status, _) = send(stack.port, "GET", "/_local/streams", &[], None).await;
    assert_eq!(status, 200);
    let started = keys::now_ms();
    let table = store::Table::new(devkit::client(), stack.table.clone());
    tools::seed::load(&table).await.expect("the seed rows");
    tools::org::load(&table).await.expect("seed 003's org");
    drained(stack.port).await;
    (stack, started)
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("JSON")
}

/// Runs a page's examples in order on `stack`, seeded at `started`; its failures, and the page
/// rewritten with the answers received.
async fn run_page(
    stack: &Stack,
    started: u64,
    name: &str,
    text: &str,
    examples: &[Example],
    cursor_key: &str,
) -> (Vec<String>, String) {
    let tokens = |sub: &str, groups: &[&str]| stack.bearer(sub, groups);
    let mut run = Run {
        window: (started, u64::MAX),
        ids: BTreeMap::new(),
        shown_as: BTreeMap::new(),
        cursors: store::cursor::CursorCodec::new(cursor_key).expect("LOCAL_CURSOR_KEY"),
        stack_cursors: store::cursor::CursorCodec::new(crate::stack::CURSOR_KEY).unwrap(),
    };
    let mut failures = Vec::new();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    // Rewrites from the bottom up keep the lines above in place.
    let mut rewrites = Vec::new();
    let mut wrote = false;
    for ex in examples {
        if wrote {
            drained(stack.port).await;
        }
        let r = &ex.request;
        let expanded = (|| -> Result<_, String> {
            let path = expand(&r.path, &tokens, &run.ids)?;
            let headers = r
                .headers
                .iter()
                .map(|h| expand(h, &tokens, &run.ids))
                .collect::<Result<Vec<_>, _>>()?;
            let body = r
                .body
                .as_ref()
                .map(|b| expand(b, &tokens, &run.ids))
                .transpose()?;
            Ok((path, headers, body))
        })();
        let (path, headers, body) = match expanded {
            Ok(e) => e,
            Err(e) => {
                failures.push(format!("{name}:{}: {e}", ex.line));
                continue;
            }
        };
        let (status, raw) = send(stack.port, &r.method, &path, &headers, body.as_deref()).await;
        wrote = r.writes();
        let answer: Value = if raw.is_empty() {
            Value::Null
        } else {
            match serde_json::from_str(&raw) {
                Ok(v) => v,
                Err(_) => {
                    failures.push(format!(
                        "{name}:{}: {}\n  the answer ({status}) is not JSON: {raw}",
                        ex.line, ex.command
                    ));
                    continue;
                }
            }
        };
        if !path.starts_with("/_local/") {
            crate::openapi::assert_answer(&r.method, &path, status, &answer);
        }
        let filtered = apply(&ex.filter, &answer);
        run.window.1 = keys::now_ms();
        let expected = if raw.is_empty() {
            None
        } else {
            Some(run.expected(ex.shown.as_ref(), &filtered, None))
        };
        let mut diffs = Vec::new();
        match (&ex.shown, &expected) {
            (Some(s), Some(e)) => differences("", s, e, &mut diffs),
            (None, None) => {}
            (None, Some(_)) => diffs.push("no answer shown, but there is one".into()),
            (Some(_), None) => diffs.push("an answer shown, but the body is empty".into()),
        }
        if !diffs.is_empty() {
            let answer = expected.as_ref().map(pretty).unwrap_or_default();
            failures.push(format!(
                "{name}:{}: {}\n  {}\n  the answer ({status}, as the page should show it):\n{answer}",
                ex.line,
                ex.command,
                diffs.join("\n  "),
            ));
            rewrites.push((ex.shown_lines, answer));
        }
    }
    for ((from, to), answer) in rewrites.into_iter().rev() {
        let mut new: Vec<String> = answer.lines().map(str::to_owned).collect();
        if from == to && lines.get(from).is_some_and(|l| !l.trim().is_empty()) {
            // Nothing was shown: the answer goes right under the command, apart from what follows.
            new.push(String::new());
        }
        lines.splice(from..to, new);
    }
    let mut rewritten = lines.join("\n");
    if text.ends_with('\n') {
        rewritten.push('\n');
    }
    (failures, rewritten)
}

/// A page with examples.
#[derive(Debug)]
struct Page {
    /// Relative to the workspace root.
    name: String,
    text: String,
    examples: Vec<Example>,
}

/// Every page's examples, and the examples that cannot be read.
fn all_examples(root: &Path) -> (Vec<Page>, Vec<String>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for page in pages(root) {
        let name = page
            .strip_prefix(root)
            .unwrap_or(&page)
            .display()
            .to_string();
        let text = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{name}: {e}"));
        match parse_page(&text) {
            Ok(examples) if examples.is_empty() => {}
            Ok(examples) => out.push(Page {
                name,
                text,
                examples,
            }),
            Err(e) => errors.extend(e.into_iter().map(|e| format!("{name}: {e}"))),
        }
    }
    (out, errors)
}

#[test]
fn every_example_of_the_docs_is_one_the_test_understands() {
    let root = sam_template::workspace_root();
    let (pages, errors) = all_examples(&root);
    assert!(
        errors.is_empty(),
        "examples this test cannot run:\n{}",
        errors.join("\n")
    );
    let tokens = |sub: &str, groups: &[&str]| format!("Bearer {sub}:{}", groups.join(","));
    let count: usize = pages.iter().map(|p| p.examples.len()).sum();
    assert!(count >= 20, "only {count} examples found: {pages:?}");
    for Page { name, examples, .. } in &pages {
        for ex in examples {
            for h in &ex.request.headers {
                let h = expand(h, &tokens, &BTreeMap::new())
                    .unwrap_or_else(|e| panic!("{name}:{}: {e}", ex.line));
                assert!(
                    h.contains(": "),
                    "{name}:{}: a header {h:?} is name: value",
                    ex.line
                );
            }
        }
    }
}

#[tokio::test]
async fn every_example_of_the_docs_answers_as_shown() {
    let root = sam_template::workspace_root();
    let (mut pages, errors) = all_examples(&root);
    assert!(
        errors.is_empty(),
        "examples this test cannot run:\n{}",
        errors.join("\n")
    );
    let cursor_key = make_run_cursor_key(&root);
    let update = std::env::var_os("UPDATE_EXAMPLES").is_some();
    let mut failures = Vec::new();
    // Each page runs on a stack as `make seed` leaves it. A page that only reads leaves it so, and
    // the next page runs on it too: a seeded stack costs the seed's 1,250 stream records (25 s
    // alone, a minute beside the suite's other tests). So the pages that only read come first.
    let reads_only = |page: &Page| page.examples.iter().all(|e| !e.request.writes());
    pages.sort_by_key(|page| !reads_only(page));
    let mut as_seeded = None;
    for page in &pages {
        let Page {
            name,
            text,
            examples,
        } = page;
        let (stack, started) = match as_seeded.take() {
            Some(seeded) => seeded,
            None => seeded_stack().await,
        };
        let (failed, rewritten) =
            run_page(&stack, started, name, text, examples, &cursor_key).await;
        if reads_only(page) {
            as_seeded = Some((stack, started));
        }
        if update && rewritten != *text {
            std::fs::write(root.join(name), rewritten).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        failures.extend(failed);
    }
    assert!(
        failures.is_empty() || update,
        "{} example(s) of the docs do not answer as shown (UPDATE_EXAMPLES=1 rewrites the \
         answers shown; review the diff):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_page() {
        let page = "text\n\n```sh\n$ as() { echo x; }\n$ curl -s -H \"$(as ops staff)\" -X POST localhost:3000/orders/01ERTNJ6000000000000000000/events -H 'Idempotency-Key: k' -d '{\"status\":\"SHIPPED\"}' | jq '.order'   # a note\n{\n  \"a\": 1\n}\n\n$ curl -s localhost:3000/nowhere\n```\n";
        let examples = parse_page(page).unwrap();
        assert_eq!(examples.len(), 2);
        let ex = &examples[0];
        assert_eq!(ex.line, 5);
        assert_eq!(ex.request.method, "POST");
        assert_eq!(ex.filter, vec![Step::Field("order".into())]);
        assert_eq!(ex.shown, Some(serde_json::json!({"a": 1})));
        assert_eq!(ex.shown_lines, (5, 8));
        let tokens = |sub: &str, groups: &[&str]| format!("Bearer {sub}/{}", groups.join(","));
        let ids = BTreeMap::from([("01ERTNJ6000000000000000000".into(), "X".into())]);
        assert_eq!(
            expand(&ex.request.headers[0], &tokens, &ids).unwrap(),
            "authorization: Bearer ops/staff"
        );
        assert_eq!(
            expand(&ex.request.path, &tokens, &ids).unwrap(),
            "/orders/X/events"
        );
        assert_eq!(
            expand(ex.request.body.as_ref().unwrap(), &tokens, &ids).unwrap(),
            r#"{"status":"SHIPPED"}"#
        );
        assert_eq!(examples[1].request.method, "GET");
        assert_eq!(examples[1].shown, None);
        assert_eq!(examples[1].shown_lines, (10, 10));
    }

    #[test]
    fn refuses_what_it_cannot_run() {
        for bad in [
            "curl -s localhost:3000/x | jq '.[] | .a'",
            "curl -s -o out localhost:3000/x",
            "curl -s example.com/x",
            "curl -s -H \"$(whoami)\" localhost:3000/x",
            "curl -s localhost:3000/$ID",
            "curl -s localhost:3000/x | grep a",
            "curl -s localhost:3000/x\n{ not json",
        ] {
            let page = format!("```\n$ {bad}\n```\n");
            assert!(parse_page(&page).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_servers_own_values_need_only_their_shape() {
        let now = keys::now_ms();
        let mut run = Run {
            window: (now - 1000, now + 1000),
            ids: BTreeMap::new(),
            shown_as: BTreeMap::new(),
            cursors: store::cursor::CursorCodec::new("0123456789abcdef0123456789abcdef").unwrap(),
            stack_cursors: store::cursor::CursorCodec::new(crate::stack::CURSOR_KEY).unwrap(),
        };
        let fresh_id = ulid::Ulid::from_parts(now, 7).to_string();
        let fresh_at = keys::iso_timestamp(now).unwrap();
        let shown = serde_json::json!({
            "orderId": "01M80W6VWXT9MXY2B6ZZXAG9YC",
            "createdAt": "2026-11-22T05:38:34.991Z",
            "seeded": "2020-12-06T00:00:00.000Z",
            "n": 9
        });
        let actual = serde_json::json!({
            "orderId": fresh_id,
            "createdAt": fresh_at,
            "seeded": "2020-12-07T00:00:00.000Z",
            "n": 9.0
        });
        let expected = run.expected(Some(&shown), &actual, None);
        let mut diffs = Vec::new();
        differences("", &shown, &expected, &mut diffs);
        assert_eq!(
            diffs,
            vec![
                ".seeded: shown \"2020-12-06T00:00:00.000Z\", the answer has \"2020-12-07T00:00:00.000Z\""
            ]
        );
        assert_eq!(run.ids["01M80W6VWXT9MXY2B6ZZXAG9YC"], fresh_id);
        // Shown again later, the id must be the one the server gave.
        let other = ulid::Ulid::from_parts(now, 8).to_string();
        let again = run.expected(Some(&shown["orderId"]), &Value::String(other.clone()), None);
        assert_eq!(again, Value::String(other));
        // An answer not shown yet shows the server's values as the page showed them before.
        let unseen = run.expected(None, &actual, None);
        assert_eq!(unseen["orderId"], shown["orderId"]);
        assert_eq!(unseen["createdAt"], shown["createdAt"]);
    }
}
