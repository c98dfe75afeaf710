//! End to end, the reviews context (R1–R4): the local stack's real binaries over HTTP, with the
//! environment the template gives them (the cursor signing key of get-book and get-user).

use crate::stack::{Stack, TABLE_PER_CONTEXT, http, start_stack, start_stack_in, start_stack_with};
use keys::indexes::IndexDesign;

#[tokio::test]
async fn the_review_patterns_over_http_through_the_real_binaries() {
    the_review_patterns(start_stack().await).await
}

/// The same requests and answers with `TableLayout` table-per-context.
#[tokio::test]
async fn the_review_patterns_with_a_table_per_context() {
    the_review_patterns(start_stack_in(TABLE_PER_CONTEXT).await).await
}

/// The same with `IndexDesign` dedicated (R2 on `ReviewsByUser`, then one BatchGetItem), with a
/// table per context: the reviews' table has no GSI1 at all, so nothing can still read it.
#[tokio::test]
async fn the_review_patterns_on_a_dedicated_index() {
    let stack = start_stack_with(&[
        (sam_template::layout::PARAMETER, TABLE_PER_CONTEXT),
        (IndexDesign::PARAMETER, IndexDesign::Dedicated.as_str()),
    ])
    .await;
    the_review_patterns(stack).await
}

/// The same with `IndexDesign` projected (R2 on `ReviewsByUserAll`, whole reviews, and the user
/// by its key), with a table per context.
#[tokio::test]
async fn the_review_patterns_on_a_projected_index() {
    let stack = start_stack_with(&[
        (sam_template::layout::PARAMETER, TABLE_PER_CONTEXT),
        (IndexDesign::PARAMETER, IndexDesign::Projected.as_str()),
    ])
    .await;
    the_review_patterns(stack).await
}

async fn the_review_patterns(stack: Stack) {
    let p = stack.port;

    let book = r#"{"title":"The Fellowship of the Ring","author":"J.R.R. Tolkien","publicationYear":1954}"#;
    let (s, _, b) = http(
        p,
        "PUT",
        "/books/0-261-10235-4",
        Some(book),
        &[("authorization", &stack.bearer_for("/books/0-261-10235-4"))],
    )
    .await;
    assert_eq!((s, b["isbn"].as_str()), (201, Some("9780261102354")), "{b}");
    for user in ["frodo", "sam", "pippin"] {
        let (s, _, u) = http(
            p,
            "PUT",
            &format!("/users/{user}"),
            Some(r#"{"membershipDate":"2000-09-29"}"#),
            &[(
                "authorization",
                &stack.bearer_for(&format!("/users/{user}")),
            )],
        )
        .await;
        assert_eq!(s, 201, "{u}");
    }
    for (user, grade) in [("frodo", 10), ("sam", 8), ("pippin", 6)] {
        let body = format!(r#"{{"grade":{grade},"text":"Read it."}}"#);
        let (s, _, r) = http(
            p,
            "PUT",
            &format!("/books/9780261102354/reviews/{user}"),
            Some(&body),
            &[(
                "authorization",
                &stack.bearer_for(&format!("/books/9780261102354/reviews/{user}")),
            )],
        )
        .await;
        assert_eq!(s, 201, "{r}");
    }
    // frodo changes his mind: an update, re-dated to the top.
    let (s, _, r) = http(
        p,
        "PUT",
        "/books/978-0-261-10235-4/reviews/frodo",
        Some(r#"{"grade":9,"text":"Even better."}"#),
        &[(
            "authorization",
            &stack.bearer_for("/books/978-0-261-10235-4/reviews/frodo"),
        )],
    )
    .await;
    assert_eq!(s, 200, "{r}");

    // R1, a page at a time: the cursor is signed with the template's CursorSigningKey.
    let (s, _, page) = http(
        p,
        "GET",
        "/books/9780261102354?limit=2",
        None,
        &[(
            "authorization",
            &stack.bearer_for("/books/9780261102354?limit=2"),
        )],
    )
    .await;
    assert_eq!(s, 200, "{page}");
    assert_eq!(page["book"]["title"], "The Fellowship of the Ring");
    // A public page names no author: API Gateway passes no claims to a route without an
    // authorizer, so even staff read it as anyone (docs/access.md).
    let reviews = page["reviews"].as_array().unwrap();
    assert_eq!(reviews.len(), 2);
    assert!(
        reviews.iter().all(|r| r.get("username").is_none()),
        "{page}"
    );
    let cursor = page["nextCursor"].as_str().unwrap();
    let (s, _, next) = http(
        p,
        "GET",
        &format!("/books/9780261102354?limit=2&cursor={cursor}"),
        None,
        &[(
            "authorization",
            &stack.bearer_for(&format!("/books/9780261102354?limit=2&cursor={cursor}")),
        )],
    )
    .await;
    assert_eq!(s, 200, "{next}");
    assert!(next["book"].is_null());
    assert_eq!(next["reviews"].as_array().unwrap().len(), 1);
    assert!(next["reviews"][0].get("username").is_none(), "{next}");

    // R2 through GSI1 or ReviewsByUser (eventually consistent in AWS; DynamoDB Local is
    // immediate).
    let (s, _, u) = http(
        p,
        "GET",
        "/users/frodo",
        None,
        &[("authorization", &stack.bearer_for("/users/frodo"))],
    )
    .await;
    assert_eq!(s, 200, "{u}");
    assert_eq!(u["user"]["username"], "frodo");
    assert_eq!(u["reviews"].as_array().unwrap().len(), 1);
    assert_eq!(u["reviews"][0]["text"], "Even better.");

    // Deleting twice: the second finds nothing and is still a 204.
    let sam = stack.bearer_for("/books/9780261102354/reviews/sam");
    for _ in 0..2 {
        let path = "/books/9780261102354/reviews/sam";
        let (s, _, _) = http(p, "DELETE", path, None, &[("authorization", &sam)]).await;
        assert_eq!(s, 204);
    }

    for (method, path, body, status, code) in [
        (
            "GET",
            "/books/9780261102355",
            None,
            400,
            "invalid_parameter",
        ),
        ("GET", "/books/9780306406157", None, 404, "book_not_found"),
        ("GET", "/users/ghost", None, 404, "user_not_found"),
        ("GET", "/users/a%23b", None, 400, "invalid_parameter"),
        (
            "GET",
            "/books/9780261102354?cursor=forged",
            None,
            400,
            "invalid_cursor",
        ),
        (
            "PUT",
            "/books/9780261102354/reviews/frodo",
            Some(r#"{"grade":11,"text":"x"}"#),
            400,
            "invalid_body",
        ),
        (
            "PUT",
            "/books/9780306406157/reviews/frodo",
            Some(r#"{"grade":5,"text":"x"}"#),
            404,
            "book_not_found",
        ),
        (
            "PUT",
            "/books/9780261102354/reviews/ghost",
            Some(r#"{"grade":5,"text":"x"}"#),
            404,
            "user_not_found",
        ),
    ] {
        let (s, _, b) = http(
            p,
            method,
            path,
            body,
            &[("authorization", &stack.bearer_for(path))],
        )
        .await;
        assert_eq!(
            (s, b["code"].as_str().unwrap_or_default()),
            (status, code),
            "{method} {path}: {b}"
        );
    }
}
