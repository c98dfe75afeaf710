//! R3: `DELETE /books/{isbn}/reviews/{username}`: removes the user's review of the book. 204, also
//! when there is none (idempotent).
//!
//! A strongly consistent GetItem of the user's marker for the book names the review; then ONE
//! transaction deletes the marker (on condition that it still names that review) and the review.
//! If a concurrent write replaced the review in between, the marker's condition fails and the
//! delete reads again: it removes whichever review is current.

use crate::data as reviews;
use api::declare::*;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "delete-review",
    Access::owner_or_staff("username", Refused::ReviewNotFound.refusal()),
    &Route::delete(
        "/books/{isbn}/reviews/{username}",
        "R3: delete the user's review of the book (the user, or staff moderating)",
        &[Pattern {
            id: "R3",
            route: "`DELETE /books/{isbn}/reviews/{username}`",
            index: Index::Table,
            request: "GetItem the marker, then TransactWriteItems deleting marker and review",
            returns: "204",
            example: Example::sub("frodo", "/books/9780261102361/reviews/frodo"),
        }],
    ),
);

api::refusals! {
    ReviewNotFound = Refusal::new(404, "review_not_found", "the user has no review of that book, or the caller may not see it"),
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::no_content("deleted")
    .refusals(Refused::ALL)
    .worst(|| {
        let review = crate::put_review::largest();
        api::function::Worst::new(
            "the largest review (`put-review`'s worst case)",
            Example {
                body: None,
                ..review
            },
        )
        .after("put-user", crate::put_user::largest())
        .after("put-review", review)
    })];

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let isbn = crate::params::path_isbn(&req)?;
    let user = api::path_id(&req, "username")?;
    reviews::delete_review(&deps.table, &user, &isbn).await?;
    api::no_content()
}

#[cfg(test)]
mod tests {
    use super::*;
    use store::Table;

    use crate::data::{NewReview, put_review};
    use crate::fixtures;
    use keys::indexes::IndexDesign;
    use keys::{Id, reviews::Isbn};
    use model::Item;
    use serde_json::Value;
    use testkit::{Harness, all_items};
    const ISBN: &str = "9780261102354";

    async fn delete(table: &Table, isbn: &str, user: &str) -> (u16, Value) {
        let h = Harness::new(&FUNCTION, handle, table.clone());
        h.delete(&h.path(&[isbn, user])).await
    }

    fn id(s: &str) -> Id {
        Id::parse("u", s).unwrap()
    }

    /// The Fellowship, frodo and sam, a review by each.
    async fn seeded() -> Table {
        let table = testkit::table().await;
        fixtures::book(&table, ISBN).await;
        for (i, u) in ["frodo", "sam"].into_iter().enumerate() {
            fixtures::user(&table, u).await;
            fixtures::review(&table, ISBN, u, 1_000_000_000_000 + i as u64, 8, "Good.").await;
        }
        table.meter().reset();
        table
    }

    fn types(items: &[Item]) -> Vec<(String, String)> {
        let reviews = items.iter().filter(|i| {
            matches!(
                i["Type"].as_s().unwrap().as_str(),
                "Review" | "ReviewMarker"
            )
        });
        testkit::attribute_pairs(reviews, "Type", "PK")
    }

    #[tokio::test]
    async fn removes_the_review_and_its_marker_only_and_is_idempotent() {
        let table = seeded().await;
        let (s, body) = delete(&table, "0-261-10235-4", "frodo").await;
        assert_eq!((s, body), (204, Value::Null));
        let requests = table.meter().requests();
        let ops = table.meter().operations();
        assert_eq!(ops, ["GetItem", "TransactWriteItems"]);
        assert_eq!(requests[1].iam_actions(), ["dynamodb:DeleteItem"]);
        eprintln!("R3 delete: {requests:?}");
        let items = all_items(&table).await;
        assert_eq!(
            types(&items),
            [
                ("Review".to_owned(), format!("BOOK#{ISBN}")),
                ("ReviewMarker".to_owned(), "USER#sam".to_owned()),
            ],
            "sam's review and marker remain"
        );
        assert!(
            items
                .iter()
                .any(|i| i["SK"].as_s().unwrap().ends_with("#USER#sam"))
        );

        // Absent: 204 again, one GetItem and nothing else.
        table.meter().reset();
        assert_eq!(delete(&table, ISBN, "frodo").await.0, 204);
        let ops = table.meter().operations();
        assert_eq!(ops, ["GetItem"]);
        // Unknown users and books are absent reviews too.
        assert_eq!(delete(&table, ISBN, "nobody").await.0, 204);
        assert_eq!(delete(&table, "0261102362", "sam").await.0, 204);
        assert_eq!(all_items(&table).await, items);
    }

    #[tokio::test]
    async fn parallel_deletes_and_a_rewrite_leave_no_orphan() {
        let table = seeded().await;
        let isbn = Isbn::parse(ISBN).unwrap();
        let deletes = (0..10).map(|_| delete(&table, ISBN, "frodo"));
        let statuses = futures::future::join_all(deletes).await;
        assert!(statuses.iter().all(|(s, _)| *s == 204));
        let items = all_items(&table).await;
        assert_eq!(types(&items).len(), 2, "sam's review and marker only");

        // Deletes racing with writes: whatever wins, reviews and markers still agree.
        let writes = (0..5).map(|i| {
            let (table, isbn) = (&table, isbn.clone());
            async move {
                put_review(
                    table,
                    IndexDesign::default(),
                    &NewReview {
                        isbn,
                        user: id("frodo"),
                        grade: 5,
                        text: format!("again {i}"),
                        at: keys::Timestamp::now(),
                    },
                )
                .await
                .map(|_| ())
            }
        });
        let deletes = (0..5).map(|_| {
            let (table, isbn) = (&table, isbn.clone());
            async move {
                reviews::delete_review(table, &id("frodo"), &isbn)
                    .await
                    .map(|_| ())
            }
        });
        let (w, d) = futures::join!(
            futures::future::join_all(writes),
            futures::future::join_all(deletes)
        );
        assert!(w.iter().chain(&d).all(Result::is_ok));
        let items = all_items(&table).await;
        let reviews_of_frodo = items
            .iter()
            .filter(|i| i["SK"].as_s().unwrap().ends_with("#USER#frodo"))
            .count();
        let marker = items.iter().find(|i| {
            i["PK"].as_s().unwrap() == "USER#frodo"
                && i["SK"].as_s().unwrap().starts_with("REVIEWOF#")
        });
        match marker {
            None => assert_eq!(reviews_of_frodo, 0),
            Some(m) => {
                assert_eq!(reviews_of_frodo, 1);
                assert!(items.iter().any(|i| i["SK"] == m["ReviewSk"]));
            }
        }
    }

    #[tokio::test]
    async fn bad_paths_are_400_and_send_nothing() {
        let table = seeded().await;
        let before = all_items(&table).await;
        let long = "u".repeat(65);
        for (isbn, user) in [
            ("9780261102355", "frodo"),
            ("0261102355", "frodo"),
            ("not-an-isbn", "frodo"),
            ("", "frodo"),
            (ISBN, "a#b"),
            (ISBN, "USER#sam"),
            (ISBN, &long),
            (ISBN, ""),
        ] {
            let (s, b) = delete(&table, isbn, user).await;
            assert_eq!(
                (s, b["code"].as_str().unwrap_or_default()),
                (400, "invalid_parameter"),
                "{isbn} {user}"
            );
        }
        assert!(table.meter().requests().is_empty());
        assert_eq!(all_items(&table).await, before);
    }
}
