//! R4: `PUT /users/{username}` with `{"membershipDate"?}` (`YYYY-MM-DD`): creates the user (201)
//! or updates it (200), keeping what the stream handlers derive (review count). One UpdateItem.
//!
//! Without a `membershipDate` (an empty body counts as `{}`), a new user's is today (UTC) and an
//! existing user's is kept. A date after today is refused. With GSI1 overloaded (`IndexDesign`)
//! the user's record also carries its GSI1 keys (`USER#<username>` twice): R2 reads it from GSI1
//! together with the user's reviews; with dedicated indexes it carries none.

use crate::data as reviews;
use crate::views as view;
use api::declare::*;
use keys::Date;
use serde::Deserialize;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "put-user",
    Access::owner("username", Refused::UserNotFound.refusal()),
    &Route::put(
        "/users/{username}",
        "R4: create or update a user (keeps their review count)",
        &[Pattern {
            id: "R4",
            route: "`PUT /users/{username}` `{membershipDate?}` (`2000-09-29`, or seed 002's `2000-09-29T04:31:00`: the date is stored)",
            index: Index::Table,
            request: "UpdateItem `USER#<username>` / `USER#<username>` (keeps the derived review count)",
            returns: "the user; 201 created, 200 updated",
            example: Example::sub("pippin", "/users/pippin")
                .with_body(r#"{"membershipDate": "2002-02-02"}"#),
        }],
    ),
)
.needs(Needs::TABLE.with_settings(&[INDEX_DESIGN]));

api::refusals! {
    UserNotFound = crate::refusals::USER_NOT_FOUND,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] =
    &[
        Contract::put::<view::User>("the user as stored, updated", "the user as stored, created")
            .refusals(Refused::ALL)
            .optional_body::<PutUser>()
            .worst(|| {
                api::function::Worst::new(
                    format!(
                        "a new user of the longest username, {} characters",
                        keys::MAX_ID_LEN
                    ),
                    largest(),
                )
            }),
    ];

/// The longest username: the worst cases of the review routes write its reviews.
pub fn longest_username() -> &'static str {
    api::function::leak("u".repeat(keys::MAX_ID_LEN))
}

/// The `n`th of as many users of the longest username as a worst case needs (`n` < 1,000).
pub fn longest_username_numbered(n: u16) -> &'static str {
    api::function::leak(format!("{}{n:03}", "u".repeat(keys::MAX_ID_LEN - 3)))
}

/// The request that creates the user of the longest username.
pub fn largest() -> Example {
    largest_named(longest_username())
}

/// The request that creates the user `user`.
pub fn largest_named(user: &'static str) -> Example {
    Example::sub(user, api::function::leak(format!("/users/{user}")))
        .with_body(r#"{"membershipDate": "2002-02-02"}"#)
}

/// When the membership began.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(inline)]
struct PutUser {
    /// a date, or a date and time as Pernin's introduction writes it (`2000-09-29T04:31:00`; the
    /// date is stored); not after today; today when absent
    #[serde(default)]
    #[schemars(regex(
        pattern = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2})?Z?)?$"
    ))]
    membership_date: Option<String>,
}

fn has_body(req: &Request) -> bool {
    let bytes: &[u8] = match req.body() {
        Body::Text(t) => t.as_bytes(),
        Body::Binary(b) => b,
        _ => &[],
    };
    !bytes.iter().all(u8::is_ascii_whitespace)
}

/// Today (UTC).
fn today() -> Date {
    keys::iso_timestamp(keys::now_ms())
        .and_then(|t| Date::parse_iso(&t[..10]).ok())
        .unwrap_or_else(|| Date::from_ymd(1970, 1, 1).expect("valid"))
}

