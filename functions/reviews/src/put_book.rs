//! R4: `PUT /books/{isbn}` with `{"title", "author", "publicationYear"}`: creates the book (201)
//! or updates it (200), keeping what the stream handlers derive (rating count and sum). One
//! UpdateItem.
//!
//! The ISBN of the path may be an ISBN-10 or an ISBN-13, with hyphens; it is validated (check
//! digit included) and normalised to its 13 digits, so both forms of one book are one item. The
//! answer shows the normalised ISBN.

use crate::data as reviews;
use crate::views as view;
use api::declare::*;
use serde::Deserialize;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "put-book",
    Access::Staff,
    &Route::put(
        "/books/{isbn}",
        "R4: create or update a book (keeps its rating)",
        &[
            Pattern {
                id: "R4",
                route: "`PUT /books/{isbn}` `{title, author, publicationYear}` (staff)",
                index: Index::Table,
                request: "UpdateItem `BOOK#<isbn>` / `BOOK#<isbn>` (keeps the derived rating)",
                returns: "the book; 201 created, 200 updated",
                example: Example::staff("/books/978-0-261-10235-4").with_body(r#"{"title": "The Fellowship of the Ring", "author": "J.R.R. Tolkien", "publicationYear": 1954}"#),
            },
        ],
    ),
);

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::put::<view::Book>(
    "the book as stored, updated",
    "the book as stored, created",
)
.body::<PutBook>()
.worst(|| {
    use api::function::{leak, widest_text};
    let body = serde_json::json!({
        "title": widest_text(MAX_TITLE_CHARS),
        "author": widest_text(MAX_AUTHOR_CHARS),
        "publicationYear": MAX_YEAR,
    });
    api::function::Worst::new(
        format!(
            "a title of {MAX_TITLE_CHARS} and an author of {MAX_AUTHOR_CHARS} characters of 4 bytes"
        ),
        Example::staff("/books/978-0-261-10235-4").with_body(leak(body.to_string())),
    )
})];

pub const MAX_TITLE_CHARS: usize = 500;
pub const MAX_AUTHOR_CHARS: usize = 200;
pub const MIN_YEAR: i32 = 0;
pub const MAX_YEAR: i32 = 9999;

/// A book's title, author and year.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(inline)]
struct PutBook {
    #[schemars(length(min = 1, max = MAX_TITLE_CHARS))]
    title: String,
    #[schemars(length(min = 1, max = MAX_AUTHOR_CHARS))]
    author: String,
    publication_year: api::Bounded<{ MIN_YEAR as i64 }, { MAX_YEAR as i64 }>,
}

fn validate(body: &PutBook) -> Result<(), ApiError> {
    api::text_field("title", &body.title, MAX_TITLE_CHARS)?;
    api::text_field("author", &body.author, MAX_AUTHOR_CHARS)?;
    Ok(())
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let isbn = crate::params::path_isbn(&req)?;
    let body: PutBook = api::json_body(&req)?;
    validate(&body)?;
    let (book, created) = reviews::put_book(
        &deps.table,
        &isbn,
        body.title.trim(),
        body.author.trim(),
        body.publication_year.to_i32(),
    )
    .await?;
    api::json(if created { 201 } else { 200 }, &view::book(&book))
}

#[cfg(test)]
mod tests {
    use super::*;
    use store::Table;

    use model::reviews::Book;
    use serde_json::{Value, json};
    use store::Update;
    use testkit::{Harness, all_items};
    const BODY: &str = r#"{"title":"The Fellowship of the Ring","author":"J.R.R. Tolkien","publicationYear":1954}"#;

    async fn put(table: &Table, isbn: &str, body: &str) -> (u16, Value) {
        let h = Harness::new(&FUNCTION, handle, table.clone());
        h.put(&h.path(&[isbn]), body).await
    }

