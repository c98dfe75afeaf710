//! `make bench`: the work issue 36 added to every request, each piece against what it replaced,
//! in one process and one run, built with the release profile the functions ship with:
//! - sealing and opening a pagination cursor (`store::cursor`: AES-256-GCM-SIV over a payload
//!   padded to 256 bytes) against the signed cursor before it (base64 JSON and HMAC-SHA256,
//!   [`before::SignedCursors`]), on R1's and O5's real keys;
//! - the text rule (`keys::unicode`): key text NFKC case-folded against the old lower-casing
//!   ([`before::text_key`]); a username in a path checked against not checked; a review's text
//!   checked and made NFC against only parsed from its body, as before.
//!
//! Interleaved: each of many rounds times a batch of the baseline, then a batch of the new code,
//! on the same input; ns per op are medians over the rounds, and the ratio new ÷ baseline is the
//! median of the rounds' ratios, with their middle half and their range (a round's two batches
//! share whatever else the machine was doing). Prints a Markdown table.
//!
//! ```text
//! hot-path-bench [--rounds N]
//! ```

mod before;
mod inputs;

use std::{
    borrow::Cow,
    hint::black_box,
    time::{Duration, Instant},
};

use keys::{
    Id, Text,
    unicode::{self, Lines},
};
use serde_json::Value;
use store::cursor::CursorCodec;
use unicode_normalization::UnicodeNormalization;

/// A batch lasts about this long (baseline and new together): long enough for the clock and the
/// loop to be noise, well under a scheduler's time slice, so that most rounds run undisturbed on a
/// shared machine and the one another process interrupts shows as an outlier, not in the median.
const BATCH: Duration = Duration::from_micros(500);
/// Rounds run and not counted, per comparison: caches and branch predictors warmed.
const WARM_UP: usize = 10;
/// The stack's cursor secret, any 32 bytes.
const SECRET: &[u8] = b"hot-path-bench-cursor-secret-0123456789";

/// One comparison's figures.
struct Comparison {
    baseline_ns: f64,
    new_ns: f64,
    /// The rounds' ratios new ÷ baseline, sorted.
    ratios: Vec<f64>,
}

impl Comparison {
    fn ratio(&self, q: f64) -> f64 {
        quantile(&self.ratios, q)
    }
}

/// The `q` quantile of sorted `values`, between the two nearest ranks.
fn quantile(values: &[f64], q: f64) -> f64 {
    let at = (values.len() - 1) as f64 * q;
    let (lo, hi) = (values[at.floor() as usize], values[at.ceil() as usize]);
    lo + (hi - lo) * at.fract()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    quantile(&values, 0.5)
}

/// ns per op of `n` runs of `op`, its result kept from the optimiser.
fn batch<R>(n: u64, op: &mut impl FnMut() -> R) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        black_box(op());
    }
    start.elapsed().as_nanos() as f64 / n as f64
}

/// `baseline` and `new` interleaved over `rounds` rounds, batches of one size for both.
fn compare<A, B>(
    rounds: usize,
    mut baseline: impl FnMut() -> A,
    mut new: impl FnMut() -> B,
) -> Comparison {
    let mut n = 1u64;
    while (batch(n, &mut baseline) + batch(n, &mut new)) * (n as f64) < BATCH.as_nanos() as f64 {
        n *= 2;
    }
    let (mut old, mut now, mut ratios) = (vec![], vec![], vec![]);
    for round in 0..WARM_UP + rounds {
        let b = batch(n, &mut baseline);
        let a = batch(n, &mut new);
        if round >= WARM_UP {
            old.push(b);
            now.push(a);
            ratios.push(a / b);
        }
    }
    ratios.sort_by(f64::total_cmp);
    Comparison {
        baseline_ns: median(old),
        new_ns: median(now),
        ratios,
    }
}

