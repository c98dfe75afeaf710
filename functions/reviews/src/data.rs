//! The reviews context's reads and writes of the table: review writes (R3, R4), shared by its
//! functions, the seed loader and the tests (Pernin's introduction: books, users, reviews newest
//! first). The derived attributes (`RatingCount`, `RatingSum` on a book, `ReviewCount` on a user)
//! are maintained by the stream handlers; these writes never overwrite them. R1 is declared in the
//! function that serves it; R2, which each index design reads its own way, in [`user_reviews`].
//!
//! One review per user per book: a review's sort key carries its date, so the key alone cannot
//! say "this user reviewed this book already". A marker item (`USER#<username>`,
//! `REVIEWOF#<isbn>`) holds the sort key of the user's current review of the book, and every write
//! of a review changes the marker in the same transaction, conditioned on what was read: two
//! writers that read the same marker cannot both commit.
//!
//! `data`, not `store`: `store` is the mechanism crate this module is written with (`Table`,
//! transactions, paging); `data` is what this context keeps in the one table. Every context names
//! it so.

use keys::{
    Date, Id, Timestamp,
    indexes::IndexDesign,
    reviews::{self as k, Isbn},
};
use model::{
    n,
    reviews::{Book, Review, ReviewMarker, User},
    s,
};

use store::{Condition, Read, StoreError, Table, Update, retry};

pub mod user_reviews;

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
    let update = Update::new()
        .set(Book::ISBN, s(isbn.as_str()))
        .set(Book::TITLE, s(title))
        .set(Book::AUTHOR, s(author))
        .set(Book::PUBLICATION_YEAR, n(publication_year));
    table.upsert(&k::book(isbn), update).await
}

