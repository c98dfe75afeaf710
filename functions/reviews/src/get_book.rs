//! R1: `GET /books/{isbn}?limit=&cursor=`: the book and its reviews, newest first, a page at a
//! time (default 10 reviews; 1..=100). ONE query per page, within the page's read budget.
//!
//! First page: the book's collection read backwards from the book's own record (`SK <= BOOK#<isbn>`;
//! review sort keys start with their date, which sorts before `B`), `Limit = limit + 1`: the book
//! and its `limit` newest reviews. Later pages start after the cursor's key with `Limit = limit`
//! and hold reviews only (`"book": null`). A review written during a walk is newer than every
//! review already listed, so it sorts before the cursor: the walk neither repeats nor skips.
//!
//! `rating` is derived by the stream handlers (`RatingCount`, `RatingSum` on the book): the count
//! and the average grade to 2 decimals (`null` without reviews).
//!
//! Anyone may read this page, so what it costs is bounded whatever the reviews hold: a page stops
//! at [`store::PAGE_READ_BUDGET`] read units (the next page is one cursor away). A review can be
//! 20 KB (5,000 four-byte characters), so a page of the largest reviews is read in rounds of as
//! many as the budget left pays for; the default page of 10 is one round whatever the reviews
//! are (Pernin's introduction shows 15: with the largest reviews those would take two).

use crate::views as view;
use api::declare::*;
use keys::reviews as k;
use model::reviews::{Book, Review};

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "get-book",
    Access::Public,
    &Route::get(
        "/books/{isbn}",
        "R1: a book with its rating and its reviews, newest first, paginated",
        &[Pattern {
            id: "R1",
            route: "`GET /books/{isbn}?limit=&cursor=` (default 10, 1–100)",
            index: Index::Table,
            request: "Query `PK = BOOK#<isbn> AND SK <= BOOK#<isbn>`, backwards; first page `Limit = limit + 1` (the book and `limit` reviews); a page stops at 32 read units (another Query for the rest of the page only while the budget left pays for it at 20 KB a review)",
            returns: "`{book (rating: count, average), reviews, nextCursor}` newest first; 404 `book_not_found`",
            example: Example::anyone("/books/9780261102354?limit=2"),
        }],
    )
    .paged(10),
);

api::refusals! {
    BookNotFound = crate::refusals::BOOK_NOT_FOUND,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] =
    &[
        Contract::ok::<Page>("the book (first page only) and a page of its reviews")
            .refusals(Refused::ALL)
            .page_note(PAGE_NOTE)
            .worst_read_units(30.0)
            .worst(worst),
    ];

/// What a page of reviews (R1, R2) holds beyond its size.
pub const PAGE_NOTE: &str = "a page also stops at 32 read units (a page of the largest reviews, 20 KB each, holds 11 items), the next page one nextCursor away";

api::page! {
    /// A page of a book's reviews.
    Page {
        /// the book on the first page, null after
        book: Option<view::Book>,
        reviews: Vec<view::Review>,
    }
}