/// A row of the table: what is compared, on what.
struct Row {
    piece: &'static str,
    input: String,
    baseline: &'static str,
    new: &'static str,
    figures: Comparison,
}

/// A review's body read as a request reads it: parsed, then (`rule`) its text held to the text
/// rule and made NFC, as `api::json_body_keeping_lines` does before serde reads the body.
fn read_review(body: &str, rule: bool) -> Value {
    let mut value: Value = serde_json::from_str(body).expect("a review body is JSON");
    if rule && let Some(Value::String(text)) = value.get_mut("text") {
        assert_eq!(
            unicode::refused(text, Lines::Many),
            None,
            "the rule accepts it"
        );
        if let Cow::Owned(nfc) = unicode::nfc(text) {
            *text = nfc;
        }
    }
    value
}

fn rows(rounds: usize) -> Vec<Row> {
    let mut rows = vec![];
    let sealed = CursorCodec::new(SECRET).expect("a 32-byte secret");
    let signed = before::SignedCursors::new(SECRET);
    let (old, new) = (
        "signed: base64 JSON + HMAC-SHA256",
        "sealed: AES-256-GCM-SIV, 256 B padding",
    );
    for (pattern, (binding, key)) in [("R1", inputs::r1_cursor()), ("O5", inputs::o5_cursor())] {
        let (binding, key) = (black_box(binding.as_str()), black_box(&key));
        let given_sealed = sealed.encode(binding, key).expect("sealed");
        let given_signed = signed.encode(binding, key).expect("signed");
        let input = format!("{pattern}'s cursor ({} key attributes)", key.len());
        let mut row = |piece, figures| {
            rows.push(Row {
                piece,
                input: input.clone(),
                baseline: old,
                new,
                figures,
            })
        };
        row(
            "cursor: seal",
            compare(
                rounds,
                || signed.encode(binding, key),
                || sealed.encode(binding, key),
            ),
        );
        row(
            "cursor: open",
            compare(
                rounds,
                || signed.decode(binding, &given_signed),
                || sealed.decode(binding, &given_sealed),
            ),
        );
        // What a request for a next page does: open the cursor it was given, seal the next one.
        row(
            "cursor: open + seal",
            compare(
                rounds,
                || {
                    (
                        signed.decode(binding, &given_signed),
                        signed.encode(binding, key),
                    )
                },
                || {
                    (
                        sealed.decode(binding, &given_sealed),
                        sealed.encode(binding, key),
                    )
                },
            ),
        );
    }
    for (input, name) in [
        ("a course name, ASCII", "Intro to DynamoDB"),
        ("a course name, Cyrillic", "Проектирование таблиц DynamoDB"),
        ("a student's name, accented", "José Ortega"),
    ] {
        let name = black_box(name);
        rows.push(Row {
            piece: "key text",
            input: format!("{input}: \"{name}\""),
            baseline: "Cc/Cf refused, lower-cased",
            new: "text rule, NFKC_Casefold",
            figures: compare(
                rounds,
                || before::text_key(name),
                || Text::parse("name", name),
            ),
        });
    }
    let user = inputs::username();
    let user = black_box(user.as_str());
    rows.push(Row {
        piece: "path parameter",
        input: format!("a username of {} characters", user.len()),
        baseline: "Id::parse",
        new: "text rule + Id::parse",
        figures: compare(
            rounds,
            || Id::parse("username", user),
            || {
                (
                    unicode::refused(user, Lines::One),
                    Id::parse("username", user),
                )
            },
        ),
    });
    let mixed = inputs::mixed_review();
    for (input, text) in [
        ("mixed scripts", mixed.clone()),
        ("ASCII", inputs::ascii_review()),
        ("mixed scripts, decomposed (NFD)", mixed.nfd().collect()),
    ] {
        let body = inputs::review_body(&text);
        let body = black_box(body.as_str());
        rows.push(Row {
            piece: "body text",
            input: format!("a review of {} characters, {input}", inputs::REVIEW_CHARS),
            baseline: "JSON parse",
            new: "JSON parse + text rule + NFC",
            figures: compare(
                rounds,
                || read_review(body, false),
                || read_review(body, true),
            ),
        });
    }
    rows
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn options() -> Result<usize, String> {
    let mut rounds = 1000;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|n| *n > 0)
                    .ok_or("--rounds needs a number above 0")?
            }
            _ => return Err(format!("unknown argument {arg}")),
        }
    }
    Ok(rounds)
}

