//! Review keys: books, users and their reviews, newest first (Pernin's introduction: Alexandre
//! Pernin's final, timestamped design).
//!
//! Each key shape is declared once, below (`key_shapes!`: one line makes the builder and the
//! registry's kind); `docs/keys.md` shows them all as tables, generated from these declarations.
//!
//! The timestamp is [`crate::iso_timestamp`]'s fixed-width UTC form (`2002-08-05T02:46:00.000Z`).
//! Its first character is a digit, and digits sort before `B` and `U`: reading a book's collection
//! (or a user's GSI1 partition) backwards meets the book (the user) first, then its reviews newest
//! first, so R1 and R2 are one query each with `Limit = N + 1` (Pernin's introduction).
//!
//! The marker makes "one review per user per book" hold although a review's sort key carries a
//! time: it names the current review's sort key, and every write of a review goes through it in
//! one transaction. It lives in the user's base-table partition, which no read pattern queries
//! (R2 reads GSI1, and markers carry no GSI1 attributes), so markers never cost a read.
//!
//! ISBNs are normalised to their 13-digit form ([`Isbn`]): an ISBN-10 and its ISBN-13 are one
//! book, one key.

use std::{borrow::Cow, fmt};

use crate::{
    Base, Gsi1, Id, KeyCondition, KeyError, PrimaryKey, Segment, SortCondition, Timestamp,
};

/// Static tags of review keys (the registry declares where each one stands).
pub mod tag {
    pub const BOOK: &str = "BOOK";
    pub const USER: &str = "USER";
    /// The review marker's sort key, in the user's partition.
    pub const REVIEW_OF: &str = "REVIEWOF";
}

/// `Type` attribute values.
pub mod types {
    pub const BOOK: &str = "Book";
    pub const USER: &str = "User";
    pub const REVIEW: &str = "Review";
    pub const REVIEW_MARKER: &str = "ReviewMarker";
}

/// Longest ISBN input looked at (digits, hyphens and spaces): a 13-digit ISBN with four hyphens
/// is 17 characters; anything much longer is not an ISBN.
pub(crate) const MAX_ISBN_INPUT: usize = 32;

/// An ISBN, normalised to its 13 digits.
///
/// Accepts ISBN-10 (9 digits and a mod-11 check digit, `X` for 10) and ISBN-13 (`978` or `979`,
/// then 9 digits and a mod-10 check digit), with single hyphens or spaces between characters. An
/// ISBN-10 becomes the `978` ISBN-13 of the same book, with its check digit recomputed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Isbn(String);

impl Isbn {
    pub fn parse(value: &str) -> Result<Isbn, KeyError> {
        let invalid = || KeyError::InvalidIsbn(value.chars().take(MAX_ISBN_INPUT).collect());
        if value.len() > MAX_ISBN_INPUT {
            return Err(invalid());
        }
        // Separators only between two characters, one at a time.
        let bytes = value.as_bytes();
        let mut chars = Vec::with_capacity(13);
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'-' | b' ' => {
                    let inner = i > 0 && i + 1 < bytes.len();
                    if !inner || matches!(bytes[i - 1], b'-' | b' ') {
                        return Err(invalid());
                    }
                }
                b'0'..=b'9' | b'X' | b'x' => chars.push(b.to_ascii_uppercase()),
                _ => return Err(invalid()),
            }
        }
        let digit = |b: u8| u32::from(b - b'0');
        match chars.len() {
            10 => {
                let (body, check) = chars.split_at(9);
                if !body.iter().all(u8::is_ascii_digit) {
                    return Err(invalid());
                }
                let expected = isbn10_check(body.iter().map(|&b| digit(b)));
                let given = match check[0] {
                    b'X' => 10,
                    b => digit(b),
                };
                if given != expected {
                    return Err(invalid());
                }
                let mut thirteen: Vec<u32> = vec![9, 7, 8];
                thirteen.extend(body.iter().map(|&b| digit(b)));
                thirteen.push(isbn13_check(&thirteen));
                Ok(Isbn(thirteen.iter().map(|d| d.to_string()).collect()))
            }
            13 => {
                if !chars.iter().all(u8::is_ascii_digit) {
                    return Err(invalid());
                }
                if !(chars.starts_with(b"978") || chars.starts_with(b"979")) {
                    return Err(invalid());
                }
                let digits: Vec<u32> = chars.iter().map(|&b| digit(b)).collect();
                if isbn13_check(&digits[..12]) != digits[12] {
                    return Err(invalid());
                }
                Ok(Isbn(String::from_utf8(chars).expect("ASCII digits")))
            }
            _ => Err(invalid()),
        }
    }

    /// The 13 digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The ISBN-10 of a `978` ISBN; `None` for `979` ones, which have none.
    pub fn isbn10(&self) -> Option<String> {
        let body = self.0.strip_prefix("978")?.get(..9)?;
        let check = isbn10_check(body.bytes().map(|b| u32::from(b - b'0')));
        Some(format!(
            "{body}{}",
            if check == 10 {
                "X".to_owned()
            } else {
                check.to_string()
            }
        ))
    }
}

