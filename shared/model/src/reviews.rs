//! Review entities (Pernin's introduction): books, users, reviews newest first, and the marker
//! that keeps one review per user per book. Their keys are in `keys::reviews`.

use keys::{
    Date, Gsi1Key, Id, PrimaryKey, Timestamp,
    reviews::{self as k, Isbn, types},
};

use crate::{Entity, record};

record! {
    pub struct Book {
        isbn: Isbn => ISBN = "Isbn",
        title: String => TITLE = "Title",
        author: String => AUTHOR = "Author",
        publication_year: i32 => PUBLICATION_YEAR = "PublicationYear",
        /// Derived by the stream handlers: how many reviews the book has.
        #[serde(default)]
        rating_count: crate::Derived => RATING_COUNT = "RatingCount",
        /// Derived: the sum of their grades.
        #[serde(default)]
        rating_sum: crate::Derived => RATING_SUM = "RatingSum",
    }
}

impl Book {
    /// The average grade rounded to 2 decimals; `None` without reviews, or when the derived count
    /// or sum is not a sane value (drift: see [`crate::Derived`]).
    pub fn average_rating(&self) -> Option<f64> {
        let (sum, count) = (self.rating_sum.value()?, self.rating_count.value()?);
        if count == 0 {
            return None;
        }
        // Integer rounding (half up) of sum / count to hundredths: no binary-fraction surprises.
        let (sum, count) = (i128::from(sum), i128::from(count));
        let hundredths = (sum * 200 + count) / (2 * count);
        Some(hundredths as f64 / 100.0)
    }
}

impl Entity for Book {
    const TYPE: &'static str = types::BOOK;
    fn key(&self) -> PrimaryKey {
        k::book(&self.isbn)
    }
}

record! {
    pub struct User {
        username: Id => USERNAME = "Username",
        membership_date: Date => MEMBERSHIP_DATE = "MembershipDate",
        /// Derived by the stream handlers: how many reviews the user wrote.
        #[serde(default)]
        review_count: crate::Derived => REVIEW_COUNT = "ReviewCount",
    }
}

impl Entity for User {
    const TYPE: &'static str = types::USER;
    fn key(&self) -> PrimaryKey {
        k::user(&self.username)
    }
    fn gsi1(&self) -> Option<Gsi1Key> {
        Some(k::user_index(&self.username))
    }
}

record! {
    pub struct Review {
        isbn: Isbn => ISBN = "Isbn",
        username: Id => USERNAME = "Username",
        /// 1..=10.
        grade: u8 => GRADE = "Grade",
        review_text: String => REVIEW_TEXT = "ReviewText",
        /// The date of the review's sort key.
        review_date: Timestamp => REVIEW_DATE = "ReviewDate",
    }
}

/// What a review may hold: `put-review` refuses more (a 400), the review's schema states it, and
/// pages of reviews are read within their budget from its largest size.
impl Review {
    /// Its grades, from the least to the most.
    pub const MIN_GRADE: u8 = 1;
    pub const MAX_GRADE: u8 = 10;
    /// The most characters of its text.
    pub const MAX_TEXT_CHARS: usize = 5000;
    /// The largest review item DynamoDB can hold: its text at 4 bytes a character, and 1 KB for
    /// its keys and other attributes (the longest username and ISBN). A test writes the largest
    /// review and measures it.
    pub const LARGEST_BYTES: u32 = 4 * Self::MAX_TEXT_CHARS as u32 + 1024;
}

impl Entity for Review {
    const TYPE: &'static str = types::REVIEW;
    fn key(&self) -> PrimaryKey {
        k::review(&self.isbn, &self.username, self.review_date)
    }
    fn gsi1(&self) -> Option<Gsi1Key> {
        Some(k::review_index(
            &self.isbn,
            &self.username,
            self.review_date,
        ))
    }
}

record! {
    /// The marker of a user's one review of a book: names the current review's sort key. In the
    /// user's base-table partition, in no index: no read pattern ever pays for it.
    pub struct ReviewMarker {
        username: Id => USERNAME = "Username",
        isbn: Isbn => ISBN = "Isbn",
        review_sk: String => REVIEW_SK = "ReviewSk",
    }
}

impl Entity for ReviewMarker {
    const TYPE: &'static str = types::REVIEW_MARKER;
    fn key(&self) -> PrimaryKey {
        k::review_marker(&self.username, &self.isbn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{from_item, n, s, to_item};

    fn book(count: i64, sum: i64) -> Book {
        Book {
            isbn: Isbn::parse("9780261102354").unwrap(),
            title: "t".into(),
            author: "a".into(),
            publication_year: 1954,
            rating_count: count.into(),
            rating_sum: sum.into(),
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
        assert_eq!(book(i64::MAX, i64::MAX).average_rating(), Some(1.0));
    }

    #[test]
    fn a_review_item_has_the_seed_attributes_and_both_keys() {
        let review = Review {
            isbn: Isbn::parse("9780261102354").unwrap(),
            username: Id::parse("u", "frodo").unwrap(),
            grade: 10,
            review_text: "Must read.".into(),
            review_date: Timestamp::parse("2001-08-05T02:46:00.000Z").unwrap(),
        };
        let item = to_item(&review).unwrap();
        let mut names: Vec<_> = item.keys().cloned().collect();
        names.sort();
        assert_eq!(
            names,
            [
                "GSI1PK",
                "GSI1SK",
                "Grade",
                "Isbn",
                "PK",
                "ReviewDate",
                "ReviewText",
                "SK",
                "Type",
                "Username"
            ]
        );
        assert_eq!(item["SK"], s("2001-08-05T02:46:00.000Z#USER#frodo"));
        assert_eq!(from_item::<Review>(item.clone()).unwrap(), review);
        assert!(from_item::<Book>(item).is_err(), "the Type decides");
        // Derived attributes default to 0 until the stream handlers write them.
        let b: Book = from_item(crate::Item::from([
            ("Type".to_owned(), s("Book")),
            ("Isbn".to_owned(), s("9780261102354")),
            ("Title".to_owned(), s("t")),
            ("Author".to_owned(), s("a")),
            ("PublicationYear".to_owned(), n(1954)),
        ]))
        .unwrap();
        assert_eq!(
            (b.rating_count.value(), b.rating_sum.value()),
            (Some(0), Some(0))
        );
        // Drift: a negative count shows no average rather than failing the read.
        assert_eq!(book(-1, 5).average_rating(), None);
    }
}
