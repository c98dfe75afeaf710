//! Review records and the requests behind R1–R4 (seed 002: books, users, reviews newest first).
//!
//! Record types hold the non-key attributes of an item (PascalCase, like the seed's items); keys
//! and `Type` come from the `keys` crate when an item is written and are ignored when it is read.
//! The derived attributes (`RatingCount`, `RatingSum` on a book, `ReviewCount` on a user) are
//! maintained by the stream handlers; this module only reads them (0 until they are written) and
//! never overwrites them.
//!
//! One review per user per book: a review's sort key carries its date, so the key alone cannot
//! say "this user reviewed this book already". A marker item (`USER#<username>`,
//! `REVIEWOF#<isbn>`) holds the sort key of the user's current review of the book, and every write
//! of a review changes the marker in the same transaction, conditioned on what was read: two
//! writers that read the same marker cannot both commit.

use std::time::Duration;

use aws_sdk_dynamodb::types::{
    ConditionCheck, Delete, Put, ReturnConsumedCapacity, ReturnValue, TransactWriteItem,
};
use keys::{
    Date, Id, attr, index,
    reviews::{self as k, Isbn, types},
};
use serde::{Deserialize, Serialize};

use crate::{
    StoreError, Table,
    error::from_sdk,
    item::{
        Item, created_by_this_call, get_s, item_of, key_map, n, record_of, s, type_of, with_index,
    },
    txn,
};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Book {
    pub isbn: String,
    pub title: String,
    pub author: String,
    pub publication_year: i32,
    /// Derived by the stream handlers: how many reviews the book has.
    #[serde(default)]
    pub rating_count: u64,
    /// Derived: the sum of their grades.
    #[serde(default)]
    pub rating_sum: u64,
}

