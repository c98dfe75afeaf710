//! R2: `GET /users/{username}?limit=&cursor=`: the user and their reviews, newest first, a page at
//! a time (default 10, 1..=100). ONE query of GSI1 per page, within the page's read budget (as
//! R1: [`crate::get_book`]).
//!
//! The user's record and their reviews share the GSI1 partition `USER#<username>`; review GSI1
//! sort keys start with their date, which sorts before `U`, so reading the partition backwards
//! from the user's record (`GSI1SK <= USER#<username>`, `Limit = limit + 1`) yields the user, then
//! their `limit` newest reviews. Later pages start after the cursor's key with `Limit = limit` and
//! hold reviews only (`"user": null`). Review markers live in the user's base-table partition and
//! carry no GSI1 attributes: this read never meets them. GSI reads are eventually consistent: a
//! review written a moment ago may take a moment to show here.
//!
//! `reviewCount` is derived by the stream handlers (`ReviewCount` on the user).
//!
//! With `IndexDesign` dedicated, R2 reads its own index instead: `ReviewsByUser` holds each
//! review's keys only (`Username` = the user, by `ReviewDate` then `Isbn`), so a page is ONE Query
//! of the page's keys, backwards, then ONE BatchGetItem of those reviews and, on the first page,
//! the user (no user: 404). BatchGetItem rounds each item up to 4 KB, so the page's read budget
//! holds fewer reviews than GSI1's summed Query (`user_reviews::dedicated_page`). A review the index still
//! lists but the table no longer holds (deleted or replaced a moment ago) is left out. A cursor
//! of any design continues in another: a position is its review's table key.
//!
//! With `IndexDesign` projected, `ReviewsByUserAll` has the same keys and holds each review
//! whole: a page is ONE Query of the page's reviews, within the page's read budget as on GSI1,
//! and, on a first page, ONE GetItem of the user sent at the same time (no user: 404).

use crate::data::user_reviews::UserReviews;
use crate::views as view;
use api::declare::*;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "get-user",
    Access::owner_or_staff("username", Refused::UserNotFound.refusal()),
    &Route::get(
        "/users/{username}",
        "R2: a user with their review count and their reviews, newest first, paginated",
        &[Pattern {
            id: "R2",
            route: "`GET /users/{username}?limit=&cursor=`",
            index: Index::Gsi1,
            request: "Query `GSI1PK = USER#<u> AND GSI1SK <= USER#<u>`, backwards, as R1; with `IndexDesign=dedicated`, Query `ReviewsByUser` `Username = <u>` backwards (keys only), then BatchGetItem of the page's reviews and, first page, the user; with `IndexDesign=projected`, Query `ReviewsByUserAll` `Username = <u>` backwards (whole reviews) and, first page, GetItem of the user at the same time",
            returns: "`{user (reviewCount), reviews, nextCursor}` newest first",
            example: Example::sub("frodo", "/users/frodo?limit=2"),
        }],
    )
    .paged(10),
)
.needs(Needs::TABLE.with_settings(&[INDEX_DESIGN]));

api::refusals! {
    UserNotFound = crate::refusals::USER_NOT_FOUND,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] =
    &[
        Contract::ok::<Page>("the user (first page only) and a page of their reviews")
            .refusals(Refused::ALL)
            .page_note(crate::get_book::PAGE_NOTE),
    ];

