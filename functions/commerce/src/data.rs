//! Commerce's reads and writes of the table, shared by its functions, the seed loader and the
//! tests, one module per aggregate: [`customers`] (C2), [`orders`] (C3, C6), [`status`] (the
//! order-status projection, and C4 by status and O10 in either key design), [`carts`] (C7) and
//! [`products`] (products and inventories, O8 in either index design). Other reads are declared
//! in the function that serves them. The writes only seeds and tests make are
//! [`crate::fixtures`]'.
//!
//! `data`, not `store`: `store` is the mechanism crate this module is written with (`Table`,
//! transactions, paging); `data` is what this context keeps in the one table. Every context names
//! it so.

pub mod carts;
pub mod customers;
pub mod orders;
pub mod products;
pub mod status;

pub use carts::*;
pub use customers::*;
pub use orders::*;
pub use status::*;

#[cfg(test)]
mod tests {
    //! DynamoDB Local never raises TransactionConflict, so the retry path is tested with the SDK's
    //! own mocking (aws-smithy-mocks): the client below answers from rules, not from a database.
    use super::*;
    use crate::fixtures::place_order;
    use aws_sdk_dynamodb::{
        Client,
        operation::{get_item::GetItemOutput, transact_write_items::TransactWriteItemsOutput},
    };
    use aws_smithy_mocks::{Rule, mock, mock_client};
    use keys::{Id, Timestamp, commerce as k};
    use model::commerce::Customer;
    use store::{StoreError, Table};

    /// The largest customer (64-character ids, a name and an email of the most characters of 4
    /// bytes, the largest totals, a rep) with the marks of `MARKED_LANES` stream shards is at most
    /// `LARGEST_CUSTOMER_BYTES`, within 1 KB of it; the largest `RepSales` with its ranking key at
    /// most `LARGEST_REP_SALES_BYTES`, within half of it.
    #[test]
    fn the_largest_customer_and_rep_sales_are_within_their_bounds() {
        let long = |c: &str| Id::parse("id", &c.repeat(keys::MAX_ID_LEN)).unwrap();
        let widest = api::function::widest_text;
        let customer = Customer {
            customer_id: long("c"),
            name: widest(Customer::MAX_NAME_CHARS),
            email: widest(Customer::MAX_EMAIL_CHARS),
            created_at: keys::Timestamp::from_ms(1_795_860_000_000).unwrap(),
            updated_at: keys::Timestamp::from_ms(1_795_860_000_000).unwrap(),
            order_count: i64::MAX.into(),
            lifetime_value: i64::MAX.into(),
            account_rep_id: Some(long("r")),
        };
        let mut item = model::to_item(&customer).unwrap();
        item.extend(store::aggregate::sample_marks(MARKED_LANES));
        let size = testkit::item_size(&item);
        let largest = LARGEST_CUSTOMER_BYTES as usize;
        assert!(size <= largest && size + 1024 > largest, "{size} bytes");

        let period = keys::Quarter::parse("2026-Q4").unwrap();
        let sales = model::commerce::RepSales {
            period,
            rep_id: long("r"),
            total: i64::MAX.into(),
            order_count: i64::MAX.into(),
        };
        let mut item = model::to_item(&sales).unwrap();
        let ranked = k::rep_ranking_index(period, i64::MAX as u64, &long("r")).unwrap();
        item.extend(model::key_item(&ranked));
        let size = testkit::item_size(&item);
        let largest = LARGEST_REP_SALES_BYTES as usize;
        assert!(size <= largest && size * 2 > largest, "{size} bytes");
    }

    /// GetItem answers: the customer (without a rep) is there.
    fn customer_found() -> Rule {
        mock!(Client::get_item).then_output(customer_found_item)
    }

    fn customer_found_item() -> GetItemOutput {
        {
            let customer = Customer {
                customer_id: Id::parse("c", "1").unwrap(),
                name: "Ann".into(),
                email: "ann@example.com".into(),
                created_at: Timestamp::parse("2020-01-01T00:00:00.000Z").unwrap(),
                updated_at: Timestamp::parse("2020-01-01T00:00:00.000Z").unwrap(),
                order_count: Default::default(),
                lifetime_value: Default::default(),
                account_rep_id: None,
            };
            GetItemOutput::builder()
                .set_item(Some(model::to_item(&customer).unwrap()))
                .build()
        }
    }

    use store::TRANSACTION_ATTEMPTS;
    use testkit::cancelled;

    fn order() -> NewOrder {
        NewOrder {
            customer: Id::parse("c", "1").unwrap(),
            order_id: keys::SortableId::new(),
            created_at: Timestamp::parse("2020-01-01T00:00:00.000Z").unwrap(),
            lines: vec![(k::Sku::new(1).unwrap(), 1, 1)],
            design: Default::default(),
        }
    }