    #[tokio::test]
    async fn creates_then_updates_in_one_write_each_keeping_the_derived_rating() {
        let table = testkit::table().await;
        let (s, b) = put(&table, "9780261102354", BODY).await;
        assert_eq!(s, 201);
        assert_eq!(
            b,
            json!({
                "isbn": "9780261102354",
                "title": "The Fellowship of the Ring",
                "author": "J.R.R. Tolkien",
                "publicationYear": 1954,
                "rating": { "count": 0, "average": null },
            })
        );
        // What a stream handler would add.
        let derived = Update::new()
            .add(Book::RATING_COUNT, 3)
            .add(Book::RATING_SUM, 26);
        let book = keys::reviews::book(&crate::fixtures::isbn("9780261102354"));
        table.update(&book, &derived, None).await.unwrap();
        table.meter().reset();
        let (s, b) = put(
            &table,
            "9780261102354",
            r#"{"title":"  The Fellowship of the Ring (2nd ed.) ","author":"J.R.R. Tolkien","publicationYear":1966}"#,
        )
        .await;
        assert_eq!(s, 200);
        assert_eq!(b["title"], "The Fellowship of the Ring (2nd ed.)");
        assert_eq!(b["publicationYear"], 1966);
        assert_eq!(b["rating"], json!({ "count": 3, "average": 8.67 }));
        let requests = table.meter().requests();
        assert_eq!(requests.len(), 1);
        assert_eq!(
            (requests[0].operation, requests[0].write_units),
            ("UpdateItem", 1.0)
        );
        let items = all_items(&table).await;
        assert_eq!(items.len(), 1);
        let item = &items[0];
        assert_eq!(item["PK"].as_s().unwrap(), "BOOK#9780261102354");
        assert_eq!(item["SK"].as_s().unwrap(), "BOOK#9780261102354");
        assert_eq!(item["Type"].as_s().unwrap(), "Book");
        assert_eq!(item["Isbn"].as_s().unwrap(), "9780261102354");
        assert_eq!(item["PublicationYear"].as_n().unwrap(), "1966");
        assert_eq!(item["RatingCount"].as_n().unwrap(), "3");
        assert!(
            !item.contains_key("GSI1PK"),
            "a book is in no index partition"
        );
    }

    #[tokio::test]
    async fn an_isbn_10_and_its_isbn_13_are_one_book() {
        let table = testkit::table().await;
        let (s, b) = put(&table, "0-261-10235-4", BODY).await;
        assert_eq!((s, b["isbn"].as_str()), (201, Some("9780261102354")));
        let (s, _) = put(&table, "978-0-261-10235-4", BODY).await;
        assert_eq!(s, 200);
        let (s, _) = put(&table, "0261102354", BODY).await;
        assert_eq!(s, 200);
        assert_eq!(all_items(&table).await.len(), 1);
    }

    #[tokio::test]
    async fn bad_input_is_4xx_and_writes_nothing() {
        let table = testkit::table().await;
        let long_title = format!(
            r#"{{"title":"{}","author":"A","publicationYear":1954}}"#,
            "t".repeat(MAX_TITLE_CHARS + 1)
        );
        let huge = format!(
            r#"{{"title":"{}","author":"A","publicationYear":1954}}"#,
            "t".repeat(api::MAX_BODY_BYTES)
        );
        let isbn = "9780261102354";
        type Case<'a> = ((&'a str, &'a str), u16, &'static str);
        #[rustfmt::skip]
        let cases: Vec<Case> = vec![
            ((isbn, ""), 400, "missing_body"),
            ((isbn, "{"), 400, "invalid_json"),
            ((isbn, "not json"), 400, "invalid_json"),
            ((isbn, "[]"), 400, "invalid_body"),
            ((isbn, r#"["T","A",1954]"#), 400, "invalid_body"),
            ((isbn, "null"), 400, "invalid_body"),
            ((isbn, r#"{"title":"T","author":"A"}"#), 400, "invalid_body"),
            ((isbn, r#"{"title":"T","author":"A","publicationYear":"1954"}"#), 400, "invalid_body"),
            ((isbn, r#"{"title":"T","author":"A","publicationYear":1954.5}"#), 400, "invalid_body"),
            ((isbn, r#"{"title":1,"author":"A","publicationYear":1954}"#), 400, "invalid_body"),
            ((isbn, r#"{"title":"T","author":"A","publicationYear":1954,"ratingCount":99}"#), 400, "invalid_body"),
            ((isbn, r#"{"title":" ","author":"A","publicationYear":1954}"#), 400, "invalid_body"),
            ((isbn, r#"{"title":"T","author":"","publicationYear":1954}"#), 400, "invalid_body"),
            ((isbn, r#"{"title":"T","author":"A","publicationYear":-1}"#), 400, "invalid_body"),
            ((isbn, r#"{"title":"T","author":"A","publicationYear":10000}"#), 400, "invalid_body"),
            ((isbn, &long_title), 400, "invalid_body"),
            ((isbn, &huge), 413, "body_too_large"),
            // Path ISBNs: a wrong check digit, a wrong prefix, another length, other characters.
            (("9780261102355", BODY), 400, "invalid_parameter"),
            (("0261102355", BODY), 400, "invalid_parameter"),
            (("9770261102354", BODY), 400, "invalid_parameter"),
            (("978026110235", BODY), 400, "invalid_parameter"),
            (("BOOK#9780261102354", BODY), 400, "invalid_parameter"),
            (("978#0261102354", BODY), 400, "invalid_parameter"),
            (("", BODY), 400, "invalid_parameter"),
        ];
        testkit::assert_errors(cases, async |(isbn, body)| put(&table, isbn, body).await).await;
        assert!(all_items(&table).await.is_empty(), "nothing written");
        assert!(table.meter().requests().is_empty(), "nothing even sent");
    }
}