/// The costliest page: the most reviews a page may ask for, on a book of more of the largest
/// reviews than the read budget pays for.
fn worst() -> api::function::Worst {
    let reviews = store::PAGE_READ_BUDGET as u16;
    let mut worst = api::function::Worst::new(
        format!(
            "`limit={}` on a book of {reviews} reviews of {} characters of 4 bytes: the read budget stops the page",
            api::function::Page::MAX,
            model::reviews::Review::MAX_TEXT_CHARS
        ),
        Example::anyone(api::function::leak(format!(
            "/books/9780261102354?limit={}",
            api::function::Page::MAX
        ))),
    );
    for n in 0..reviews {
        let user = crate::put_user::longest_username_numbered(n);
        worst = worst
            .after("put-user", crate::put_user::largest_named(user))
            .after("put-review", crate::put_review::largest_by(user));
    }
    worst
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let isbn = crate::params::path_isbn(&req)?;
    // Who asks decides whether each review shows its author's account id.
    let caller = api::auth::caller(&req);
    // A cursor is bound to this pattern, this book and this page size.
    let paging = api::paging(deps, &req, &FUNCTION, |limit| format!("R1|{isbn}|{limit}"))?;
    let largest = model::reviews::Review::LARGEST_BYTES;
    let found = paging
        .parent_page::<Book, Review, _>(&deps.table, k::book_and_reviews(&isbn), largest)
        .await?;
    let (book, reviews, next) = Refused::BookNotFound.unless_found(found, || {
        format!("There is no book {isbn}; create it with PUT /books/{isbn}.")
    })?;
    api::json(
        200,
        &Page {
            book: book.as_ref().map(view::book),
            reviews: reviews
                .iter()
                .map(|r| view::public_review(r, caller.as_ref()))
                .collect(),
            next_cursor: next,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data as reviews;
    use crate::fixtures;
    use keys::reviews::Isbn;
    use model::Item;
    use serde_json::{Value, json};
    use store::{Table, Update};
    use testkit::{Harness, all_items, query_read_units};
    const ISBN: &str = "9780261102354";
    const OTHER: &str = "9780261102361";
    const T0: u64 = fixtures::REVIEW_2001_MS;

    /// `user` (created, or written again) and their review of `isbn` at `at_ms`.
    async fn add_review(table: &Table, isbn: &str, user: &str, at_ms: u64, text: &str) {
        fixtures::user(table, user).await;
        let grade = (at_ms % 10) as u8 + 1;
        fixtures::review(table, isbn, user, at_ms, grade, text).await;
    }

    /// The Fellowship with `n` reviews by user-00.. one day apart (user-00 the oldest), and the Two
    /// Towers with one review.
    async fn seeded(n: u64) -> Harness {
        let table = testkit::table().await;
        for isbn in [ISBN, OTHER] {
            crate::fixtures::titled_book(&table, isbn).await;
        }
        for i in 0..n {
            add_review(
                &table,
                ISBN,
                &format!("user-{i:02}"),
                T0 + i * 86_400_000,
                "Good.",
            )
            .await;
        }
        add_review(&table, OTHER, "user-00", T0, "Also good.").await;
        table.meter().reset();
        Harness::new(&FUNCTION, handle, table)
    }

    /// R1 as staff, who see each review's author (anyone else does not: tests/src/people.rs).
    async fn get(h: &Harness, isbn: &str, query: &[(&str, &str)]) -> (u16, Value) {
        h.as_staff().get(&h.path(&[isbn]), query).await
    }

    fn users_of(body: &Value) -> Vec<String> {
        testkit::column(&body["reviews"], "username")
    }

    /// The stored items of a page: the book (if shown) and its reviews, by key.
    async fn items_of(d: &Deps, body: &Value) -> Vec<Item> {
        let all = all_items(&d.table).await;
        let mut sks = testkit::joined(&body["reviews"], &["reviewDate", "username"], "#USER#");
        if !body["book"].is_null() {
            sks.push(format!("BOOK#{ISBN}"));
        }
        let items: Vec<Item> = all
            .into_iter()
            .filter(|i| i["PK"].as_s().unwrap() == &format!("BOOK#{ISBN}"))
            .filter(|i| sks.contains(i["SK"].as_s().unwrap()))
            .collect();
        assert_eq!(items.len(), sks.len());
        items
    }

    fn expected_users(range: impl DoubleEndedIterator<Item = u64>) -> Vec<String> {
        range.rev().map(|i| format!("user-{i:02}")).collect()
    }

    #[tokio::test]
    async fn the_book_and_its_newest_reviews_in_one_minimal_query() {
        let d = seeded(5).await;
        let (s, body) = get(&d, ISBN, &[("limit", "3")]).await;
        assert_eq!(s, 200, "{body}");
        assert_eq!(
            body["book"],
            json!({
                "isbn": ISBN,
                "title": "The Fellowship of the Ring",
                "author": "J.R.R. Tolkien",
                "publicationYear": 1954,
                "rating": { "count": 0, "average": null },
            })
        );
        assert_eq!(users_of(&body), expected_users(2..5), "newest first");
        assert_eq!(
            body["reviews"][0],
            json!({
                "isbn": ISBN,
                "username": "user-04",
                "grade": 1,
                "text": "Good.",
                "reviewDate": "2001-08-09T02:46:00.000Z",
            })
        );
        assert!(body["nextCursor"].is_string());
        let requests = d.table.meter().requests();
        assert_eq!(requests.len(), 1);
        assert_eq!((requests[0].operation, requests[0].items), ("Query", 4));
        let read = items_of(&d, &body).await;
        assert_eq!(requests[0].read_units, query_read_units(&read, false));
        eprintln!("R1 first page: {requests:?}");
    }

    /// The tester's read: 100 reviews of 5,000 four-byte characters at `limit=100` consumed 128.5
    /// units. A page stops at the budget instead, and the walk still lists every review once; the
    /// default page of the largest reviews is one query.
    #[tokio::test]
    async fn a_page_of_the_largest_reviews_stops_at_the_read_budget() {
        let table = testkit::table().await;
        crate::fixtures::titled_book(&table, ISBN).await;
        let text = "😀".repeat(model::reviews::Review::MAX_TEXT_CHARS);
        for i in 0..30 {
            add_review(
                &table,
                ISBN,
                &format!("user-{i:02}"),
                T0 + i * 60_000,
                &text,
            )
            .await;
        }
        table.meter().reset();
        let d = Harness::new(&FUNCTION, handle, table);
        let pages =
            testkit::walk_within_read_budget(d.table(), "100", async |q| get(&d, ISBN, q).await)
                .await;
        assert!(
            pages.len() > 1,
            "30 reviews of 20 KB are more than one budget"
        );
        let listed: Vec<String> = pages.iter().flat_map(users_of).collect();
        assert_eq!(
            listed,
            expected_users(0..30),
            "every review once, newest first"
        );
        d.table().meter().reset();
        let answer = get(&d, ISBN, &[]).await;
        testkit::assert_default_page(d.table(), &answer, "reviews", 10);
    }

    #[tokio::test]
    async fn reading_a_few_of_many_reviews_pays_for_the_few() {
        // 60 reviews of ~500 bytes are ~35 KB: reading them all would cost 4.5 units; the book
        // and 2 reviews cost 0.5. DynamoDB's bill shows whether Limit bounded the read.
        let table = testkit::table().await;
        reviews::put_book(&table, &Isbn::parse(ISBN).unwrap(), "T", "A", 1954)
            .await
            .unwrap();
        let text = "A long walk, well told. ".repeat(20);
        for i in 0..60u64 {
            add_review(&table, ISBN, &format!("user-{i:02}"), T0 + i * 1000, &text).await;
        }
        let collection: Vec<_> = all_items(&table)
            .await
            .into_iter()
            .filter(|i| i["PK"].as_s().unwrap() == &format!("BOOK#{ISBN}"))
            .collect();
        assert!(query_read_units(&collection, false) >= 4.0);
        table.meter().reset();
        let d = Harness::new(&FUNCTION, handle, table);
        let (s, body) = get(&d, ISBN, &[("limit", "2")]).await;
        assert_eq!((s, users_of(&body)), (200, expected_users(58..60)));
        let requests = d.table.meter().requests();
        assert_eq!((requests.len(), requests[0].items), (1, 3));
        assert_eq!(requests[0].read_units, 0.5);
    }

    #[tokio::test]
    async fn walking_the_pages_returns_every_review_once_one_query_per_page() {
        let d = seeded(12).await;
        let pages = testkit::walk_one_query_per_page(
            &d.table,
            None,
            "5",
            async |q| get(&d, ISBN, q).await,
            async |body| items_of(&d, body).await,
        )
        .await;
        let books: Vec<_> = pages.iter().map(|p| !p["book"].is_null()).collect();
        assert_eq!(books, [true, false, false], "5 + 5 + 2, the book first");
        let seen: Vec<_> = pages.iter().flat_map(users_of).collect();
        assert_eq!(seen, expected_users(0..12));
    }

    #[tokio::test]
    async fn reviews_written_during_a_walk_are_neither_skipped_nor_repeated() {
        let d = seeded(12).await;
        let mut newcomers = 0;
        let pages = testkit::walk_pages("4", async |q| {
            let (s, body) = get(&d, ISBN, q).await;
            assert_eq!(s, 200);
            // Two new reviews between every two pages, written now: newer than all of them.
            for _ in 0..2 {
                let user = format!("new-{newcomers}");
                add_review(&d.table, ISBN, &user, keys::now_ms(), "New.").await;
                newcomers += 1;
            }
            body
        })
        .await;
        let seen: Vec<_> = pages.iter().flat_map(users_of).collect();
        assert_eq!(
            seen,
            expected_users(0..12),
            "exactly the reviews there at the start"
        );
        // A new walk sees the newcomers first.
        let (_, body) = get(&d, ISBN, &[("limit", "2")]).await;
        assert_eq!(
            users_of(&body),
            [
                format!("new-{}", newcomers - 1),
                format!("new-{}", newcomers - 2)
            ]
        );
    }

    #[tokio::test]
    async fn the_rating_is_the_derived_count_and_average() {
        let d = seeded(1).await;
        // What the stream handlers maintain.
        let derived = Update::new()
            .add(Book::RATING_COUNT, 3)
            .add(Book::RATING_SUM, 25);
        let book = k::book(&Isbn::parse(ISBN).unwrap());
        d.table.update(&book, &derived, None).await.unwrap();
        let (_, body) = get(&d, "0-261-10235-4", &[]).await;
        assert_eq!(
            body["book"]["rating"],
            json!({ "count": 3, "average": 8.33 })
        );
    }

    #[tokio::test]
    async fn a_book_without_reviews_is_a_page_without_reviews() {
        let d = seeded(0).await;
        let (s, body) = get(&d, ISBN, &[]).await;
        assert_eq!(s, 200);
        assert_eq!(body["book"]["isbn"], ISBN);
        assert_eq!(
            (body["reviews"].clone(), body["nextCursor"].clone()),
            (json!([]), Value::Null)
        );
    }

    #[tokio::test]
    async fn bad_input_and_foreign_cursors_are_4xx() {
        let d = seeded(6).await;
        let (_, page) = get(&d, ISBN, &[("limit", "2")]).await;
        let cursor = page["nextCursor"].as_str().unwrap().to_owned();
        let (_, other) = get(&d, OTHER, &[("limit", "2")]).await;
        assert!(other["nextCursor"].is_null());
        // A cursor of the other book: made with a shorter page, which runs into its review.
        let (_, other) = get(&d, OTHER, &[("limit", "1")]).await;
        let foreign = other["nextCursor"].as_str().unwrap().to_owned();
        let mut tampered = cursor.clone();
        tampered.replace_range(3..4, if &cursor[3..4] == "A" { "B" } else { "A" });
        let (payload, sig) = cursor.split_once('.').unwrap();
        let forged = format!("{payload}x.{sig}");
        d.table.meter().reset();
        let long = "9".repeat(100);
        /// An id and its query, and the status and error code they must get.
        type Case<'a> = ((&'a str, Vec<(&'a str, &'a str)>), u16, &'static str);
        #[rustfmt::skip]
        let cases: Vec<Case> = vec![
            (("9780261102355", vec![]), 400, "invalid_parameter"),
            (("0261102355", vec![]), 400, "invalid_parameter"),
            (("978-0-261-10235", vec![]), 400, "invalid_parameter"),
            (("BOOK#9780261102354", vec![]), 400, "invalid_parameter"),
            ((&long, vec![]), 400, "invalid_parameter"),
            ((ISBN, vec![("cursor", &tampered), ("limit", "2")]), 400, "invalid_cursor"),
            ((ISBN, vec![("cursor", &forged), ("limit", "2")]), 400, "invalid_cursor"),
            // Another page size, another book.
            ((ISBN, vec![("cursor", &cursor), ("limit", "3")]), 400, "invalid_cursor"),
            ((ISBN, vec![("cursor", &cursor)]), 400, "invalid_cursor"),
            ((OTHER, vec![("cursor", &cursor), ("limit", "2")]), 400, "invalid_cursor"),
            ((ISBN, vec![("cursor", &foreign), ("limit", "1")]), 400, "invalid_cursor"),
        ];
        testkit::assert_errors(cases, async |(isbn, q)| get(&d, isbn, q).await).await;
        assert!(
            d.table.meter().requests().is_empty(),
            "nothing sent for bad input"
        );
        let (s, b) = get(&d, "9780306406157", &[]).await;
        assert_eq!((s, b["code"].as_str().unwrap()), (404, "book_not_found"));
        // The same book's cursor under its ISBN-10 is the same binding.
        let (s, b) = get(&d, "0-261-10235-4", &[("cursor", &cursor), ("limit", "2")]).await;
        assert_eq!((s, users_of(&b)), (200, expected_users(2..4)));
    }
}
