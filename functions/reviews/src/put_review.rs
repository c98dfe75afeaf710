//! R3: `PUT /books/{isbn}/reviews/{username}` with `{"grade": 1..=10, "text"}`: writes the user's
//! review of the book: 201 when it is their first, 200 when it replaces their previous one.
//!
//! A user has at most one review per book, although the review's sort key carries its date (seed
//! 002 sorts reviews newest first): a marker item (`USER#<username>`, `REVIEWOF#<isbn>`) names the
//! current review, and the write is a strongly consistent GetItem of the marker, then ONE
//! transaction: the book exists, the user exists, the marker still says what we read, the old
//! review goes, the new one comes. A writer that lost a race to another reads again and retries.
//! An update re-dates the review: it moves to the top of the book's and the user's lists.
//!
//! With GSI1 overloaded (`IndexDesign`) the review carries its GSI1 keys, and GSI1 holds its full
//! copy; with dedicated indexes it carries none, and `ReviewsByUser` holds its keys only.

use crate::data::{self as reviews, NewReview, PutReviewOutcome};
use crate::views as view;
use api::declare::*;
use keys::Timestamp;
use serde::Deserialize;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "put-review",
    Access::owner("username", Refused::UserNotFound.refusal()),
    &Route::put(
        "/books/{isbn}/reviews/{username}",
        "R3: write or replace the user's one review of the book",
        &[Pattern {
            id: "R3",
            route: "`PUT /books/{isbn}/reviews/{username}` `{grade: 1–10, text}`",
            index: Index::Table,
            request: "GetItem the marker, then TransactWriteItems: book and user exist, marker unchanged, old review deleted, new review put",
            returns: "the review; 201 created, 200 updated",
            example: Example::sub("sam", "/books/9780261102354/reviews/sam")
                .with_body(r#"{"grade": 9, "text": "Better on the second reading."}"#),
        }],
    ),
)
.needs(Needs::TABLE.with_settings(&[INDEX_DESIGN]));

api::refusals! {
    UserNotFound = crate::refusals::USER_NOT_FOUND,
    BookNotFound = crate::refusals::BOOK_NOT_FOUND,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::put::<view::Review>(
    "the review as stored, replacing the user's last",
    "the review as stored, the user's first of the book",
)
.refusals(Refused::ALL)
.body::<PutReview>()
.worst(|| {
    api::function::Worst::new(
        format!(
            "a review of {MAX_TEXT_CHARS} characters of 4 bytes by a user of the longest username"
        ),
        largest(),
    )
    .after("put-user", crate::put_user::largest())
})];

// A review's bounds, its entity's (`model::reviews::Review`).
const MIN_GRADE: u8 = model::reviews::Review::MIN_GRADE;
const MAX_GRADE: u8 = model::reviews::Review::MAX_GRADE;
const MAX_TEXT_CHARS: usize = model::reviews::Review::MAX_TEXT_CHARS;

/// The request that writes the largest review: the longest text of the widest characters,
/// by the user of the longest username (`delete-review`'s worst case deletes it).
pub fn largest() -> Example {
    largest_by(crate::put_user::longest_username())
}

/// The request that writes the largest review of seed 002's Fellowship by `user`.
pub fn largest_by(user: &'static str) -> Example {
    use api::function::{leak, widest_text};
    let body = serde_json::json!({ "grade": MAX_GRADE, "text": widest_text(MAX_TEXT_CHARS) });
    Example::sub(user, leak(format!("/books/9780261102354/reviews/{user}")))
        .with_body(leak(body.to_string()))
}

/// A grade and a text.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(inline)]
struct PutReview {
    grade: api::Bounded<{ MIN_GRADE as i64 }, { MAX_GRADE as i64 }>,
    /// shown on the book's public page; may hold line feeds and tabs (`x-lines`), nothing else
    /// the text rule refuses
    #[schemars(length(min = 1, max = MAX_TEXT_CHARS), extend("x-lines" = true))]
    text: String,
}