impl fmt::Display for Isbn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Segment for Isbn {
    const SEG: crate::shape::Seg = crate::shape::Seg::Isbn;
    fn segment(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.0)
    }
}

// Stored and shown in its 13-digit form; any accepted form reads back as that.
crate::serde_as_string!(Isbn, Isbn::parse);

/// Whether `s` is the canonical 13-digit form of an ISBN.
pub fn is_canonical_isbn(s: &str) -> bool {
    Isbn::parse(s).is_ok_and(|i| i.as_str() == s)
}

/// The ISBN-10 check digit (10 stands for `X`) of 9 digits: weights 10 down to 2, mod 11.
fn isbn10_check(body: impl Iterator<Item = u32>) -> u32 {
    let sum: u32 = body.zip((2..=10).rev()).map(|(d, w)| d * w).sum();
    (11 - sum % 11) % 11
}

/// The ISBN-13 check digit of 12 digits: weights 1, 3, 1, 3, ..., mod 10.
fn isbn13_check(body: &[u32]) -> u32 {
    let sum: u32 = body
        .iter()
        .enumerate()
        .map(|(i, d)| if i % 2 == 0 { *d } else { d * 3 })
        .sum();
    (10 - sum % 10) % 10
}

crate::shape::key_shapes! {
    context: "reviews";
    /// The book's own record. Every review of the book sorts before it.
    pub fn book(isbn: &Isbn) -> Base<BOOK> { BOOK # {isbn} / BOOK # {isbn} }
    /// The user's own record.
    pub fn user(user: &Id) -> Base<USER> { USER # {user} / USER # {user} }
    /// GSI1 key of the user's record. Every review of the user sorts before it in GSI1.
    pub fn user_index(user: &Id) -> Gsi1<USER> { USER # {user} / USER # {user} }
    /// A review, in its book's collection.
    pub fn review(isbn: &Isbn, user: &Id, at: Timestamp) -> Base<REVIEW> {
        BOOK # {isbn} / {at} # USER # {user}
    }
    /// GSI1 key of a review, in its user's partition.
    pub fn review_index(isbn: &Isbn, user: &Id, at: Timestamp) -> Gsi1<REVIEW> {
        USER # {user} / {at} # BOOK # {isbn}
    }
    /// The marker of the user's one review of a book.
    pub fn review_marker(user: &Id, isbn: &Isbn) -> Base<REVIEW_MARKER> {
        USER # {user} / REVIEW_OF # {isbn}
    }
}

/// R1: a book's collection read backwards from the book's own record (`SK <= BOOK#<isbn>`):
/// the book, then its reviews newest first.
pub fn book_and_reviews(isbn: &Isbn) -> KeyCondition<Base> {
    let (pk, sk) = book(isbn).into_parts();
    KeyCondition::new(pk, SortCondition::AtMost(sk))
}

/// R2: a user's GSI1 partition read backwards from the user's record: the user, then their
/// reviews newest first.
pub fn user_and_reviews(user: &Id) -> KeyCondition<Gsi1> {
    let (pk, sk) = user_index(user).into_parts();
    KeyCondition::new(pk, SortCondition::AtMost(sk))
}

/// R2 on its own index (`IndexDesign` dedicated, [`crate::indexes::IndexDesign`]): a user's
/// reviews by date, then book, in `ReviewsByUser`, whose keys are the review's own attributes.
/// Only a review carries all three (a user has no `ReviewDate`, a marker no `ReviewDate`, a book
/// no `Username`), so the index holds reviews and nothing else; it projects their keys only, and
/// the reader fetches the page's reviews and the user from the table.
pub mod reviews_by_user {
    use super::Isbn;
    use crate::{
        Id, Index, Timestamp, key_attribute as attribute,
        multi::{Projection, StrValue},
    };

    attribute!(
        /// The reviewer, as the review's `Username` holds it.
        Reviewer(Id) = "Username", S, |u| u.as_str().to_owned()
    );
    impl StrValue for Reviewer {}
    attribute!(
        /// When the review was written, as its `ReviewDate` holds it (fixed-width UTC: sorts as
        /// time does).
        ReviewedAt(Timestamp) = "ReviewDate", S, |t| t.to_string()
    );
    impl StrValue for ReviewedAt {}
    attribute!(
        /// The book, as the review's `Isbn` holds it (13 digits).
        ReviewedBook(Isbn) = "Isbn", S, |i| i.as_str().to_owned()
    );
    impl StrValue for ReviewedBook {}

    /// R2: a user's reviews, by date then book.
    pub struct ReviewsByUser;

    impl Index for ReviewsByUser {
        const NAME: &'static str = "ReviewsByUser";
        type Partition = (Reviewer,);
        type Sort = (ReviewedAt, ReviewedBook);
        const PROJECTION: Projection = Projection::KeysOnly;
    }

    /// R2 (`IndexDesign` projected): [`ReviewsByUser`]'s keys, each entry the whole review
    /// (`ALL`: what R2 shows of it), so a page is one Query and no review is fetched again.
    pub struct ReviewsByUserAll;

    impl Index for ReviewsByUserAll {
        const NAME: &'static str = "ReviewsByUserAll";
        type Partition = (Reviewer,);
        type Sort = (ReviewedAt, ReviewedBook);
        const PROJECTION: Projection = Projection::All;
    }
}

/// A review's key in `ReviewsByUser`: its own `Username`, `ReviewDate` and `Isbn`, which the
/// review's record writes (nothing is added to the item for it).
pub fn review_by_user(isbn: &Isbn, user: &Id, at: Timestamp) -> crate::IndexKey {
    use crate::Index;
    use reviews_by_user::*;
    ReviewsByUser::item_key(
        (Reviewer(user.clone()),),
        (ReviewedAt(at), ReviewedBook(isbn.clone())),
    )
}

/// R2 on `ReviewsByUser`: every review of the user (read backwards: newest first).
pub fn reviews_by_user(user: &Id) -> crate::IndexCondition {
    use crate::Index;
    reviews_by_user::ReviewsByUser::key((reviews_by_user::Reviewer(user.clone()),)).build()
}

/// A review's key in `ReviewsByUserAll`: the same attributes as in `ReviewsByUser`.
pub fn review_by_user_all(isbn: &Isbn, user: &Id, at: Timestamp) -> crate::IndexKey {
    use crate::Index;
    use reviews_by_user::*;
    ReviewsByUserAll::item_key(
        (Reviewer(user.clone()),),
        (ReviewedAt(at), ReviewedBook(isbn.clone())),
    )
}

/// R2 on `ReviewsByUserAll`: every review of the user, whole (read backwards: newest first).
pub fn reviews_by_user_all(user: &Id) -> crate::IndexCondition {
    use crate::Index;
    reviews_by_user::ReviewsByUserAll::key((reviews_by_user::Reviewer(user.clone()),)).build()
}

/// The review a position in R2's list names: from its table key (`PK`, `SK`), which a position
/// in either index carries. Its book, reviewer and date.
pub fn review_at(pk: &str, sk: &str) -> Result<(Isbn, Id, Timestamp), KeyError> {
    let malformed = || KeyError::Malformed(format!("{pk} / {sk}"));
    let isbn = pk
        .strip_prefix(tag::BOOK)
        .and_then(|rest| rest.strip_prefix(crate::DELIMITER))
        .ok_or_else(malformed)?;
    let isbn = Isbn::parse(isbn).map_err(|_| malformed())?;
    let (ts, user) = sk.split_once(crate::DELIMITER).ok_or_else(malformed)?;
    let at = Timestamp::parse(ts).map_err(|_| malformed())?;
    let user = user
        .strip_prefix(tag::USER)
        .and_then(|rest| rest.strip_prefix(crate::DELIMITER))
        .ok_or_else(malformed)?;
    let user = Id::parse("username", &crate::unescape(user).ok_or_else(malformed)?)
        .map_err(|_| malformed())?;
    let key = review(&isbn, &user, at);
    if key.pk() != pk || key.sk() != sk {
        return Err(malformed());
    }
    Ok((isbn, user, at))
}

/// The review a marker names (its `ReviewSk`), checked: it must be a review of this book by this
/// user. Returns its key and date.
pub fn review_of_marker(
    isbn: &Isbn,
    user: &Id,
    review_sk: &str,
) -> Result<(PrimaryKey, Timestamp), KeyError> {
    let malformed = || KeyError::Malformed(review_sk.to_owned());
    let (ts, rest) = review_sk
        .split_once(crate::DELIMITER)
        .ok_or_else(malformed)?;
    let at = Timestamp::parse(ts).map_err(|_| malformed())?;
    let key = review(isbn, user, at);
    if key.sk() != review_sk || rest.is_empty() {
        return Err(malformed());
    }
    Ok((key, at))
}

/// This context's part of the registry's proof (`registry::tests`): every key its builders make
/// from one set of inputs, with its entity, and every read's key condition with the entities its decoder expects. Beside the declarations, so that a new key
/// shape or key condition and its line here are one change.
#[cfg(test)]
pub(crate) mod proof {
    use super::{types as rt, *};
    use crate::registry::proof::{Inputs, Made, Read, made as k, read as q};

    pub(crate) fn keys(i: &Inputs) -> Vec<Made> {
        let at = crate::Timestamp::from_ms(i.ms).unwrap();
        vec![
            k(rt::BOOK, book(&i.isbn)),
            k(rt::REVIEW, review(&i.isbn, &i.a, at)),
            k(rt::USER, user(&i.a)),
            k(rt::REVIEW_MARKER, review_marker(&i.a, &i.isbn)),
            k(rt::USER, user_index(&i.a)),
            k(rt::REVIEW, review_index(&i.isbn, &i.a, at)),
        ]
    }

    pub(crate) fn reads(i: &Inputs) -> Vec<Read> {
        vec![
            q("R1", book_and_reviews(&i.isbn), &[rt::BOOK, rt::REVIEW]),
            q("R2", user_and_reviews(&i.a), &[rt::USER, rt::REVIEW]),
        ]
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::Key;
    use proptest::prelude::*;

    fn id(s: &str) -> Id {
        Id::parse("username", s).unwrap()
    }

    fn isbn(s: &str) -> Isbn {
        Isbn::parse(s).unwrap()
    }

    fn at(ms: u64) -> Timestamp {
        Timestamp::from_ms(ms).unwrap()
    }

    fn pair<S: crate::KeySpace>(k: &Key<S>) -> (&str, &str) {
        (k.pk(), k.sk())
    }

    /// The Fellowship of the Ring (1954), HarperCollins: ISBN-10 0-261-10235-4.
    const FELLOWSHIP: &str = "9780261102354";
    /// The review dates of Pernin's introduction: 2001-08-05T02:46:00 and 2002-08-05T02:46:00
    /// (UTC).
    const MS_2001: u64 = 996_979_560_000;
    const MS_2002: u64 = 1_028_515_560_000;

    #[test]
    fn seed_002_rows_hold_with_fixed_width_timestamps() {
        let book_isbn = isbn(FELLOWSHIP);
        let u = id("frodo");
        // Book: PK = SK = BOOK#<ISBN>.
        assert_eq!(
            pair(&book(&book_isbn)),
            ("BOOK#9780261102354", "BOOK#9780261102354")
        );
        // User: PK = SK = GSI1PK = GSI1SK = USER#<Username>.
        assert_eq!(pair(&user(&u)), ("USER#frodo", "USER#frodo"));
        assert_eq!(pair(&user_index(&u)), ("USER#frodo", "USER#frodo"));
        // Review: SK 2002-08-05T02:46:00#USER#<Username>, GSI1SK 2002-08-05T02:46:00#BOOK#<ISBN>
        // (Pernin's introduction), with milliseconds and the zone so that every timestamp has one
        // width.
        let newer = review(&book_isbn, &u, at(MS_2002));
        assert_eq!(
            pair(&newer),
            ("BOOK#9780261102354", "2002-08-05T02:46:00.000Z#USER#frodo")
        );
        assert_eq!(
            pair(&review_index(&book_isbn, &u, at(MS_2002))),
            ("USER#frodo", "2002-08-05T02:46:00.000Z#BOOK#9780261102354")
        );
        let older = review(&book_isbn, &id("sam"), at(MS_2001));
        assert_eq!(older.sk(), "2001-08-05T02:46:00.000Z#USER#sam");
        // Read backwards, the collection is: the book, then the 2002 review, then the 2001 one.
        let the_book = book(&book_isbn);
        let mut collection = vec![older.sk(), the_book.sk(), newer.sk()];
        collection.sort();
        collection.reverse();
        assert_eq!(collection, [the_book.sk(), newer.sk(), older.sk()]);
        let r1 = book_and_reviews(&book_isbn);
        assert!(r1.matches(&book(&book_isbn)) && r1.matches(&newer) && r1.matches(&older));
        // The same in the user's GSI1 partition.
        let idx_new = review_index(&book_isbn, &u, at(MS_2002));
        let idx_old = review_index(&isbn("0261102362"), &u, at(MS_2001));
        assert!(idx_old.sk() < idx_new.sk() && idx_new.sk() < user_index(&u).sk());
        let r2 = user_and_reviews(&u);
        assert!(r2.matches(&user_index(&u)) && r2.matches(&idx_new) && r2.matches(&idx_old));
        // The marker.
        assert_eq!(
            pair(&review_marker(&u, &book_isbn)),
            ("USER#frodo", "REVIEWOF#9780261102354")
        );
    }

    #[test]
    fn isbn_forms_normalise_to_thirteen_digits() {
        for same in [
            "9780261102354",
            "978-0-261-10235-4",
            "978 0 261 10235 4",
            "0261102354",
            "0-261-10235-4",
        ] {
            assert_eq!(Isbn::parse(same).unwrap().as_str(), FELLOWSHIP, "{same}");
        }
        // An X check digit (ISBN-10 0-8044-2957-X), in either case.
        assert_eq!(isbn("080442957X").as_str(), "9780804429573");
        assert_eq!(isbn("080442957x"), isbn("080442957X"));
        assert_eq!(
            isbn("9780804429573").isbn10().as_deref(),
            Some("080442957X")
        );
        // 979 ISBNs are accepted and have no ISBN-10.
        assert_eq!(isbn("979-10-90636-07-1").as_str(), "9791090636071");
        assert_eq!(isbn("9791090636071").isbn10(), None);
        for bad in [
            "",
            "9780261102355",   // wrong ISBN-13 check digit
            "0261102355",      // wrong ISBN-10 check digit
            "9770261102354",   // neither 978 nor 979
            "97802611023",     // too short
            "97802611023544",  // too long
            "026110235X",      // X where 4 belongs
            "X261102354",      // X before the end
            "978026110235X",   // X in an ISBN-13
            "-9780261102354",  // leading separator
            "9780261102354-",  // trailing separator
            "978--0261102354", // doubled separator
            "978_0261102354",
            "978#0261102354",
            "९७८0261102354", // non-ASCII digits
        ] {
            assert!(
                matches!(Isbn::parse(bad), Err(KeyError::InvalidIsbn(_))),
                "{bad:?}"
            );
        }
        assert!(Isbn::parse(&"9".repeat(1000)).is_err());
        assert!(is_canonical_isbn(FELLOWSHIP) && !is_canonical_isbn("0261102354"));
    }

    /// A position in R2's list, in either design, is its review's table key: `review_at` reads
    /// back what `review` wrote, and nothing else (a book's own key, a marker's, a key edited).
    #[test]
    fn a_review_s_table_key_names_its_book_reviewer_and_date() {
        let isbn = Isbn::parse("0-261-10235-4").unwrap();
        let at = Timestamp::from_ms(996_979_560_000).unwrap();
        let key = review(&isbn, &id("frodo"), at);
        assert_eq!(
            review_at(key.pk(), key.sk()),
            Ok((isbn.clone(), id("frodo"), at))
        );
        let book = book(&isbn);
        let marker = review_marker(&id("frodo"), &isbn);
        for (pk, sk) in [
            (book.pk(), book.sk()),
            (marker.pk(), marker.sk()),
            (key.pk(), "2001-08-05T02:46:00.000Z#USER#"),
            (key.pk(), "2001-08-05T02:46:00Z#USER#frodo"),
            ("BOOK#9780261102355", key.sk()),
        ] {
            assert!(review_at(pk, sk).is_err(), "{pk} / {sk}");
        }
        let by_user = review_by_user(&isbn, &id("frodo"), at);
        assert_eq!(
            by_user.get("ReviewDate"),
            Some(&crate::KeyValue::S(at.to_string()))
        );
        assert!(reviews_by_user(&id("frodo")).matches(|n| by_user.get(n).cloned()));
        assert!(!reviews_by_user(&id("sam")).matches(|n| by_user.get(n).cloned()));
        let whole = review_by_user_all(&isbn, &id("frodo"), at);
        assert_eq!(whole.attributes(), by_user.attributes());
        assert!(reviews_by_user_all(&id("frodo")).matches(|n| whole.get(n).cloned()));
    }

    #[test]
    fn a_marker_names_only_a_review_of_its_own_book_and_user() {
        let (b, u) = (isbn(FELLOWSHIP), id("frodo"));
        let sk = review(&b, &u, at(MS_2002)).sk().to_owned();
        assert_eq!(review_of_marker(&b, &u, &sk).unwrap().1, at(MS_2002));
        for bad in [
            "2002-08-05T02:46:00#USER#frodo",
            "2002-08-05T02:46:00.000+00:00#USER#frodo",
            "2002-02-30T02:46:00.000Z#USER#frodo",
            "2002-08-05T02:46:00.000Z#BOOK#frodo",
            "2002-08-05T02:46:00.000Z#USER#sam",
            "2002-08-05T02:46:00.000Z#USER#frodo#x",
            "BOOK#9780261102354",
        ] {
            assert!(review_of_marker(&b, &u, bad).is_err(), "{bad}");
        }
    }

    fn arb_id() -> impl Strategy<Value = Id> {
        "[A-Za-z0-9._-]{1,64}"
            .prop_filter("not . or ..", |s| s != "." && s != "..")
            .prop_map(|s| Id::parse("username", &s).unwrap())
    }

    /// Nine digits and their ISBN-10 check character.
    fn isbn10_of(body: &[u32; 9]) -> String {
        let check = isbn10_check(body.iter().copied());
        let mut s: String = body.iter().map(|d| d.to_string()).collect();
        s.push_str(&if check == 10 {
            "X".to_owned()
        } else {
            check.to_string()
        });
        s
    }

    pub(crate) fn arb_isbn() -> impl Strategy<Value = Isbn> {
        (prop::array::uniform9(0u32..10), any::<bool>()).prop_map(|(body, nine79)| {
            let mut digits: Vec<u32> = if nine79 { vec![9, 7, 9] } else { vec![9, 7, 8] };
            digits.extend(body);
            digits.push(isbn13_check(&digits));
            isbn(&digits.iter().map(|d| d.to_string()).collect::<String>())
        })
    }

    const MAX_MS: u64 = 253_402_300_799_999;

    proptest! {
        #[test]
        fn isbn10_to_13_round_trips(body in prop::array::uniform9(0u32..10)) {
            let ten = isbn10_of(&body);
            let from_ten = Isbn::parse(&ten).unwrap();
            // The 13-digit form is itself an ISBN, of the same book, and converts back.
            prop_assert_eq!(from_ten.as_str().len(), 13);
            prop_assert!(from_ten.as_str().starts_with("978"));
            let from_thirteen = Isbn::parse(from_ten.as_str()).unwrap();
            prop_assert_eq!(&from_thirteen, &from_ten);
            prop_assert_eq!(from_ten.isbn10(), Some(ten.clone()));
            // Hyphenated forms are the same book.
            let hyphenated = format!("{}-{}-{}", &ten[..1], &ten[1..5], &ten[5..]);
            prop_assert_eq!(Isbn::parse(&hyphenated).unwrap(), from_ten.clone());
        }

        #[test]
        fn a_wrong_check_digit_is_rejected(body in prop::array::uniform9(0u32..10), wrong in 0u32..11, i in arb_isbn(), wrong13 in 0u32..10) {
            let ten = isbn10_of(&body);
            let right = isbn10_check(body.iter().copied());
            prop_assume!(wrong != right);
            let mut bad: String = ten[..9].to_owned();
            bad.push_str(&if wrong == 10 { "X".to_owned() } else { wrong.to_string() });
            prop_assert!(matches!(Isbn::parse(&bad), Err(KeyError::InvalidIsbn(_))));

            let s = i.as_str();
            let right13 = u32::from(s.as_bytes()[12] - b'0');
            prop_assume!(wrong13 != right13);
            let bad13 = format!("{}{wrong13}", &s[..12]);
            prop_assert!(matches!(Isbn::parse(&bad13), Err(KeyError::InvalidIsbn(_))));
        }

        #[test]
        fn the_parent_sorts_after_every_review_and_reviews_sort_by_time(
            b in arb_isbn(), u1 in arb_id(), u2 in arb_id(), t1 in 0..=MAX_MS, t2 in 0..=MAX_MS,
        ) {
            let (r1, r2) = (review(&b, &u1, at(t1)), review(&b, &u2, at(t2)));
            prop_assert!(r1.sk() < book(&b).sk() && r2.sk() < book(&b).sk());
            if t1 != t2 {
                prop_assert_eq!(r1.sk().cmp(r2.sk()), t1.cmp(&t2));
            }
            // In the user's GSI1 partition, for one user and two books.
            let (i1, i2) = (review_index(&b, &u1, at(t1)), review_index(&b, &u1, at(t2)));
            prop_assert!(i1.sk() < user_index(&u1).sk() && i2.sk() < user_index(&u1).sk());
            let ui = user_index(&u1);
            prop_assert_eq!(i1.pk(), ui.pk());
            if t1 != t2 {
                prop_assert_eq!(i1.sk().cmp(i2.sk()), t1.cmp(&t2));
            }
            prop_assert_eq!(review_of_marker(&b, &u1, r1.sk()).unwrap(), (r1.clone(), at(t1)));
        }

        #[test]
        fn different_values_never_make_the_same_key(a in arb_isbn(), b in arb_isbn(), u in arb_id(), v in arb_id(), t1 in 0..=MAX_MS, t2 in 0..=MAX_MS) {
            prop_assert_eq!(book(&a) == book(&b), a == b);
            prop_assert_eq!(user(&u) == user(&v), u == v);
            prop_assert_eq!(review_marker(&u, &a) == review_marker(&v, &b), u == v && a == b);
            prop_assert_eq!(
                review(&a, &u, at(t1)) == review(&b, &v, at(t2)),
                a == b && u == v && t1 == t2
            );
            prop_assert_eq!(
                review_index(&a, &u, at(t1)) == review_index(&b, &v, at(t2)),
                a == b && u == v && t1 == t2
            );
        }
    }
}