/// Creates the user or updates it, keeping the derived review count. `membership_date`, when
/// given, is set; when not, a new user's is `today` and an existing user's is kept. With GSI1
/// overloaded the user's record carries its GSI1 key: R2 reads it there with the user's reviews;
/// with dedicated indexes it carries none (R2 gets the user by its key).
pub async fn put_user(
    table: &Table,
    design: IndexDesign,
    user: &Id,
    membership_date: Option<Date>,
    today: Date,
) -> Result<(User, bool), StoreError> {
    let update = Update::new().set(User::USERNAME, s(user.as_str()));
    let update = match design.writes_gsi1() {
        true => update.set_key(&k::user_index(user)),
        // A record written under the other design loses its GSI1 copy here.
        false => update.remove(keys::attr::GSI1PK).remove(keys::attr::GSI1SK),
    };
    let update = match membership_date {
        Some(d) => update.set(User::MEMBERSHIP_DATE, s(d.iso())),
        None => update.set_if_absent(User::MEMBERSHIP_DATE, s(today.iso())),
    };
    table.upsert(&k::user(user), update).await
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
    /// When it is written: the review's date and sort key.
    pub at: Timestamp,
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

/// The user's current review of the book, from its marker: one strongly consistent GetItem (a
/// marker is a few dozen bytes: 1 read unit). Its key and date.
pub async fn current_review(
    table: &Table,
    user: &Id,
    isbn: &Isbn,
) -> Result<Option<(keys::PrimaryKey, Timestamp)>, StoreError> {
    let Some(marker) = table
        .get::<ReviewMarker>(&k::review_marker(user, isbn), Read::Strong)
        .await?
    else {
        return Ok(None);
    };
    Ok(Some(k::review_of_marker(isbn, user, &marker.review_sk)?))
}

/// Writes the user's review of the book: creates it, or replaces the previous one (re-dated).
///
/// Reads the marker, then ONE transaction: the book exists; the user exists; the marker, put with
/// the new review's sort key, on condition that it is still absent (create) or still names the
/// review we read (update); the old review deleted (update only); the new review put.
///
/// A cancellation on the marker's condition means another writer committed between our read and
/// our transaction: read again and retry (up to [`REVIEW_ATTEMPTS`] in all, then
/// [`StoreError::Throttled`]). The new review is dated `at`, or just after the review it
/// replaces if that one is as new: an update always sorts above what it replaces.
pub async fn put_review(
    table: &Table,
    design: IndexDesign,
    new: &NewReview,
) -> Result<PutReviewOutcome, StoreError> {
    for attempt in 1..=REVIEW_ATTEMPTS {
        let old = current_review(table, &new.user, &new.isbn).await?;
        let at = match &old {
            Some((_, old_at)) => new.at.max(old_at.next()),
            None => new.at,
        };
        let review = Review {
            isbn: new.isbn.clone(),
            username: new.user.clone(),
            grade: new.grade,
            review_text: new.text.clone(),
            review_date: at,
        };
        let marker = ReviewMarker {
            username: new.user.clone(),
            isbn: new.isbn.clone(),
            review_sk: model::Entity::key(&review).sk().to_owned(),
        };
        let mut tx = table.transaction();
        let book = tx.check(&k::book(&new.isbn), Condition::Exists)?;
        let user = tx.check(&k::user(&new.user), Condition::Exists)?;
        let unchanged = match &old {
            None => Condition::Absent,
            Some((old_key, _)) => Condition::Equals(ReviewMarker::REVIEW_SK, s(old_key.sk())),
        };
        let marker_part = tx.put(&marker, Some(unchanged))?;
        if let Some((old_key, _)) = &old {
            tx.delete(old_key, None)?;
        }
        // Without its GSI1 key where R2 reads `ReviewsByUser` (a full copy there would cost a
        // write unit per KB).
        tx.put_item(
            model::to_item_with_gsi1(&review, design.writes_gsi1())?,
            None,
        )?;

        match tx.send().await {
            Ok(()) if old.is_none() => return Ok(PutReviewOutcome::Created(review)),
            Ok(()) => return Ok(PutReviewOutcome::Updated(review)),
            Err(e) if book.failed(&e) => return Ok(PutReviewOutcome::BookNotFound),
            Err(e) if user.failed(&e) => return Ok(PutReviewOutcome::UserNotFound),
            // Another writer changed the marker since we read it: it won this round.
            Err(e) if marker_part.failed(&e) => retry::sleep(attempt).await,
            Err(e) => return Err(e),
        }
    }
    Err(StoreError::Throttled(format!(
        "review of {} by {} still contended after {REVIEW_ATTEMPTS} attempts",
        new.isbn, new.user
    )))
}

/// Deletes the user's review of the book, if there is one: reads the marker, then one
/// transaction deleting the marker (on condition that it still names that review) and the
/// review. Returns whether a review was deleted.
pub async fn delete_review(table: &Table, user: &Id, isbn: &Isbn) -> Result<bool, StoreError> {
    for attempt in 1..=REVIEW_ATTEMPTS {
        let Some((review, _)) = current_review(table, user, isbn).await? else {
            return Ok(false);
        };
        let mut tx = table.transaction();
        let marker = tx.delete(
            &k::review_marker(user, isbn),
            Some(Condition::Equals(ReviewMarker::REVIEW_SK, s(review.sk()))),
        )?;
        tx.delete(&review, None)?;
        match tx.send().await {
            Ok(()) => return Ok(true),
            Err(e) if marker.failed(&e) => retry::sleep(attempt).await,
            Err(e) => return Err(e),
        }
    }
    Err(StoreError::Throttled(format!(
        "deleting the review of {isbn} by {user} still contended after {REVIEW_ATTEMPTS} attempts"
    )))
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

    use testkit::cancelled;

    fn new_review() -> NewReview {
        NewReview {
            isbn: Isbn::parse("9780261102354").unwrap(),
            user: Id::parse("u", "frodo").unwrap(),
            grade: 9,
            text: "Must read.".into(),
            at: Timestamp::from_ms(996_979_560_000).unwrap(),
        }
    }

    fn winners_marker() -> model::Item {
        model::to_item(&ReviewMarker {
            username: Id::parse("u", "frodo").unwrap(),
            isbn: Isbn::parse("9780261102354").unwrap(),
            review_sk: WINNER_SK.into(),
        })
        .unwrap()
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
                    .set_item(Some(winners_marker()))
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
        )
        .recording();
        let outcome = put_review(&table, IndexDesign::Overloaded, &new_review())
            .await
            .unwrap();
        let PutReviewOutcome::Updated(review) = outcome else {
            panic!("{outcome:?}");
        };
        // Same millisecond as the winner: dated 1 ms later, so it replaces it and sorts above it.
        assert_eq!(review.review_date.to_string(), "2001-08-05T02:46:00.001Z");
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
            assert_eq!(
                put_review(&table, IndexDesign::Overloaded, &new_review())
                    .await
                    .unwrap(),
                expected
            );
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
            put_review(&table, IndexDesign::Overloaded, &new_review()).await,
            Err(StoreError::Throttled(_))
        ));
        assert_eq!(writes.num_calls(), REVIEW_ATTEMPTS as usize);
    }
}