fn validate(body: &PutReview) -> Result<(), ApiError> {
    api::text_field("text", &body.text, MAX_TEXT_CHARS)?;
    Ok(())
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let isbn = crate::params::path_isbn(&req)?;
    let user = api::path_id(&req, "username")?;
    // A review is paragraphs: its text keeps line feeds (openapi.yaml: `x-lines`).
    let body: PutReview = api::json_body_keeping_lines(&req, &["text"])?;
    validate(&body)?;
    let review = NewReview {
        isbn: isbn.clone(),
        user: user.clone(),
        grade: body.grade.to_u8(),
        text: body.text.trim().to_owned(),
        at: Timestamp::now(),
    };
    match reviews::put_review(&deps.table, store::index_design(deps)?, &review).await? {
        PutReviewOutcome::Created(r) => api::json(201, &view::review(&r)),
        PutReviewOutcome::Updated(r) => api::json(200, &view::review(&r)),
        PutReviewOutcome::BookNotFound => Err(Refused::BookNotFound.because(format!(
            "There is no book {isbn}; create it with PUT /books/{isbn} first."
        ))),
        PutReviewOutcome::UserNotFound => Err(Refused::UserNotFound.because(format!(
            "There is no user {user}; create it with PUT /users/{user} first."
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use store::Table;

    use keys::{Date, Id, indexes::IndexDesign, reviews::Isbn};
    use model::{
        Item,
        reviews::{Book, Review, User},
    };
    use serde_json::Value;
    use testkit::{Harness, all_items};

    /// The reviews of the collection `condition` reads from its parent `P`, newest first: the
    /// first page of ten.
    async fn reviews_under<P: model::Entity>(
        table: &Table,
        condition: impl store::Selection,
    ) -> Vec<Review> {
        let page = table.query(condition).parent_page::<P, Review>(10, None);
        page.await.unwrap().expect("the parent").children
    }

    const ISBN: &str = "9780261102354";

    async fn table_with(books: &[&str], users: &[&str]) -> Table {
        let table = testkit::table().await;
        for b in books {
            reviews::put_book(&table, &Isbn::parse(b).unwrap(), "T", "A", 1954)
                .await
                .unwrap();
        }
        for u in users {
            let d = Date::parse_iso("2000-09-29").unwrap();
            reviews::put_user(
                &table,
                IndexDesign::default(),
                &Id::parse("u", u).unwrap(),
                Some(d),
                d,
            )
            .await
            .unwrap();
        }
        table.meter().reset();
        table
    }

    async fn put(table: &Table, isbn: &str, user: &str, body: &str) -> (u16, Value) {
        let h = Harness::new(&FUNCTION, handle, table.clone());
        h.put(&h.path(&[isbn, user]), body).await
    }

    fn of_type<'a>(items: &'a [Item], ty: &str) -> Vec<&'a Item> {
        items
            .iter()
            .filter(|i| i["Type"].as_s().unwrap() == ty)
            .collect()
    }

    fn s<'a>(item: &'a Item, name: &str) -> &'a str {
        item[name].as_s().unwrap()
    }

    /// Every user's reviews and markers agree: at most one review per user per book, a marker for
    /// each review, naming it, and no marker without its review.
    fn assert_consistent(items: &[Item]) {
        let reviews = of_type(items, "Review");
        let markers = of_type(items, "ReviewMarker");
        assert_eq!(reviews.len(), markers.len(), "one marker per review");
        for m in &markers {
            let user = s(m, "PK").strip_prefix("USER#").unwrap();
            let isbn = s(m, "SK").strip_prefix("REVIEWOF#").unwrap();
            let of_pair: Vec<_> = reviews
                .iter()
                .filter(|r| s(r, "Username") == user && s(r, "Isbn") == isbn)
                .collect();
            assert_eq!(of_pair.len(), 1, "one review of {isbn} by {user}");
            assert_eq!(s(of_pair[0], "SK"), s(m, "ReviewSk"), "the marker names it");
            assert_eq!(s(of_pair[0], "PK"), format!("BOOK#{isbn}"));
        }
    }

    #[tokio::test]
    async fn creates_then_replaces_the_one_review_in_one_transaction_each() {
        let table = table_with(&[ISBN], &["frodo"]).await;
        let (s1, first) = put(
            &table,
            "0-261-10235-4",
            "frodo",
            r#"{"grade":10,"text":"Must read."}"#,
        )
        .await;
        assert_eq!(s1, 201, "{first}");
        assert_eq!(first["isbn"], ISBN, "the ISBN-10 of the path is normalised");
        assert_eq!(
            (first["grade"].as_u64(), first["text"].as_str()),
            (Some(10), Some("Must read."))
        );
        let requests = table.meter().requests();
        let ops = table.meter().operations();
        assert_eq!(ops, ["GetItem", "TransactWriteItems"]);
        assert_eq!(requests[0].read_units, 1.0, "a strongly consistent GetItem");
        eprintln!("R3 create: {requests:?}");

        let items = all_items(&table).await;
        let review = of_type(&items, "Review")[0].clone();
        let sk = format!("{}#USER#frodo", first["reviewDate"].as_str().unwrap());
        assert_eq!(s(&review, "PK"), format!("BOOK#{ISBN}"));
        assert_eq!(s(&review, "SK"), sk);
        assert_eq!(s(&review, "GSI1PK"), "USER#frodo");
        assert_eq!(
            s(&review, "GSI1SK"),
            format!("{}#BOOK#{ISBN}", first["reviewDate"].as_str().unwrap())
        );
        assert_eq!(s(&review, "ReviewText"), "Must read.");
        assert_eq!(review["Grade"].as_n().unwrap(), "10");
        let marker = of_type(&items, "ReviewMarker")[0].clone();
        assert_eq!(
            (s(&marker, "PK"), s(&marker, "SK")),
            ("USER#frodo", &*format!("REVIEWOF#{ISBN}"))
        );
        assert!(
            !marker.contains_key("GSI1PK"),
            "markers are in no index: R2 never reads them"
        );

        table.meter().reset();
        let (s2, second) = put(
            &table,
            ISBN,
            "frodo",
            r#"{"grade":5,"text":"  Fantastic  "}"#,
        )
        .await;
        assert_eq!(s2, 200, "{second}");
        assert_eq!(second["text"], "Fantastic");
        assert!(
            second["reviewDate"].as_str() > first["reviewDate"].as_str(),
            "an update is re-dated"
        );
        let requests = table.meter().requests();
        let ops = table.meter().operations();
        assert_eq!(ops, ["GetItem", "TransactWriteItems"]);
        eprintln!("R3 update: {requests:?}");
        let items = all_items(&table).await;
        assert_eq!(of_type(&items, "Review").len(), 1, "the old review is gone");
        assert_consistent(&items);
    }

    #[tokio::test]
    async fn an_update_moves_the_review_to_the_top_of_both_lists() {
        let table = table_with(&[ISBN, "0261102362"], &["frodo", "sam"]).await;
        let isbn = Isbn::parse(ISBN).unwrap();
        let (frodo, sam) = (
            Id::parse("u", "frodo").unwrap(),
            Id::parse("u", "sam").unwrap(),
        );
        // frodo reviews the Fellowship, then sam does, then frodo the Two Towers.
        for (user, book, ms) in [
            (&frodo, ISBN, 996_979_560_000u64),
            (&sam, ISBN, 1_000_000_000_000),
            (&frodo, "0261102362", 1_028_515_560_000),
        ] {
            reviews::put_review(
                &table,
                IndexDesign::default(),
                &NewReview {
                    isbn: Isbn::parse(book).unwrap(),
                    user: user.clone(),
                    grade: 7,
                    text: "x".into(),
                    at: crate::fixtures::at(ms),
                },
            )
            .await
            .unwrap();
        }
        let (s, _) = put(&table, ISBN, "frodo", r#"{"grade":9,"text":"Better."}"#).await;
        assert_eq!(s, 200);
        let reviews = reviews_under::<Book>(&table, keys::reviews::book_and_reviews(&isbn)).await;
        let order: Vec<_> = reviews.iter().map(|r| r.username.as_str()).collect();
        assert_eq!(order, ["frodo", "sam"]);
        let reviews = reviews_under::<User>(&table, keys::reviews::user_and_reviews(&frodo)).await;
        let order: Vec<_> = reviews.iter().map(|r| r.isbn.as_str()).collect();
        assert_eq!(order, [ISBN, "9780261102361"]);
        assert_eq!(reviews[0].review_text, "Better.");
    }

    #[tokio::test]
    async fn unknown_book_or_user_is_404_and_writes_nothing() {
        let table = table_with(&[ISBN], &["frodo"]).await;
        let before = all_items(&table).await;
        let body = r#"{"grade":8,"text":"Good."}"#;
        let (s, b) = put(&table, "0261102362", "frodo", body).await;
        assert_eq!((s, b["code"].as_str().unwrap()), (404, "book_not_found"));
        let (s, b) = put(&table, ISBN, "gollum", body).await;
        assert_eq!((s, b["code"].as_str().unwrap()), (404, "user_not_found"));
        let (s, b) = put(&table, "0261102362", "gollum", body).await;
        assert_eq!((s, b["code"].as_str().unwrap()), (404, "book_not_found"));
        assert_eq!(all_items(&table).await, before);
    }

    #[tokio::test]
    async fn twenty_parallel_puts_by_one_user_on_one_book_are_one_review() {
        let table = table_with(&[ISBN], &["frodo"]).await;
        let calls = (1..=20).map(|i| {
            let body = format!(r#"{{"grade":{},"text":"take {i}"}}"#, i % 10 + 1);
            let table = &table;
            async move { put(table, ISBN, "frodo", &body).await }
        });
        let results = futures::future::join_all(calls).await;
        let created = results.iter().filter(|(s, _)| *s == 201).count();
        let updated = results.iter().filter(|(s, _)| *s == 200).count();
        assert_eq!((created, updated), (1, 19), "{results:?}");
        let items = all_items(&table).await;
        assert_eq!(of_type(&items, "Review").len(), 1);
        assert_eq!(of_type(&items, "ReviewMarker").len(), 1);
        assert_consistent(&items);
        // The survivor is the last write: the newest date of all the answers.
        let newest = results
            .iter()
            .map(|(_, b)| b["reviewDate"].as_str().unwrap().to_owned())
            .max()
            .unwrap();
        assert_eq!(s(of_type(&items, "Review")[0], "ReviewDate"), newest);
        let dates: std::collections::HashSet<_> = results
            .iter()
            .map(|(_, b)| b["reviewDate"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(dates.len(), 20, "every write had its own date");
    }

    #[tokio::test]
    async fn a_mixed_race_of_creates_updates_and_deletes_stays_consistent() {
        let table = table_with(&[ISBN, "0261102362"], &["frodo", "sam", "pippin"]).await;
        // frodo and sam have a review of the Fellowship already; pippin has none.
        for user in ["frodo", "sam"] {
            assert_eq!(
                put(&table, ISBN, user, r#"{"grade":6,"text":"Before."}"#)
                    .await
                    .0,
                201
            );
        }
        let isbn = Isbn::parse(ISBN).unwrap();
        let sam = Id::parse("u", "sam").unwrap();
        let mut calls: Vec<std::pin::Pin<Box<dyn std::future::Future<Output = u16> + '_>>> =
            Vec::new();
        for i in 0..10 {
            let body = format!(r#"{{"grade":{},"text":"race {i}"}}"#, i + 1);
            for (book, user) in [(ISBN, "frodo"), (ISBN, "pippin"), ("0261102362", "sam")] {
                let (table, body) = (&table, body.clone());
                calls.push(Box::pin(
                    async move { put(table, book, user, &body).await.0 },
                ));
            }
            if i % 3 == 0 {
                let (table, isbn, sam) = (&table, isbn.clone(), sam.clone());
                calls.push(Box::pin(async move {
                    reviews::delete_review(table, &sam, &isbn).await.unwrap();
                    204
                }));
            }
        }
        let statuses = futures::future::join_all(calls).await;
        assert!(
            statuses.iter().all(|s| [200, 201, 204].contains(s)),
            "{statuses:?}"
        );
        // pippin's and sam's Two Towers reviews were each created exactly once.
        assert_eq!(statuses.iter().filter(|s| **s == 201).count(), 2);
        let items = all_items(&table).await;
        assert_consistent(&items);
        let reviews = of_type(&items, "Review");
        let pairs: std::collections::BTreeSet<_> = reviews
            .iter()
            .map(|r| (s(r, "Isbn"), s(r, "Username")))
            .collect();
        assert_eq!(
            pairs,
            [(ISBN, "frodo"), (ISBN, "pippin"), ("9780261102361", "sam")]
                .into_iter()
                .collect(),
            "sam's Fellowship review was deleted, every other pair has one review"
        );
    }

    #[tokio::test]
    async fn bad_input_is_4xx_and_writes_nothing() {
        let table = table_with(&[ISBN], &["frodo"]).await;
        let before = all_items(&table).await;
        let long_text = format!(
            r#"{{"grade":5,"text":"{}"}}"#,
            "t".repeat(MAX_TEXT_CHARS + 1)
        );
        let long_user = "u".repeat(65);
        let ok = r#"{"grade":5,"text":"Fine."}"#;
        type Case<'a> = ((&'a str, &'a str, &'a str), u16, &'static str);
        #[rustfmt::skip]
        let cases: Vec<Case> = vec![
            ((ISBN, "frodo", ""), 400, "missing_body"),
            ((ISBN, "frodo", "{"), 400, "invalid_json"),
            ((ISBN, "frodo", "grade=5"), 400, "invalid_json"),
            ((ISBN, "frodo", "[]"), 400, "invalid_body"),
            ((ISBN, "frodo", r#"[5,"Fine."]"#), 400, "invalid_body"),
            ((ISBN, "frodo", r#"{"grade":5}"#), 400, "invalid_body"),
            ((ISBN, "frodo", r#"{"text":"Fine."}"#), 400, "invalid_body"),
            ((ISBN, "frodo", r#"{"grade":0,"text":"Fine."}"#), 400, "invalid_body"),
            ((ISBN, "frodo", r#"{"grade":11,"text":"Fine."}"#), 400, "invalid_body"),
            ((ISBN, "frodo", r#"{"grade":2.5,"text":"Fine."}"#), 400, "invalid_body"),
            ((ISBN, "frodo", r#"{"grade":"5","text":"Fine."}"#), 400, "invalid_body"),
            ((ISBN, "frodo", r#"{"grade":-1,"text":"Fine."}"#), 400, "invalid_body"),
            ((ISBN, "frodo", r#"{"grade":300,"text":"Fine."}"#), 400, "invalid_body"),
            ((ISBN, "frodo", r#"{"grade":null,"text":"Fine."}"#), 400, "invalid_body"),
            ((ISBN, "frodo", r#"{"grade":5,"text":""}"#), 400, "invalid_body"),
            ((ISBN, "frodo", r#"{"grade":5,"text":" \n "}"#), 400, "invalid_body"),
            ((ISBN, "frodo", r#"{"grade":5,"text":42}"#), 400, "invalid_body"),
            ((ISBN, "frodo", &long_text), 400, "invalid_body"),
            ((ISBN, "frodo", r#"{"grade":5,"text":"Fine.","reviewDate":"2001-01-01"}"#), 400, "invalid_body"),
            ((ISBN, "frodo", r#"{"grade":5,"text":"Fine.","username":"sam"}"#), 400, "invalid_body"),
            // The path: ISBNs with a bad check digit or no ISBN at all, bad usernames.
            (("9780261102355", "frodo", ok), 400, "invalid_parameter"),
            (("0261102355", "frodo", ok), 400, "invalid_parameter"),
            (("12345", "frodo", ok), 400, "invalid_parameter"),
            (("978026110235X", "frodo", ok), 400, "invalid_parameter"),
            ((ISBN, "a#b", ok), 400, "invalid_parameter"),
            ((ISBN, "USER#frodo", ok), 400, "invalid_parameter"),
            ((ISBN, &long_user, ok), 400, "invalid_parameter"),
            ((ISBN, "", ok), 400, "invalid_parameter"),
        ];
        testkit::assert_errors(cases, async |(isbn, user, body)| {
            put(&table, isbn, user, body).await
        })
        .await;
        // A text of 5000 characters (many of them multi-byte) is fine.
        let max = format!(r#"{{"grade":5,"text":"{}"}}"#, "é".repeat(MAX_TEXT_CHARS));
        assert_eq!(all_items(&table).await, before, "nothing written");
        assert!(table.meter().requests().is_empty(), "nothing even sent");
        let (s, b) = put(&table, ISBN, "frodo", &max).await;
        assert_eq!(s, 201);
        assert_eq!(b["text"].as_str().unwrap().chars().count(), MAX_TEXT_CHARS);
    }

    /// The largest review there can be (the longest username, 5,000 four-byte characters) is an
    /// item of at most `model::reviews::Review::LARGEST_BYTES`, the size the pages' read budget assumes; its text
    /// alone is within 1 KB of it, so the bound is not slack.
    #[tokio::test]
    async fn the_largest_review_is_within_the_size_pages_assume() {
        let user = "u".repeat(64); // the longest id: 65 characters are refused
        let table = table_with(&[ISBN], &[&user]).await;
        let raw = format!(r#"{{"grade":10,"text":"{}"}}"#, "😀".repeat(MAX_TEXT_CHARS));
        let (s, b) = put(&table, ISBN, &user, &raw).await;
        assert_eq!(s, 201, "{b}");
        let largest = testkit::all_items(&table)
            .await
            .iter()
            .filter(|i| model::type_of(i) == Some(<Review as model::Entity>::TYPE))
            .map(testkit::item_size)
            .max()
            .expect("the review");
        assert!(
            largest <= model::reviews::Review::LARGEST_BYTES as usize,
            "{largest} bytes"
        );
        assert!(largest > 4 * MAX_TEXT_CHARS, "{largest} bytes");
    }

    /// The body cap is the largest valid body: 5,000 characters of 4-byte UTF-8, even written
    /// as escaped surrogate pairs (12 bytes each), is a review; a byte over the cap is a 413.
    #[tokio::test]
    async fn the_largest_valid_review_fits_under_the_body_cap() {
        let table = table_with(&[ISBN], &["frodo"]).await;
        let raw = format!(r#"{{"grade":5,"text":"{}"}}"#, "😀".repeat(MAX_TEXT_CHARS));
        let (s, b) = put(&table, ISBN, "frodo", &raw).await;
        assert_eq!(s, 201, "20 KB of 4-byte characters: {}", b["code"]);
        let escaped = format!(
            r#"{{"grade": 10, "text": "{}"}}"#,
            "\\ud83d\\ude00".repeat(MAX_TEXT_CHARS)
        );
        assert!(
            escaped.len() <= api::MAX_BODY_BYTES,
            "{} bytes",
            escaped.len()
        );
        let (s, b) = put(&table, ISBN, "frodo", &escaped).await;
        assert_eq!(s, 200, "{}", b["code"]);
        assert_eq!(b["text"].as_str().unwrap().chars().count(), MAX_TEXT_CHARS);
        let over = format!(
            "{escaped}{}",
            " ".repeat(api::MAX_BODY_BYTES + 1 - escaped.len())
        );
        let (s, b) = put(&table, ISBN, "frodo", &over).await;
        assert_eq!((s, b["code"].as_str()), (413, Some("body_too_large")));
    }
}