    #[tokio::test]
    async fn a_transaction_cancelled_by_conflicts_is_retried_until_it_goes_through() {
        let conflict = ["None", "None", "TransactionConflict", "None"];
        let rule = mock!(Client::transact_write_items)
            .sequence()
            .error(move || cancelled(&conflict))
            .times(2)
            .output(|| TransactWriteItemsOutput::builder().build())
            .build();
        let found = customer_found();
        let table = mocked(&[&found, &rule]);
        assert_eq!(
            place_order(&table, &order(), None).await.unwrap(),
            PlaceOutcome::Placed
        );
        assert_eq!(rule.num_calls(), 3);
        assert_eq!(found.num_calls(), 1, "the customer is read once");
    }

    /// A table whose client answers from `rules` (any order).
    fn mocked(rules: &[&Rule]) -> Table {
        Table::new(
            mock_client!(
                aws_sdk_dynamodb,
                aws_smithy_mocks::RuleMode::MatchAny,
                rules
            ),
            "t",
        )
    }

    /// Every token the rule's requests carried, in order.
    type Tokens = std::sync::Arc<std::sync::Mutex<Vec<Option<String>>>>;

    fn recording(
        tokens: &Tokens,
    ) -> impl Fn(&aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput) -> bool
    + Send
    + Sync
    + 'static {
        let tokens = tokens.clone();
        move |input| {
            tokens
                .lock()
                .unwrap()
                .push(input.client_request_token().map(str::to_owned));
            true
        }
    }

    /// A commit whose answer was lost (here a 500 after it; on AWS a timeout too) is sent again
    /// with the same ClientRequestToken, so DynamoDB answers it with success instead of
    /// cancelling a second application on the order's `attribute_not_exists`: neither a 500 nor
    /// a second order. A cancelled attempt wrote nothing: its successor has a token of its own.
    #[tokio::test]
    async fn an_attempt_whose_answer_was_lost_is_sent_again_with_the_same_token() {
        use aws_sdk_dynamodb::{
            operation::transact_write_items::TransactWriteItemsError,
            types::error::InternalServerError,
        };
        let tokens = Tokens::default();
        let rule = mock!(Client::transact_write_items)
            .match_requests(recording(&tokens))
            .sequence()
            .error(|| {
                TransactWriteItemsError::InternalServerError(
                    InternalServerError::builder()
                        .message("answer lost")
                        .build(),
                )
            })
            .error(|| cancelled(&["None", "None", "TransactionConflict", "None"]))
            .output(|| TransactWriteItemsOutput::builder().build())
            .build();
        let found = customer_found();
        let table = mocked(&[&found, &rule]);
        assert_eq!(
            place_order(&table, &order(), None).await.unwrap(),
            PlaceOutcome::Placed
        );
        let tokens = tokens.lock().unwrap().clone();
        assert_eq!(tokens.len(), 3, "{tokens:?}");
        assert!(
            tokens
                .iter()
                .all(|t| t.as_ref().is_some_and(|t| (1..=36).contains(&t.len())))
        );
        assert_eq!(
            tokens[0], tokens[1],
            "the lost answer's retry: the same token"
        );
        assert_ne!(tokens[1], tokens[2], "after a cancellation: a new request");

        // Under an idempotency key the token is derived from it (and the order): the same
        // inputs, the same token.
        let idem = IdempotencyKey {
            key: Id::parse("k", "key-1").unwrap(),
            request_hash: "h".into(),
            response: "{}".into(),
            expires_at: 0,
        };
        let order = order();
        let mut seen = Vec::new();
        for _ in 0..2 {
            let tokens = Tokens::default();
            let rule = mock!(Client::transact_write_items)
                .match_requests(recording(&tokens))
                .then_output(|| TransactWriteItemsOutput::builder().build());
            let found = customer_found();
            let table = mocked(&[&found, &rule]);
            place_order(&table, &order, Some(&idem)).await.unwrap();
            seen.push(tokens.lock().unwrap()[0].clone().unwrap());
        }
        assert_eq!(seen[0], seen[1]);
    }

    /// BatchGetItem answers: product 1 at `cents` USD.
    fn product_at(cents: i64) -> aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput {
        let product = model::commerce::Product {
            sku: k::Sku::new(1).unwrap(),
            name: "Tea".into(),
            description: None,
            created_at: Timestamp::parse("2020-01-01T00:00:00.000Z").unwrap(),
            updated_at: Timestamp::parse("2020-01-01T00:00:00.000Z").unwrap(),
            price: Some(cents),
            currency: Some("USD".into()),
            total_inventory: Default::default(),
        };
        aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput::builder()
            .responses("t", vec![model::to_item(&product).unwrap()])
            .build()
    }

    fn request() -> OrderRequest {
        OrderRequest {
            customer: Id::parse("c", "1").unwrap(),
            order_id: keys::SortableId::new(),
            created_at: Timestamp::parse("2020-01-01T00:00:00.000Z").unwrap(),
            items: vec![(k::Sku::new(1).unwrap(), 2)],
            design: Default::default(),
        }
    }

    /// A price changed between the order's read and its write fails the product's check in the
    /// order's transaction (DynamoDB Local cannot interleave a write there, so a mock answers):
    /// nothing is written, and the order priced again is at the new price, never at a price the
    /// catalogue no longer has. (place-order prices it again at most `PRICE_ATTEMPTS` times.)
    #[tokio::test]
    async fn a_price_changed_under_the_order_is_refused_and_priced_again() {
        // customer check, summary, header, the line, then the line's price check.
        let price_check_failed = ["None", "None", "None", "None", "ConditionalCheckFailed"];
        let tx = mock!(Client::transact_write_items)
            .sequence()
            .error(move || cancelled(&price_check_failed))
            .output(|| TransactWriteItemsOutput::builder().build())
            .build();
        let prices = mock!(Client::batch_get_item)
            .sequence()
            .output(|| product_at(100))
            .output(|| product_at(120))
            .build();
        let found = customer_found();
        let table = mocked(&[&found, &prices, &tx]);
        let priced = price_order(&table, &request()).await.unwrap().unwrap();
        assert_eq!(priced.order.lines[0].2, 100);
        assert_eq!(
            place_priced(&table, &priced, None).await.unwrap(),
            PlaceOutcome::PriceChanged(k::Sku::new(1).unwrap())
        );
        let priced = price_order(&table, &request()).await.unwrap().unwrap();
        assert_eq!(priced.order.lines[0].2, 120, "the price read again");
        assert_eq!(priced.order.total(), 240);
        assert_eq!(
            place_priced(&table, &priced, None).await.unwrap(),
            PlaceOutcome::Placed
        );
        assert_eq!((tx.num_calls(), prices.num_calls()), (2, 2));
    }

    /// place-order prices an order again while a price keeps changing under it, at most
    /// `PRICE_ATTEMPTS` times, then refuses it: 409 `price_changed`, nothing written.
    #[tokio::test]
    async fn place_order_refuses_a_price_that_keeps_changing() {
        let price_check_failed = ["None", "None", "None", "None", "ConditionalCheckFailed"];
        let tx =
            mock!(Client::transact_write_items).then_error(move || cancelled(&price_check_failed));
        let prices = mock!(Client::batch_get_item).then_output(|| product_at(100));
        let found = customer_found();
        let table = mocked(&[&found, &prices, &tx]);
        let h = testkit::Harness::new(
            &crate::place_order::FUNCTION,
            crate::place_order::handle,
            table,
        );
        let (status, body) = h
            .post(
                "/customers/1/orders",
                r#"{"items": [{"sku": 1, "quantity": 2}]}"#,
            )
            .await;
        assert_eq!(
            (status, body["code"].as_str()),
            (409, Some("price_changed")),
            "{body}"
        );
        let attempts = PRICE_ATTEMPTS as usize;
        assert_eq!((tx.num_calls(), prices.num_calls()), (attempts, attempts));
    }

    #[tokio::test]
    async fn persistent_conflict_is_a_busy_answer_and_a_failed_condition_is_not_retried() {
        let rule = mock!(Client::transact_write_items)
            .then_error(|| cancelled(&["None", "TransactionConflict", "None", "None"]));
        let found = customer_found();
        let table = mocked(&[&found, &rule]);
        assert!(matches!(
            place_order(&table, &order(), None).await,
            Err(StoreError::Throttled(_))
        ));
        assert_eq!(rule.num_calls(), TRANSACTION_ATTEMPTS as usize);

        // The customer's condition failed (gone, or its rep changed): it is read again, and
        // found gone this time; the transaction is not sent again.
        let rule = mock!(Client::transact_write_items)
            .then_error(|| cancelled(&["ConditionalCheckFailed", "None", "None", "None"]));
        let found_then_gone = mock!(Client::get_item)
            .sequence()
            .output(customer_found_item)
            .output(|| GetItemOutput::builder().build())
            .build();
        let table = mocked(&[&found_then_gone, &rule]);
        assert_eq!(
            place_order(&table, &order(), None).await.unwrap(),
            PlaceOutcome::CustomerNotFound
        );
        assert_eq!(rule.num_calls(), 1);
        assert_eq!(found_then_gone.num_calls(), 2);
    }
}