fn main() {
    let rounds = options().unwrap_or_else(|e| {
        eprintln!("hot-path-bench: {e}");
        std::process::exit(2);
    });
    let load_before = load_average();
    let rows = rows(rounds);
    println!("# The hot path's new work against its baseline (`hot-path-bench`)\n");
    if cfg!(debug_assertions) {
        println!("**A debug build: not figures to quote** (`make bench` builds it --release).\n");
    }
    println!(
        "Measured {} at commit `{}` on {} ({} cores), load average {load_before} before and {} \
         after (1, 5, 15 min). In process, one thread, the functions' release profile; {rounds} \
         rounds, each a batch of the baseline then a batch of the new code on the same input \
         (about {} µs together). ns per op: medians over the rounds; new ÷ baseline: the median \
         of the rounds' ratios, their middle half (25th–75th percentile) and their range.\n",
        bench::today(),
        bench::commit(&sam_template::workspace_root()),
        bench::cpu_model(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        load_average(),
        BATCH.as_micros(),
    );
    println!(
        "| piece | input | baseline | ns/op | new | ns/op | added ns/op | new ÷ baseline | middle half | range |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        let f = &r.figures;
        println!(
            "| {} | {} | {} | {:.0} | {} | {:.0} | {:+.0} | {:.2} | {:.2}–{:.2} | {:.2}–{:.2} |",
            r.piece,
            r.input,
            r.baseline,
            f.baseline_ns,
            r.new,
            f.new_ns,
            // Rounded first, so that a difference below half a ns reads +0, not -0.
            (f.new_ns - f.baseline_ns).round() + 0.0,
            f.ratio(0.5),
            f.ratio(0.25),
            f.ratio(0.75),
            f.ratio(0.0),
            f.ratio(1.0),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both sides of each comparison do the whole of their work and agree where they should:
    /// each codec opens what it sealed; the old key text and the new are one key on these names;
    /// both reads of a review give the text the client sent.
    #[test]
    fn baseline_and_new_do_the_same_job() {
        let sealed = CursorCodec::new(SECRET).unwrap();
        let signed = before::SignedCursors::new(SECRET);
        for (binding, key) in [inputs::r1_cursor(), inputs::o5_cursor()] {
            let c = sealed.encode(&binding, &key).unwrap();
            assert_eq!(sealed.decode(&binding, &c).unwrap(), key);
            let c = signed.encode(&binding, &key).unwrap();
            assert_eq!(signed.decode(&binding, &c).unwrap(), key);
            assert_eq!(signed.decode("another binding", &c), None);
        }
        for name in [
            "Intro to DynamoDB",
            "Проектирование таблиц DynamoDB",
            "José Ortega",
        ] {
            let new = Text::parse("name", name).unwrap();
            assert_eq!(before::text_key(name).as_deref(), Some(new.as_key()));
        }
        let text = inputs::mixed_review();
        let body = inputs::review_body(&text);
        assert_eq!(read_review(&body, false)["text"], text);
        assert_eq!(read_review(&body, true)["text"], text);
        let nfd: String = text.nfd().collect();
        let body = inputs::review_body(&nfd);
        assert_eq!(read_review(&body, true)["text"], text);
    }

    #[test]
    fn quantiles_between_ranks() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.25), 2.0);
        assert_eq!(quantile(&[1.0, 2.0], 1.0), 2.0);
    }
}