/// `membershipDate`: a date (`2000-09-29`) or, as Pernin's introduction writes it, a date and a
/// time of day (`2000-09-29T04:31:00`, seconds and a trailing `Z` optional). The date is what is
/// stored: a membership starts on a day.
fn membership_date(value: &str) -> Result<Date, ApiError> {
    let invalid = || {
        Common::InvalidBody.because(format!(
                "membershipDate: {value:?} is not a date (2000-09-29) or a date and time (2000-09-29T04:31:00)"
            ),
        )
    };
    let (date, time) = match value.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (value, None),
    };
    if let Some(time) = time {
        let time = time.strip_suffix('Z').unwrap_or(time);
        let parts: Vec<&str> = time.split(':').collect();
        let field = |s: &str, max: u8| s.len() == 2 && s.parse::<u8>().is_ok_and(|n| n <= max);
        let ok = match parts.as_slice() {
            [h, m] => field(h, 23) && field(m, 59),
            [h, m, s] => field(h, 23) && field(m, 59) && field(s, 59),
            _ => false,
        };
        if !ok {
            return Err(invalid());
        }
    }
    Date::parse_iso(date).map_err(|_| invalid())
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let user = api::path_id(&req, "username")?;
    let body: PutUser = if has_body(&req) {
        api::json_body(&req)?
    } else {
        PutUser::default()
    };
    let today = today();
    let membership = body
        .membership_date
        .as_deref()
        .map(membership_date)
        .transpose()?;
    if let Some(d) = membership.filter(|d| *d > today) {
        return Err(
            Common::InvalidBody.because(format!("membershipDate: {d} is after today ({today})"))
        );
    }
    let (u, created) = reviews::put_user(
        &deps.table,
        store::index_design(deps)?,
        &user,
        membership,
        today,
    )
    .await?;
    api::json(if created { 201 } else { 200 }, &view::user(&u))
}

#[cfg(test)]
mod tests {
    use super::*;
    use store::Table;

    #[test]
    fn membership_dates_come_as_dates_or_as_seed_002_writes_them() {
        let d = Date::parse_iso("2000-09-29").unwrap();
        for ok in [
            "2000-09-29",
            "2000-09-29T04:31:00",
            "2000-09-29T04:31",
            "2000-09-29T23:59:59Z",
        ] {
            assert_eq!(membership_date(ok).unwrap(), d, "{ok}");
        }
        for bad in [
            "2000-09-31",
            "2000-09-29T24:00:00",
            "2000-09-29T04:61",
            "2000-09-29T",
            "2000-09-29T4:31",
            "2000-09-29 04:31:00",
            "29/09/2000",
            "",
        ] {
            let e = membership_date(bad).unwrap_err();
            assert_eq!((e.status, e.code), (400, "invalid_body"), "{bad}");
        }
    }

    use serde_json::{Value, json};
    use testkit::{Harness, all_items};

    async fn put(table: &Table, user: &str, body: Option<&str>) -> (u16, Value) {
        let h = Harness::new(&FUNCTION, handle, table.clone());
        h.anyone().send("PUT", &h.path(&[user]), &[], body).await
    }