api::page! {
    /// A page of a user's reviews.
    Page {
        /// the user on the first page, null after
        user: Option<view::User>,
        reviews: Vec<view::Review>,
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let user = api::path_id(&req, "username")?;
    let reviews_of = UserReviews::of(deps)?;
    // A cursor is bound to this pattern, this user and this page size; its position, a review's
    // table key, is good in every design.
    let mut paging = api::paging(deps, &req, &FUNCTION, |limit| format!("R2|{user}|{limit}"))?;
    paging.start = paging
        .start
        .take()
        .map(|at| reviews_of.position(&user, &at))
        .transpose()?;
    let found = reviews_of.page(&deps.table, &paging, &user).await?;
    let (record, reviews, next) = Refused::UserNotFound.unless_found(found, || {
        format!("There is no user {user}; create it with PUT /users/{user}.")
    })?;
    api::json(
        200,
        &Page {
            user: record.as_ref().map(view::user),
            reviews: reviews.iter().map(view::review).collect(),
            next_cursor: next,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data as reviews;
    use crate::data::user_reviews::{LARGEST_ENTRY_BYTES, dedicated_page};
    use crate::fixtures::{self, id};
    use keys::indexes::IndexDesign;
    use keys::reviews::{self as k, Isbn};
    use model::Item;
    use model::reviews::User;
    use serde_json::{Value, json};
    use store::{Table, Update, cursor::CursorCodec};
    use testkit::{Harness, all_items, query_read_units};
    const T0: u64 = fixtures::REVIEW_2001_MS;

    /// The ISBN-13 of `978000000<i:3>` with its check digit: a distinct valid book per `i`.
    fn isbn(i: u64) -> Isbn {
        (0..10)
            .find_map(|c| Isbn::parse(&format!("978000000{i:03}{c}")).ok())
            .unwrap()
    }

    async fn add_user(table: &Table, user: &str) {
        fixtures::user(table, user).await;
    }

    /// `user`'s review of book `book` (created here) at `at_ms`.
    async fn add_review(table: &Table, book: u64, user: &str, at_ms: u64, text: &str) {
        let isbn = isbn(book);
        reviews::put_book(table, &isbn, &format!("Book {book}"), "A", 1954)
            .await
            .unwrap();
        let grade = (book % 10) as u8 + 1;
        fixtures::review(table, isbn.as_str(), user, at_ms, grade, text).await;
    }

    /// frodo with `n` reviews of books 0.. one day apart (book 0 the oldest); sam with one.
    async fn seeded(n: u64) -> Harness {
        let table = testkit::table().await;
        add_user(&table, "frodo").await;
        add_user(&table, "sam").await;
        for i in 0..n {
            add_review(&table, i, "frodo", T0 + i * 86_400_000, "Good.").await;
        }
        add_review(&table, 0, "sam", T0, "Also good.").await;
        table.meter().reset();
        Harness::new(&FUNCTION, handle, table)
    }

    async fn get(h: &Harness, user: &str, query: &[(&str, &str)]) -> (u16, Value) {
        h.get(&h.path(&[user]), query).await
    }

    fn books_of(body: &Value) -> Vec<String> {
        testkit::column(&body["reviews"], "isbn")
    }

    fn expected_books(range: impl DoubleEndedIterator<Item = u64>) -> Vec<String> {
        range.rev().map(|i| isbn(i).to_string()).collect()
    }

    /// The stored items of a page: the user (if shown) and the reviews, by GSI1 key.
    async fn items_of(d: &Deps, user: &str, body: &Value) -> Vec<Item> {
        let mut sks = testkit::joined(&body["reviews"], &["reviewDate", "isbn"], "#BOOK#");
        if !body["user"].is_null() {
            sks.push(format!("USER#{user}"));
        }
        let partition = testkit::items_with(&d.table, "GSI1PK", &format!("USER#{user}")).await;
        let items: Vec<Item> = partition
            .into_iter()
            .filter(|i| sks.contains(i["GSI1SK"].as_s().unwrap()))
            .collect();
        assert_eq!(items.len(), sks.len());
        items
    }

    #[tokio::test]
    async fn the_user_and_their_newest_reviews_in_one_minimal_index_query() {
        let d = seeded(5).await;
        let (s, body) = get(&d, "frodo", &[("limit", "3")]).await;
        assert_eq!(s, 200, "{body}");
        assert_eq!(
            body["user"],
            json!({ "username": "frodo", "membershipDate": "2000-09-29", "reviewCount": 0 })
        );
        assert_eq!(books_of(&body), expected_books(2..5), "newest first");
        assert_eq!(
            body["reviews"][0],
            json!({
                "isbn": isbn(4).as_str(),
                "username": "frodo",
                "grade": 5,
                "text": "Good.",
                "reviewDate": "2001-08-09T02:46:00.000Z",
            })
        );
        assert!(body["nextCursor"].is_string());
        let requests = d.table.meter().requests();
        assert_eq!(requests.len(), 1);
        assert_eq!((requests[0].operation, requests[0].items), ("Query", 4));
        let read = items_of(&d, "frodo", &body).await;
        assert_eq!(requests[0].index_read_units, query_read_units(&read, false));
        assert_eq!(requests[0].read_units, 0.0, "nothing read from the table");
        eprintln!("R2 first page: {requests:?}");
    }

    #[tokio::test]
    async fn reading_a_few_of_many_reviews_pays_for_the_few() {
        let table = testkit::table().await;
        add_user(&table, "frodo").await;
        let text = "A long walk, well told. ".repeat(20);
        for i in 0..60u64 {
            add_review(&table, i, "frodo", T0 + i * 1000, &text).await;
        }
        let partition = testkit::items_with(&table, "GSI1PK", "USER#frodo").await;
        assert_eq!(partition.len(), 61);
        assert!(query_read_units(&partition, false) >= 4.0);
        table.meter().reset();
        let d = Harness::new(&FUNCTION, handle, table);
        let (s, body) = get(&d, "frodo", &[("limit", "2")]).await;
        assert_eq!((s, books_of(&body)), (200, expected_books(58..60)));
        let requests = d.table.meter().requests();
        assert_eq!((requests.len(), requests[0].items), (1, 3));
        assert_eq!(requests[0].index_read_units, 0.5);
    }

    #[tokio::test]
    async fn walking_the_pages_returns_every_review_once_one_query_per_page() {
        let d = seeded(12).await;
        let pages = testkit::walk_one_query_per_page(
            &d.table,
            Some("GSI1"),
            "5",
            async |q| get(&d, "frodo", q).await,
            async |body| items_of(&d, "frodo", body).await,
        )
        .await;
        let users: Vec<_> = pages.iter().map(|p| !p["user"].is_null()).collect();
        assert_eq!(users, [true, false, false], "5 + 5 + 2, the user first");
        let seen: Vec<_> = pages.iter().flat_map(books_of).collect();
        assert_eq!(seen, expected_books(0..12));
    }

    #[tokio::test]
    async fn reviews_written_during_a_walk_are_neither_skipped_nor_repeated() {
        let d = seeded(12).await;
        let mut newcomers = 100;
        let pages = testkit::walk_pages("4", async |q| {
            let (s, body) = get(&d, "frodo", q).await;
            assert_eq!(s, 200);
            for _ in 0..2 {
                add_review(&d.table, newcomers, "frodo", keys::now_ms(), "New.").await;
                newcomers += 1;
            }
            body
        })
        .await;
        let seen: Vec<_> = pages.iter().flat_map(books_of).collect();
        assert_eq!(
            seen,
            expected_books(0..12),
            "exactly the reviews there at the start"
        );
        let (_, body) = get(&d, "frodo", &[("limit", "2")]).await;
        assert_eq!(books_of(&body), expected_books(newcomers - 2..newcomers));
    }

    #[tokio::test]
    async fn markers_never_show_and_the_review_count_is_derived() {
        let d = seeded(2).await;
        // Markers exist, in the user's base-table partition.
        let markers = all_items(&d.table)
            .await
            .into_iter()
            .filter(|i| i["Type"].as_s().unwrap() == "ReviewMarker")
            .count();
        assert_eq!(markers, 3);
        let derived = Update::new().add(User::REVIEW_COUNT, 2);
        let frodo = k::user(&id("frodo"));
        d.table.update(&frodo, &derived, None).await.unwrap();
        d.table.meter().reset();
        let (s, body) = get(&d, "frodo", &[]).await;
        assert_eq!(s, 200);
        assert_eq!(body["user"]["reviewCount"], 2);
        assert_eq!(body["reviews"].as_array().unwrap().len(), 2);
        assert_eq!(
            d.table.meter().requests()[0].items,
            3,
            "the user and 2 reviews, no marker"
        );
        // A user without reviews.
        add_user(&d.table, "pippin").await;
        let (s, body) = get(&d, "pippin", &[]).await;
        assert_eq!(
            (s, body["reviews"].clone(), body["nextCursor"].clone()),
            (200, json!([]), Value::Null)
        );
    }

    #[tokio::test]
    async fn bad_input_and_foreign_cursors_are_4xx() {
        let d = seeded(6).await;
        let (_, page) = get(&d, "frodo", &[("limit", "2")]).await;
        let cursor = page["nextCursor"].as_str().unwrap().to_owned();
        let (_, other) = get(&d, "sam", &[("limit", "1")]).await;
        let foreign = other["nextCursor"].as_str().unwrap().to_owned();
        let mut tampered = cursor.clone();
        tampered.replace_range(3..4, if &cursor[3..4] == "A" { "B" } else { "A" });
        // Someone else's book cursor (R1), for the same page size.
        let r1 = CursorCodec::new(testkit::TEST_CURSOR_KEY)
            .unwrap()
            .encode(
                "R1|9780261102354|2",
                &Item::from([
                    ("PK".to_owned(), model::s("BOOK#9780261102354")),
                    (
                        "SK".to_owned(),
                        model::s("2001-08-05T02:46:00.000Z#USER#frodo"),
                    ),
                ]),
            )
            .unwrap();
        d.table.meter().reset();
        let long = "u".repeat(65);
        /// An id, its query, and the status and error code it must get.
        type Case<'a> = ((&'a str, Vec<(&'a str, &'a str)>), u16, &'static str);
        #[rustfmt::skip]
        let cases: Vec<Case> = vec![
            (("a#b", vec![]), 400, "invalid_parameter"),
            (("USER#frodo", vec![]), 400, "invalid_parameter"),
            (("a b", vec![]), 400, "invalid_parameter"),
            ((&long, vec![]), 400, "invalid_parameter"),
            (("", vec![]), 400, "invalid_parameter"),
            (("frodo", vec![("cursor", &tampered), ("limit", "2")]), 400, "invalid_cursor"),
            (("frodo", vec![("cursor", &cursor), ("limit", "3")]), 400, "invalid_cursor"),
            (("sam", vec![("cursor", &cursor), ("limit", "2")]), 400, "invalid_cursor"),
            (("frodo", vec![("cursor", &foreign), ("limit", "1")]), 400, "invalid_cursor"),
            (("frodo", vec![("cursor", &r1), ("limit", "2")]), 400, "invalid_cursor"),
        ];
        testkit::assert_errors(cases, async |(user, q)| get(&d, user, q).await).await;
        assert!(
            d.table.meter().requests().is_empty(),
            "nothing sent for bad input"
        );
        let (s, b) = get(&d, "gollum", &[]).await;
        assert_eq!((s, b["code"].as_str().unwrap()), (404, "user_not_found"));
        let (s, b) = get(&d, "frodo", &[("cursor", &cursor), ("limit", "2")]).await;
        assert_eq!((s, books_of(&b)), (200, expected_books(2..4)));
    }

    // ---------------------------------------------------------------------------------------
    // IndexDesign dedicated: `ReviewsByUser`, keys only, then one BatchGetItem; projected:
    // `ReviewsByUserAll`, whole reviews, and the user beside them.

    /// R2 answered in `design`, on `table`.
    fn in_design(table: &Table, design: IndexDesign) -> Harness {
        let deps = testkit::deps(table.clone(), FUNCTION.needs)
            .with_setting(&INDEX_DESIGN, design.as_str())
            .unwrap();
        Harness::with_deps(&FUNCTION, handle, deps)
    }

    /// frodo's 23 reviews on a table with every index, written as fixtures write them (GSI1's
    /// keys, and the attributes `ReviewsByUser` and `ReviewsByUserAll` index): some on the same
    /// millisecond, so the book orders them, and sam's beside them. R2 in each design, in
    /// `IndexDesign::ALL`'s order.
    async fn every_design() -> [Harness; 3] {
        let table = testkit::table().await;
        add_user(&table, "frodo").await;
        add_user(&table, "sam").await;
        for i in 0..23u64 {
            let at = T0 + (i / 3) * 86_400_000;
            add_review(&table, (i * 7) % 23, "frodo", at, &format!("Review {i}.")).await;
        }
        add_review(&table, 3, "sam", T0, "Also good.").await;
        IndexDesign::ALL.map(|design| in_design(&table, design))
    }

    #[tokio::test]
    async fn every_design_answers_every_page_alike() {
        let designs = every_design().await;
        // Within the dedicated page's budget (10 reviews), the same pages, cursor for cursor.
        assert_eq!(dedicated_page(true), 10);
        assert_eq!(dedicated_page(false), 10);
        for limit in ["1", "2", "5", "10"] {
            let walk = async |h: &Harness| {
                testkit::walk_pages(limit, async |q| {
                    let (s, body) = get(h, "frodo", q).await;
                    assert_eq!(s, 200, "{body}");
                    body
                })
                .await
            };
            let a = walk(&designs[0]).await;
            for other in &designs[1..] {
                let b = walk(other).await;
                assert_eq!(a.len(), b.len(), "limit {limit}");
                for (pa, pb) in a.iter().zip(&b) {
                    assert_eq!(pa["user"], pb["user"], "limit {limit}");
                    assert_eq!(pa["reviews"], pb["reviews"], "limit {limit}");
                    assert_eq!(pa["nextCursor"].is_null(), pb["nextCursor"].is_null());
                }
            }
            assert_eq!(a.iter().flat_map(books_of).count(), 23);
        }
        // A larger page: the same reviews in the same order, the dedicated pages cut at 10.
        let all = |pages: Vec<Value>| -> Vec<Value> {
            pages
                .iter()
                .flat_map(|p| p["reviews"].as_array().unwrap().clone())
                .collect()
        };
        let (mut sizes, mut walks) = (Vec::new(), Vec::new());
        for h in &designs {
            let pages = testkit::walk_pages("50", async |q| get(h, "frodo", q).await.1).await;
            sizes.push(
                pages
                    .iter()
                    .map(|p| p["reviews"].as_array().unwrap().len())
                    .collect::<Vec<_>>(),
            );
            walks.push(all(pages));
        }
        assert_eq!(walks[0], walks[1]);
        assert_eq!(walks[0], walks[2]);
        assert_eq!(sizes, [vec![23], vec![10, 10, 3], vec![23]]);
    }

    #[tokio::test]
    async fn a_walk_that_changes_design_between_pages_continues_where_it_stood() {
        let designs = every_design().await;
        let mut turn = 0;
        let pages = testkit::walk_pages("4", async |q| {
            turn += 1;
            let h = &designs[turn % designs.len()];
            let (s, body) = get(h, "frodo", q).await;
            assert_eq!(s, 200, "{body}");
            body
        })
        .await;
        let one = testkit::walk_pages("4", async |q| get(&designs[0], "frodo", q).await.1).await;
        // Each cursor is sealed afresh: the pages' contents are what must match.
        let contents = |pages: &[Value]| -> Vec<(Value, Value)> {
            pages
                .iter()
                .map(|p| (p["user"].clone(), p["reviews"].clone()))
                .collect()
        };
        assert_eq!(contents(&pages), contents(&one));
        assert_eq!(pages.len(), 6);
    }

    #[tokio::test]
    async fn a_dedicated_page_is_a_query_of_keys_then_one_batch_get() {
        let [_, dedicated, _] = every_design().await;
        let table = dedicated.table();
        table.meter().reset();
        let (s, body) = get(&dedicated, "frodo", &[("limit", "3")]).await;
        assert_eq!(s, 200, "{body}");
        assert_eq!(body["user"]["username"], "frodo");
        let requests = table.meter().requests();
        let ops: Vec<_> = requests
            .iter()
            .map(|r| (r.operation, r.index, r.items))
            .collect();
        assert_eq!(
            ops,
            [
                ("Query", Some("ReviewsByUser"), 3),
                ("BatchGetItem", None, 4)
            ]
        );
        // Keys only: three entries in one 4 KB block; then each item rounded on its own.
        assert_eq!(requests[0].index_read_units, 0.5);
        assert_eq!(requests[0].read_units, 0.0);
        assert_eq!(requests[1].read_units, 4.0 * 0.5);
        // A later page fetches its reviews only.
        let cursor = body["nextCursor"].as_str().unwrap().to_owned();
        table.meter().reset();
        let (_, next) = get(&dedicated, "frodo", &[("limit", "3"), ("cursor", &cursor)]).await;
        assert!(next["user"].is_null());
        let requests = table.meter().requests();
        assert_eq!((requests.len(), requests[1].items), (2, 3));
        // No such user: 404, after one Query (nothing listed) and one BatchGetItem (no user).
        let (s, b) = get(&dedicated, "gollum", &[]).await;
        assert_eq!((s, b["code"].as_str().unwrap()), (404, "user_not_found"));
    }

    #[tokio::test]
    async fn a_projected_page_is_one_query_of_whole_reviews_and_the_user_beside_it() {
        let [_, _, projected] = every_design().await;
        let table = projected.table();
        table.meter().reset();
        let (s, body) = get(&projected, "frodo", &[("limit", "3")]).await;
        assert_eq!(s, 200, "{body}");
        assert_eq!(body["user"]["username"], "frodo");
        let mut ops: Vec<_> = (table.meter().requests().iter())
            .map(|r| {
                (
                    r.operation,
                    r.index,
                    r.items,
                    r.read_units + r.index_read_units,
                )
            })
            .collect();
        ops.sort_by_key(|op| op.0);
        // Three small reviews summed into one 4 KB block, as on GSI1; the user on its own.
        assert_eq!(
            ops,
            [
                ("GetItem", None, 1, 0.5),
                ("Query", Some("ReviewsByUserAll"), 3, 0.5)
            ]
        );
        // A later page reads its reviews only.
        let cursor = body["nextCursor"].as_str().unwrap().to_owned();
        table.meter().reset();
        let (_, next) = get(&projected, "frodo", &[("limit", "3"), ("cursor", &cursor)]).await;
        assert!(next["user"].is_null());
        let ops: Vec<_> = (table.meter().requests().iter())
            .map(|r| (r.operation, r.items))
            .collect();
        assert_eq!(ops, [("Query", 3)]);
        // No such user: 404.
        let (s, b) = get(&projected, "gollum", &[]).await;
        assert_eq!((s, b["code"].as_str().unwrap()), (404, "user_not_found"));
    }

    /// The dedicated design's writers: the user and the review carry no GSI1 keys (GSI1 holds
    /// neither), the review stands in `ReviewsByUser` by its own attributes, and R2 reads it
    /// there (GSI1's reader, which no deployment of this design runs, finds no user).
    #[tokio::test]
    async fn the_dedicated_writers_leave_gsi1_out() {
        let table = testkit::table().await;
        let design = IndexDesign::Dedicated;
        let today = keys::Date::parse_iso("2026-01-01").unwrap();
        reviews::put_user(&table, design, &id("frodo"), None, today)
            .await
            .unwrap();
        reviews::put_book(&table, &isbn(1), "B", "A", 1954)
            .await
            .unwrap();
        let new = reviews::NewReview {
            isbn: isbn(1),
            user: id("frodo"),
            grade: 9,
            text: "Good.".into(),
            at: keys::Timestamp::from_ms(T0).unwrap(),
        };
        reviews::put_review(&table, design, &new).await.unwrap();
        reviews::put_review(&table, design, &new).await.unwrap();
        let items = all_items(&table).await;
        assert!(
            items
                .iter()
                .all(|i| !i.contains_key("GSI1PK") && !i.contains_key("GSI1SK"))
        );
        let entries = table
            .query(k::reviews_by_user(&id("frodo")))
            .send()
            .await
            .unwrap()
            .items;
        assert_eq!(entries.len(), 1, "the replaced review left the index");
        let mut names: Vec<_> = entries[0].keys().cloned().collect();
        names.sort();
        assert_eq!(
            names,
            ["Isbn", "PK", "ReviewDate", "SK", "Username"],
            "keys only"
        );
        let (s, body) = get(&in_design(&table, design), "frodo", &[]).await;
        assert_eq!((s, books_of(&body)), (200, vec![isbn(1).to_string()]));
        assert_eq!(body["reviews"][0]["text"], "Good.");
        let (s, _) = get(&in_design(&table, IndexDesign::Overloaded), "frodo", &[]).await;
        assert_eq!(s, 404);
        // A user record GSI1's design wrote loses its GSI1 keys when written in this one.
        add_user(&table, "sam").await;
        reviews::put_user(&table, design, &id("sam"), None, today)
            .await
            .unwrap();
        let sam = testkit::items_with(&table, "PK", "USER#sam").await;
        assert!(sam.iter().all(|i| !i.contains_key("GSI1PK")));
    }

    /// The largest entry `ReviewsByUser` can hold (the longest username's review) is within
    /// `LARGEST_ENTRY_BYTES`, which the dedicated page's budget assumes.
    #[test]
    fn the_largest_entry_is_within_the_size_pages_assume() {
        let user = keys::Id::parse("u", crate::put_user::longest_username()).unwrap();
        let at = keys::Timestamp::from_ms(T0).unwrap();
        let mut entry = model::key_item(&k::review(&isbn(1), &user, at));
        entry.extend(model::index_key_item(&k::review_by_user(
            &isbn(1),
            &user,
            at,
        )));
        let size = testkit::item_size(&entry);
        assert!(
            size <= LARGEST_ENTRY_BYTES as usize && size > 200,
            "{size} bytes"
        );
    }
}