impl Book {
    /// The average grade rounded to 2 decimals; `None` without reviews.
    pub fn average_rating(&self) -> Option<f64> {
        if self.rating_count == 0 {
            return None;
        }
        // Integer rounding (half up) of sum / count to hundredths: no binary-fraction surprises.
        let (sum, count) = (u128::from(self.rating_sum), u128::from(self.rating_count));
        let hundredths = (sum * 200 + count) / (2 * count);
        Some(hundredths as f64 / 100.0)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct User {
    pub username: String,
    /// `YYYY-MM-DD`.
    pub membership_date: String,
    /// Derived by the stream handlers: how many reviews the user wrote.
    #[serde(default)]
    pub review_count: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Review {
    pub isbn: String,
    pub username: String,
    /// 1..=10.
    pub grade: u8,
    pub review_text: String,
    /// The ISO-8601 timestamp of the review's sort key.
    pub review_date: String,
}

/// The marker of a user's one review of a book.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ReviewMarker {
    /// The sort key of the current review in the book's collection.
    review_sk: String,
}

const REVIEW_SK: &str = "ReviewSk";

fn corrupt(e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(e.to_string())
}

// ---------------------------------------------------------------------------------------------
// R4: create or update a book, a user

/// Creates the book or updates its title, author and year, keeping the derived rating
/// attributes. Returns the book as stored and whether this call created it.
pub async fn put_book(
    table: &Table,
    isbn: &Isbn,
    title: &str,
    author: &str,
    publication_year: i32,
) -> Result<(Book, bool), StoreError> {
    let out = table
        .client()
        .update_item()
        .table_name(table.name())
        .set_key(Some(key_map(&k::book(isbn))))
        .update_expression(
            "SET #type = :type, Isbn = :isbn, Title = :title, Author = :author, \
             PublicationYear = :year ADD Version :one",
        )
        .expression_attribute_names("#type", attr::TYPE)
        .expression_attribute_values(":type", s(types::BOOK))
        .expression_attribute_values(":isbn", s(isbn.as_str()))
        .expression_attribute_values(":title", s(title))
        .expression_attribute_values(":author", s(author))
        .expression_attribute_values(":year", n(publication_year))
        .expression_attribute_values(":one", n(1))
        .return_values(ReturnValue::AllNew)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .map_err(from_sdk)?;
    table
        .meter()
        .record("UpdateItem", out.consumed_capacity.as_slice(), 1);
    let item = out
        .attributes
        .ok_or_else(|| corrupt("UpdateItem returned no attributes"))?;
    let created = created_by_this_call(&item);
    Ok((record_of(item)?, created))
}

/// Creates the user or updates it, keeping the derived review count. `membership_date`, when
/// given, is set; when not, a new user's is `today` and an existing user's is kept.
pub async fn put_user(
    table: &Table,
    user: &Id,
    membership_date: Option<Date>,
    today: Date,
) -> Result<(User, bool), StoreError> {
    let index = k::user_index(user);
    let (date_expr, date) = match membership_date {
        Some(d) => (":date", d),
        None => ("if_not_exists(MembershipDate, :date)", today),
    };
    let out = table
        .client()
        .update_item()
        .table_name(table.name())
        .set_key(Some(key_map(&k::user(user))))
        .update_expression(format!(
            "SET #type = :type, Username = :username, MembershipDate = {date_expr}, \
             GSI1PK = :gsi1pk, GSI1SK = :gsi1sk ADD Version :one"
        ))
        .expression_attribute_names("#type", attr::TYPE)
        .expression_attribute_values(":type", s(types::USER))
        .expression_attribute_values(":username", s(user.as_str()))
        .expression_attribute_values(":date", s(date.iso()))
        .expression_attribute_values(":gsi1pk", s(index.pk))
        .expression_attribute_values(":gsi1sk", s(index.sk))
        .expression_attribute_values(":one", n(1))
        .return_values(ReturnValue::AllNew)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .map_err(from_sdk)?;
    table
        .meter()
        .record("UpdateItem", out.consumed_capacity.as_slice(), 1);
    let item = out
        .attributes
        .ok_or_else(|| corrupt("UpdateItem returned no attributes"))?;
    let created = created_by_this_call(&item);
    Ok((record_of(item)?, created))
}

// ---------------------------------------------------------------------------------------------
// R3: write a review, at most one per user per book

/// A review as the handler validated it.
#[derive(Debug, Clone)]
pub struct NewReview {
    pub isbn: Isbn,
    pub user: Id,
    pub grade: u8,
    pub text: String,
    /// When it is written (ms since the Unix epoch): the review's date and sort key.
    pub at_ms: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PutReviewOutcome {
    /// The user's first review of the book.
    Created(Review),
    /// The user's previous review was replaced (and re-dated: it moves to the top of both lists).
    Updated(Review),
    BookNotFound,
    UserNotFound,
}

/// How many times a review write is tried when another writer changed the marker between our
/// read and our transaction. Each lost race means another writer committed, so N writers racing
/// on one user's review of one book all finish within N attempts.
pub const REVIEW_ATTEMPTS: u32 = 32;

/// A short pause after losing a race to another writer (who made progress): full jitter, up to
/// 2 ms per attempt, at most 20 ms.
fn contention_pause(attempt: u32) -> Duration {
    let cap = u64::from((2 * attempt).clamp(1, 20));
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    Duration::from_micros(u64::from(nanos) % (cap * 1000) + 100)
}

/// The sort key of the user's current review of the book, from its marker: one strongly
/// consistent GetItem (a marker is a few dozen bytes: 1 read unit).
pub async fn review_marker(
    table: &Table,
    user: &Id,
    isbn: &Isbn,
) -> Result<Option<String>, StoreError> {
    let item = table
        .get_item(&k::review_marker(user, isbn), true, Some(REVIEW_SK))
        .await?;
    item.map(|item| {
        get_s(&item, REVIEW_SK)
            .map(str::to_owned)
            .ok_or_else(|| corrupt(format!("review marker of {user} on {isbn} has no ReviewSk")))
    })
    .transpose()
}

fn condition_exists(table: &Table, key: &keys::Key) -> Result<TransactWriteItem, StoreError> {
    Ok(TransactWriteItem::builder()
        .condition_check(
            ConditionCheck::builder()
                .table_name(table.name())
                .set_key(Some(key_map(key)))
                .condition_expression("attribute_exists(PK)")
                .build()
                .map_err(corrupt)?,
        )
        .build())
}

/// Writes the user's review of the book: creates it, or replaces the previous one (re-dated).
///
/// Reads the marker, then ONE transaction:
/// 0. ConditionCheck: the book exists;
/// 1. ConditionCheck: the user exists;
/// 2. Put the marker with `ReviewSk = <new sk>`, on condition that it is still absent (create) or
///    still holds the old sort key (update);
/// 3. Delete the old review (update only);
/// 4. Put the new review.
///
/// A cancellation on the marker's condition means another writer committed between our read and
/// our transaction: read again and retry (up to [`REVIEW_ATTEMPTS`] in all, then
/// [`StoreError::Throttled`]). The new review is dated `at_ms`, or just after the review it
/// replaces if that one is as new: an update always sorts above what it replaces.
pub async fn put_review(table: &Table, review: &NewReview) -> Result<PutReviewOutcome, StoreError> {
    let book_key = k::book(&review.isbn);
    let marker_key = k::review_marker(&review.user, &review.isbn);
    for attempt in 1..=REVIEW_ATTEMPTS {
        let old_sk = review_marker(table, &review.user, &review.isbn).await?;
        let at_ms = match &old_sk {
            Some(sk) => review.at_ms.max(k::parse_review_sk(sk)?.0 + 1),
            None => review.at_ms,
        };
        let key = k::review(&review.isbn, &review.user, at_ms)?;
        let record = Review {
            isbn: review.isbn.to_string(),
            username: review.user.to_string(),
            grade: review.grade,
            review_text: review.text.clone(),
            review_date: keys::iso_timestamp(at_ms)
                .ok_or(keys::KeyError::TimestampOutOfRange(at_ms))?,
        };

        let mut marker = Put::builder()
            .table_name(table.name())
            .set_item(Some(item_of(
                &marker_key,
                types::REVIEW_MARKER,
                &ReviewMarker {
                    review_sk: key.sk.clone(),
                },
            )?));
        marker = match &old_sk {
            None => marker.condition_expression("attribute_not_exists(PK)"),
            Some(old) => marker
                .condition_expression("ReviewSk = :old")
                .expression_attribute_values(":old", s(old)),
        };
        let mut actions = vec![
            condition_exists(table, &book_key)?,
            condition_exists(table, &k::user(&review.user))?,
            TransactWriteItem::builder()
                .put(marker.build().map_err(corrupt)?)
                .build(),
        ];
        if let Some(old) = &old_sk {
            actions.push(
                TransactWriteItem::builder()
                    .delete(
                        Delete::builder()
                            .table_name(table.name())
                            .set_key(Some(key_map(&keys::Key::new(book_key.pk.clone(), old))))
                            .build()
                            .map_err(corrupt)?,
                    )
                    .build(),
            );
        }
        actions.push(
            TransactWriteItem::builder()
                .put(
                    Put::builder()
                        .table_name(table.name())
                        .set_item(Some(with_index(
                            item_of(&key, types::REVIEW, &record)?,
                            attr::GSI1PK,
                            attr::GSI1SK,
                            &k::review_index(&review.isbn, &review.user, at_ms)?,
                        )))
                        .build()
                        .map_err(corrupt)?,
                )
                .build(),
        );
        let written = actions.len() - 2;

        match txn::transact(table, actions, written).await {
            Ok(()) if old_sk.is_none() => return Ok(PutReviewOutcome::Created(record)),
            Ok(()) => return Ok(PutReviewOutcome::Updated(record)),
            Err(e) if e.cancellation_reason(0) == Some("ConditionalCheckFailed") => {
                return Ok(PutReviewOutcome::BookNotFound);
            }
            Err(e) if e.cancellation_reason(1) == Some("ConditionalCheckFailed") => {
                return Ok(PutReviewOutcome::UserNotFound);
            }
            Err(e) if e.cancellation_reason(2) == Some("ConditionalCheckFailed") => {
                // Another writer changed the marker since we read it: it won this round.
                tokio::time::sleep(contention_pause(attempt)).await;
            }
            Err(e) => return Err(e),
        }
    }
    Err(StoreError::Throttled(format!(
        "review of {} by {} still contended after {REVIEW_ATTEMPTS} attempts",
        review.isbn, review.user
    )))
}

/// Deletes the user's review of the book, if there is one: reads the marker, then one
/// transaction deleting the marker (on condition that it still names that review) and the
/// review. Returns whether a review was deleted.
pub async fn delete_review(table: &Table, user: &Id, isbn: &Isbn) -> Result<bool, StoreError> {
    let marker_key = k::review_marker(user, isbn);
    for attempt in 1..=REVIEW_ATTEMPTS {
        let Some(sk) = review_marker(table, user, isbn).await? else {
            return Ok(false);
        };
        let actions = vec![
            TransactWriteItem::builder()
                .delete(
                    Delete::builder()
                        .table_name(table.name())
                        .set_key(Some(key_map(&marker_key)))
                        .condition_expression("ReviewSk = :sk")
                        .expression_attribute_values(":sk", s(&sk))
                        .build()
                        .map_err(corrupt)?,
                )
                .build(),
            TransactWriteItem::builder()
                .delete(
                    Delete::builder()
                        .table_name(table.name())
                        .set_key(Some(key_map(&keys::Key::new(k::book_pk(isbn), sk))))
                        .build()
                        .map_err(corrupt)?,
                )
                .build(),
        ];
        match txn::transact(table, actions, 2).await {
            Ok(()) => return Ok(true),
            Err(e) if e.cancellation_reason(0) == Some("ConditionalCheckFailed") => {
                tokio::time::sleep(contention_pause(attempt)).await;
            }
            Err(e) => return Err(e),
        }
    }
    Err(StoreError::Throttled(format!(
        "deleting the review of {isbn} by {user} still contended after {REVIEW_ATTEMPTS} attempts"
    )))
}

// ---------------------------------------------------------------------------------------------
// R1, R2: a book (a user) and its reviews, newest first, a page at a time

/// A page of R1: the book on the first page only, then reviews newest first.
#[derive(Debug, Clone, PartialEq)]
pub struct BookPage {
    pub book: Option<Book>,
    pub reviews: Vec<Review>,
    /// DynamoDB's `LastEvaluatedKey`: more reviews may follow.
    pub last_key: Option<Item>,
}

/// A page of R2: the user on the first page only, then their reviews newest first.
#[derive(Debug, Clone, PartialEq)]
pub struct UserPage {
    pub user: Option<User>,
    pub reviews: Vec<Review>,
    pub last_key: Option<Item>,
}

/// Splits a page read backwards into its parent record (first item of a first page) and reviews.
fn split_page<P: serde::de::DeserializeOwned>(
    items: Vec<Item>,
    parent_type: &str,
    first_page: bool,
) -> Result<(Option<P>, Vec<Review>), StoreError> {
    let mut parent = None;
    let mut reviews = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        match type_of(&item) {
            Some(t) if t == parent_type && i == 0 && first_page => parent = Some(record_of(item)?),
            Some(types::REVIEW) => reviews.push(record_of(item)?),
            other => return Err(corrupt(format!("unexpected {other:?} in a review page"))),
        }
    }
    Ok((parent, reviews))
}

/// R1: one page of a book's collection, read backwards from the book's own record.
///
/// First page (`start` is `None`): `PK = BOOK#<isbn> AND SK <= BOOK#<isbn>`, `Limit = limit + 1`:
/// the book and its `limit` newest reviews, in ONE query. `None` when there is no such book.
/// Later pages: from the cursor's key, `Limit = limit`, reviews only.
pub async fn book_page(
    table: &Table,
    isbn: &Isbn,
    limit: u32,
    start: Option<Item>,
) -> Result<Option<BookPage>, StoreError> {
    let first_page = start.is_none();
    let pk = k::book_pk(isbn);
    let out = table
        .client()
        .query()
        .table_name(table.name())
        .key_condition_expression("PK = :pk AND SK <= :book")
        .expression_attribute_values(":pk", s(&pk))
        .expression_attribute_values(":book", s(&pk))
        .scan_index_forward(false)
        .limit(limit as i32 + i32::from(first_page))
        .set_exclusive_start_key(start)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .map_err(from_sdk)?;
    let items = out.items.unwrap_or_default();
    table
        .meter()
        .record("Query", out.consumed_capacity.as_slice(), items.len());
    let (book, reviews) = split_page::<Book>(items, types::BOOK, first_page)?;
    if first_page && book.is_none() {
        // Reviews exist only with their book (R3 checks it in the same transaction).
        return Ok(None);
    }
    Ok(Some(BookPage {
        book,
        reviews,
        last_key: out.last_evaluated_key,
    }))
}

/// R2: one page of a user's GSI1 partition, read backwards from the user's own record: the same
/// shape as [`book_page`], on the index (`GSI1PK = USER#<username> AND GSI1SK <= USER#<username>`).
/// Index reads are eventually consistent: a review written a moment ago may not be there yet.
pub async fn user_page(
    table: &Table,
    user: &Id,
    limit: u32,
    start: Option<Item>,
) -> Result<Option<UserPage>, StoreError> {
    let first_page = start.is_none();
    let key = k::user_index(user);
    let out = table
        .client()
        .query()
        .table_name(table.name())
        .index_name(index::GSI1)
        .key_condition_expression("GSI1PK = :pk AND GSI1SK <= :user")
        .expression_attribute_values(":pk", s(&key.pk))
        .expression_attribute_values(":user", s(&key.sk))
        .scan_index_forward(false)
        .limit(limit as i32 + i32::from(first_page))
        .set_exclusive_start_key(start)
        // INDEXES: the bill split between the table (nothing) and GSI1.
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .send()
        .await
        .map_err(from_sdk)?;
    let items = out.items.unwrap_or_default();
    table
        .meter()
        .record("Query", out.consumed_capacity.as_slice(), items.len());
    let (user, reviews) = split_page::<User>(items, types::USER, first_page)?;
    if first_page && user.is_none() {
        return Ok(None);
    }
    Ok(Some(UserPage {
        user,
        reviews,
        last_key: out.last_evaluated_key,
    }))
}

#[cfg(test)]
mod tests {
    //! The marker race needs two writers interleaving between a read and a transaction; the mocks
    //! (aws-smithy-mocks) script that interleaving exactly. The real thing, against DynamoDB
    //! Local, is in the put-review and delete-review tests.
    use super::*;
    use aws_sdk_dynamodb::{
        Client,
        operation::{get_item::GetItemOutput, transact_write_items::TransactWriteItemsOutput},
    };
    use aws_smithy_mocks::{RuleMode, mock, mock_client};

    use crate::txn::cancelled;

    fn new_review() -> NewReview {
        NewReview {
            isbn: Isbn::parse("9780261102354").unwrap(),
            user: Id::parse("u", "frodo").unwrap(),
            grade: 9,
            text: "Must read.".into(),
            at_ms: 996_979_560_000,
        }
    }

    const WINNER_SK: &str = "2001-08-05T02:46:00.000Z#USER#frodo";

    #[tokio::test]
    async fn a_writer_that_lost_the_marker_race_reads_again_and_replaces_the_winner() {
        // Our first read finds no marker; another writer creates the review before our
        // transaction, whose marker condition then fails; our second read finds the winner's.
        let reads = mock!(Client::get_item)
            .sequence()
            .output(|| GetItemOutput::builder().build())
            .output(|| {
                GetItemOutput::builder()
                    .set_item(Some(Item::from([(REVIEW_SK.to_owned(), s(WINNER_SK))])))
                    .build()
            })
            .build();
        let writes = mock!(Client::transact_write_items)
            .sequence()
            .error(|| cancelled(&["None", "None", "ConditionalCheckFailed", "None"]))
            .output(|| TransactWriteItemsOutput::builder().build())
            .build();
        let table = Table::new(
            mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&reads, &writes]),
            "t",
        );
        let outcome = put_review(&table, &new_review()).await.unwrap();
        let PutReviewOutcome::Updated(review) = outcome else {
            panic!("{outcome:?}");
        };
        // Same millisecond as the winner: dated 1 ms later, so it replaces it and sorts above it.
        assert_eq!(review.review_date, "2001-08-05T02:46:00.001Z");
        assert_eq!((reads.num_calls(), writes.num_calls()), (2, 2));
        let ops: Vec<_> = table
            .meter()
            .requests()
            .iter()
            .map(|r| r.operation)
            .collect();
        assert_eq!(
            ops,
            [
                "GetItem",
                "TransactWriteItems",
                "GetItem",
                "TransactWriteItems"
            ]
        );
    }