    #[tokio::test]
    async fn creates_then_updates_in_one_write_each() {
        let table = testkit::table().await;
        let (s, u) = put(&table, "frodo", Some(r#"{"membershipDate":"2000-09-29"}"#)).await;
        assert_eq!(s, 201);
        assert_eq!(
            u,
            json!({ "username": "frodo", "membershipDate": "2000-09-29", "reviewCount": 0 })
        );
        // No date: an existing user's is kept.
        let (s, u) = put(&table, "frodo", Some("{}")).await;
        assert_eq!((s, u["membershipDate"].as_str()), (200, Some("2000-09-29")));
        let (s, u) = put(&table, "frodo", None).await;
        assert_eq!((s, u["membershipDate"].as_str()), (200, Some("2000-09-29")));
        // A date: set.
        let (s, u) = put(&table, "frodo", Some(r#"{"membershipDate":"2001-01-15"}"#)).await;
        assert_eq!((s, u["membershipDate"].as_str()), (200, Some("2001-01-15")));
        // The form of Pernin's introduction, a date and a time: the date is stored.
        let seed = r#"{"membershipDate":"2000-09-29T04:31:00"}"#;
        let (s, u) = put(&table, "frodo", Some(seed)).await;
        assert_eq!((s, u["membershipDate"].as_str()), (200, Some("2000-09-29")));
        let requests = table.meter().requests();
        assert_eq!(requests.len(), 5);
        // One unit for the item, one for its GSI1 entry.
        assert!(
            requests
                .iter()
                .all(|r| r.operation == "UpdateItem" && r.write_units == 2.0),
            "{requests:?}"
        );
        let items = all_items(&table).await;
        assert_eq!(items.len(), 1);
        let item = &items[0];
        for key in ["PK", "SK", "GSI1PK", "GSI1SK"] {
            assert_eq!(item[key].as_s().unwrap(), "USER#frodo", "{key}");
        }
        assert_eq!(item["Type"].as_s().unwrap(), "User");
        assert_eq!(item["Username"].as_s().unwrap(), "frodo");
    }

    #[tokio::test]
    async fn a_new_user_without_a_date_joined_today_and_the_review_count_is_kept() {
        let table = testkit::table().await;
        let (s, u) = put(&table, "sam", None).await;
        assert_eq!(
            (s, u["membershipDate"].as_str()),
            (201, Some(&*today().iso()))
        );
        // What a stream handler would add.
        let sam = keys::reviews::user(&crate::fixtures::id("sam"));
        let derived = store::Update::new().add(model::reviews::User::REVIEW_COUNT, 4);
        table.update(&sam, &derived, None).await.unwrap();
        let (s, u) = put(&table, "sam", Some(r#"{"membershipDate":null}"#)).await;
        assert_eq!((s, u["reviewCount"].as_u64()), (200, Some(4)));
    }

    #[tokio::test]
    async fn bad_input_is_4xx_and_writes_nothing() {
        let table = testkit::table().await;
        let long = "u".repeat(65);
        type Case<'a> = ((&'a str, &'a str), u16, &'static str);
        #[rustfmt::skip]
        let cases: Vec<Case> = vec![
            (("frodo", "{"), 400, "invalid_json"),
            (("frodo", "not json"), 400, "invalid_json"),
            (("frodo", "[]"), 400, "invalid_body"),
            (("frodo", r#"["2000-09-29"]"#), 400, "invalid_body"),
            (("frodo", "null"), 400, "invalid_body"),
            (("frodo", "\"2000-09-29\""), 400, "invalid_body"),
            (("frodo", r#"{"membershipDate":20000929}"#), 400, "invalid_body"),
            (("frodo", r#"{"membershipDate":"2000-09-29","admin":true}"#), 400, "invalid_body"),
            (("frodo", r#"{"username":"sam"}"#), 400, "invalid_body"),
            // Impossible dates, other shapes, the future.
            (("frodo", r#"{"membershipDate":"2023-02-29"}"#), 400, "invalid_body"),
            (("frodo", r#"{"membershipDate":"2023-13-01"}"#), 400, "invalid_body"),
            (("frodo", r#"{"membershipDate":"2000/09/29"}"#), 400, "invalid_body"),
            // The form of Pernin's introduction (`2000-09-29T04:31:00`) is accepted; a time that is
            // not one is not.
            (("frodo", r#"{"membershipDate":"2000-09-29T25:31:00"}"#), 400, "invalid_body"),
            (("frodo", r#"{"membershipDate":""}"#), 400, "invalid_body"),
            (("frodo", r#"{"membershipDate":"9999-12-31"}"#), 400, "invalid_body"),
            // Usernames: the delimiter, other characters, too long, empty.
            (("a#b", "{}"), 400, "invalid_parameter"),
            (("USER#frodo", "{}"), 400, "invalid_parameter"),
            (("a b", "{}"), 400, "invalid_parameter"),
            ((&long, "{}"), 400, "invalid_parameter"),
            (("", "{}"), 400, "invalid_parameter"),
        ];
        testkit::assert_errors(cases, async |(user, body)| {
            put(&table, user, Some(body)).await
        })
        .await;
        assert!(all_items(&table).await.is_empty(), "nothing written");
        assert!(table.meter().requests().is_empty(), "nothing even sent");
    }
}
