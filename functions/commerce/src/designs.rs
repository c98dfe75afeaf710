//! Test support for the two order-status key designs (`ORDER_STATUS_KEYS`): C4 by status and O10
//! answer the same pages from either.

use serde_json::Value;
use testkit::Harness;

/// A paginated list read by two handlers of one function, `a` and `b` (the same data, each
/// configured with another key design): walks `query` page by page, each with its own cursors
/// and each with the other's, and asserts that all four answer the same `orders` on every page
/// and that each page of `a` (or `b`) queried only `index.0` (or `index.1`). `get` sends one
/// request through a harness.
pub async fn same_pages_in_both_designs(
    (a, b): (&Harness, &Harness),
    index: (&str, &str),
    query: &[(&str, &str)],
    get: impl AsyncFn(&Harness, &[(&str, &str)]) -> (u16, Value),
) {
    let mut cursors: [Option<String>; 2] = [None, None];
    loop {
        let mut pages = Vec::new();
        for (n, (h, index)) in [(a, index.0), (b, index.1)].into_iter().enumerate() {
            for cursor in [&cursors[n], &cursors[1 - n]] {
                let mut q = query.to_vec();
                if let Some(c) = cursor {
                    q.push(("cursor", c));
                }
                h.table().meter().reset();
                let (s, page) = get(h, &q).await;
                assert_eq!(s, 200, "{page}");
                let requests = h.table().meter().requests();
                assert!(requests.iter().all(|r| r.index == Some(index)), "{q:?}");
                pages.push(page);
            }
        }
        for page in &pages[1..] {
            assert_eq!(page["orders"], pages[0]["orders"], "{query:?}");
        }
        let next = |n: usize| pages[2 * n]["nextCursor"].as_str().map(str::to_owned);
        cursors = [next(0), next(1)];
        if cursors.iter().all(Option::is_none) {
            return;
        }
        assert!(cursors.iter().all(Option::is_some), "{query:?}");
    }
}