    #[tokio::test]
    async fn missing_parents_are_answers_not_retries_and_endless_races_are_busy() {
        for (codes, expected) in [
            (
                ["ConditionalCheckFailed", "None", "None", "None"],
                PutReviewOutcome::BookNotFound,
            ),
            (
                ["None", "ConditionalCheckFailed", "None", "None"],
                PutReviewOutcome::UserNotFound,
            ),
            (
                [
                    "ConditionalCheckFailed",
                    "ConditionalCheckFailed",
                    "None",
                    "None",
                ],
                PutReviewOutcome::BookNotFound,
            ),
        ] {
            let reads = mock!(Client::get_item).then_output(|| GetItemOutput::builder().build());
            let writes = mock!(Client::transact_write_items).then_error(move || cancelled(&codes));
            let table = Table::new(
                mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&reads, &writes]),
                "t",
            );
            assert_eq!(put_review(&table, &new_review()).await.unwrap(), expected);
            assert_eq!(writes.num_calls(), 1);
        }

        let reads = mock!(Client::get_item).then_output(|| GetItemOutput::builder().build());
        let writes = mock!(Client::transact_write_items)
            .then_error(|| cancelled(&["None", "None", "ConditionalCheckFailed", "None"]));
        let table = Table::new(
            mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&reads, &writes]),
            "t",
        );
        assert!(matches!(
            put_review(&table, &new_review()).await,
            Err(StoreError::Throttled(_))
        ));
        assert_eq!(writes.num_calls(), REVIEW_ATTEMPTS as usize);
    }

    fn book(count: u64, sum: u64) -> Book {
        Book {
            isbn: "9780261102354".into(),
            title: "t".into(),
            author: "a".into(),
            publication_year: 1954,
            rating_count: count,
            rating_sum: sum,
        }
    }

    #[test]
    fn average_is_rounded_to_hundredths_and_absent_without_reviews() {
        assert_eq!(book(0, 0).average_rating(), None);
        assert_eq!(book(1, 10).average_rating(), Some(10.0));
        assert_eq!(book(3, 26).average_rating(), Some(8.67));
        assert_eq!(book(3, 25).average_rating(), Some(8.33));
        // 1/8 = 0.125 rounds half up.
        assert_eq!(book(8, 1).average_rating(), Some(0.13));
        assert_eq!(book(u64::MAX, u64::MAX).average_rating(), Some(1.0));
    }

    #[test]
    fn records_use_the_seed_attribute_names() {
        let item: Item = serde_dynamo::to_item(Review {
            isbn: "9780261102354".into(),
            username: "frodo".into(),
            grade: 10,
            review_text: "Must read.".into(),
            review_date: "2001-08-05T02:46:00.000Z".into(),
        })
        .unwrap();
        let mut names: Vec<_> = item.keys().cloned().collect();
        names.sort();
        assert_eq!(
            names,
            ["Grade", "Isbn", "ReviewDate", "ReviewText", "Username"]
        );
        // Derived attributes default to 0 until the stream handlers write them.
        let b: Book = serde_dynamo::from_item(Item::from([
            ("Isbn".to_owned(), s("9780261102354")),
            ("Title".to_owned(), s("t")),
            ("Author".to_owned(), s("a")),
            ("PublicationYear".to_owned(), n(1954)),
        ]))
        .unwrap();
        assert_eq!((b.rating_count, b.rating_sum), (0, 0));
    }
}
