//! An order's status: the projection of its newest tracking event (the stream's), and C4 by status
//! and O10 read in either key design ([`ByStatus`]).

use keys::{
    Date, Gsi1, Id, IndexCondition, KeyCondition, KeyError,
    commerce::{self as k, EventId, OrderId, OrderStatus},
};
use model::{
    Item,
    commerce::{Order, OrderHeader},
    s,
};

use store::{
    Condition, Deps, Setting, StoreError, Table, Update,
    merge::{Direction, MergeKey, Position, Positions, merged_page_by},
};

/// What a page of orders may spend: a page's read budget, at [`Order::LARGEST_BYTES`] an order.
const ORDER_PAGE: store::Budget = store::Budget {
    units: store::PAGE_READ_BUDGET,
    largest: Order::LARGEST_BYTES,
};

// ---------------------------------------------------------------------------------------------
// Derived: an order's current status, from its newest tracking event

/// Sets the order's status on its header (and its status keys: GSI2 for O5, GSI1 for C4 by
/// status unless `keys` is the multi-attribute design, whose indexes key on `Status` itself)
/// and on its summary in the customer's collection (and its rep's GSI1 key, O10, likewise),
/// unless a newer event was applied already: each write is conditioned on
/// `LastEventId <= event`, so events applied out of order, twice, or after a crash between the two
/// writes all end with the newest event's status. Returns false when a newer event (or no order)
/// was found.
pub async fn apply_order_status(
    table: &Table,
    keys: StatusKeys,
    order: OrderId,
    event: EventId,
    status: OrderStatus,
) -> Result<bool, StoreError> {
    let not_newer = || {
        Condition::Exists.and(Condition::AttributeAbsent(Order::LAST_EVENT_ID).or(
            Condition::AtMost(Order::LAST_EVENT_ID, s(event.to_string())),
        ))
    };
    let update = Update::new()
        .set(Order::STATUS, s(status.as_str()))
        .set(Order::LAST_EVENT_ID, s(event.to_string()));
    let gsi1 = |update: Update| match keys.writes_gsi1() {
        true => update.set(keys::attr::GSI1SK, s(k::status_sort_key(status, order))),
        false => update,
    };
    let header = match table
        .update(
            &k::order_header(order),
            // The partition keys (GSI1: the customer, GSI2: the shard) were written with the
            // order and never change; the status is in the sort keys.
            &gsi1(update.clone()).set(keys::attr::GSI2SK, s(k::status_sort_key(status, order))),
            Some(not_newer()),
        )
        .await
    {
        Ok(item) => model::from_item::<OrderHeader>(item)?,
        Err(StoreError::ConditionFailed) => return Ok(false),
        Err(e) => return Err(e),
    };
    let o = &header.0;
    // In the rep's GSI1 partition only if placed under a rep (GSI1PK written with the order).
    let update = if o.account_rep_id.is_some() {
        gsi1(update)
    } else {
        update
    };
    match table
        .update(
            &k::order_summary(&o.customer_id, order),
            &update,
            Some(not_newer()),
        )
        .await
    {
        Ok(_) => Ok(true),
        Err(StoreError::ConditionFailed) => Ok(false),
        Err(e) => Err(e),
    }
}

// ---------------------------------------------------------------------------------------------
// C4 by status and O10, in either key design

/// The key design of C4 by status and O10 in a deployment (the functions' `ORDER_STATUS_KEYS`,
/// the template parameter `OrderStatusKeys`, whose conditions create the indexes to match):
/// GSI1's concatenated `<STATUS>#<orderId>` keys, what the seeds teach and what existing tables
/// have (the default), or the multi-attribute indexes `CustomerOrdersByStatus` and
/// `RepOrdersByStatus`, and the two steps of a move from the first to the second
/// (docs/key-designs.md#moving-an-index-online).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StatusKeys {
    /// GSI1 only: writers write GSI1's keys on headers and summaries, readers read GSI1.
    #[default]
    Concatenated,
    /// The table gains `CustomerOrdersByStatus` (CloudFormation adds one index per update);
    /// readers and writers as [`StatusKeys::Concatenated`].
    Moving1,
    /// The table gains `RepOrdersByStatus`; writers still write GSI1's keys, readers read an
    /// index once they have seen it `ACTIVE` (the only design that asks DescribeTable), GSI1
    /// until then.
    Moving2,
    /// Both indexes, and no GSI1 keys on headers and summaries: readers read the indexes.
    MultiAttribute,
}

/// What serves one page of C4 by status or O10.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Design {
    /// GSI1's `<STATUS>#<orderId>` keys.
    Concatenated,
    /// `CustomerOrdersByStatus` or `RepOrdersByStatus`.
    MultiAttribute,
}

impl Design {
    pub const ALL: [Design; 2] = [Design::Concatenated, Design::MultiAttribute];
}

/// `ORDER_STATUS_SHARDS`: O5's GSI2 shards, a setting of the functions that place orders on them
/// or read them: read and checked at start-up, the default count in tests and tools.
pub const ORDER_STATUS_SHARDS: Setting = Setting {
    variable: "ORDER_STATUS_SHARDS",
    default: || k::DEFAULT_ORDER_STATUS_SHARDS.to_string(),
    check: |v| store::shard_count(ORDER_STATUS_SHARDS.variable, v).map(|_| ()),
};

/// O5's GSI2 shards `deps` read at start-up ([`ORDER_STATUS_SHARDS`]); an error if the function
/// did not declare them.
pub fn order_shards(deps: &Deps) -> Result<u32, StoreError> {
    store::shard_count(
        ORDER_STATUS_SHARDS.variable,
        deps.setting(&ORDER_STATUS_SHARDS)?,
    )
}

/// `ORDER_STATUS_KEYS`: the key design of C4 by status and O10 ([`StatusKeys`]), a setting of
/// the functions that read those lists or write the orders in them: read and checked at
/// start-up (a missing or unknown design stops the function), `concatenated` in tests and
/// tools unless they say otherwise.
pub const ORDER_STATUS_KEYS: Setting = Setting {
    variable: "ORDER_STATUS_KEYS",
    default: || StatusKeys::default().as_str().to_owned(),
    check: |v| StatusKeys::parse(v).map(|_| ()),
};

impl StatusKeys {
    /// The template parameter whose value the functions' `ORDER_STATUS_KEYS` is.
    pub const PARAMETER: &'static str = "OrderStatusKeys";

    pub const ALL: [StatusKeys; 4] = [
        StatusKeys::Concatenated,
        StatusKeys::Moving1,
        StatusKeys::Moving2,
        StatusKeys::MultiAttribute,
    ];

    /// The design `deps` read at start-up ([`ORDER_STATUS_KEYS`]); an error if the function did
    /// not declare it.
    pub fn of(deps: &Deps) -> Result<StatusKeys, StoreError> {
        StatusKeys::parse(deps.setting(&ORDER_STATUS_KEYS)?)
    }

    /// The design of the process's `ORDER_STATUS_KEYS` (the default when unset): how the seed
    /// loaders write orders into the local stack's table, whose `OrderStatusKeys` the Makefile
    /// passes them.
    pub fn from_env() -> Result<StatusKeys, StoreError> {
        match std::env::var(ORDER_STATUS_KEYS.variable) {
            Ok(v) => StatusKeys::parse(&v),
            Err(_) => Ok(StatusKeys::default()),
        }
    }

    /// The deployment reading only `design`: what a test or a tool asks to read one design.
    pub fn only(design: Design) -> StatusKeys {
        match design {
            Design::Concatenated => StatusKeys::Concatenated,
            Design::MultiAttribute => StatusKeys::MultiAttribute,
        }
    }

    /// The template parameter's value.
    pub fn as_str(self) -> &'static str {
        match self {
            StatusKeys::Concatenated => "concatenated",
            StatusKeys::Moving1 => "moving-1",
            StatusKeys::Moving2 => "moving-2",
            StatusKeys::MultiAttribute => "multi-attribute",
        }
    }

    pub fn parse(s: &str) -> Result<StatusKeys, StoreError> {
        StatusKeys::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| {
                let all: Vec<_> = StatusKeys::ALL.iter().map(|k| k.as_str()).collect();
                StoreError::Config(format!(
                    "ORDER_STATUS_KEYS must be one of {}, not {s:?}",
                    all.join(", ")
                ))
            })
    }

    /// The multi-attribute indexes a table of this design has: what the template's conditions
    /// create for the parameter's value (a contract test holds the two equal).
    pub fn indexes(self) -> &'static [&'static str] {
        use keys::{
            Index,
            indexes::{CustomerOrdersByStatus, RepOrdersByStatus},
        };
        const BOTH: [&str; 2] = [CustomerOrdersByStatus::NAME, RepOrdersByStatus::NAME];
        match self {
            StatusKeys::Concatenated => &[],
            StatusKeys::Moving1 => &BOTH[..1],
            StatusKeys::Moving2 | StatusKeys::MultiAttribute => &BOTH,
        }
    }

    /// Whether writers give order headers and summaries GSI1's status keys: in every design
    /// until the move's last step, so that no reader of GSI1 misses an order.
    pub fn writes_gsi1(self) -> bool {
        self != StatusKeys::MultiAttribute
    }
}

/// One page of orders by status, and the design that served it.
#[derive(Debug)]
pub struct StatusPage {
    pub items: Vec<Item>,
    /// DynamoDB's `LastEvaluatedKey`: a position either design continues from.
    pub last_key: Option<Item>,
    pub served_by: Design,
}

/// C4 by status, or O10 for one status: the same orders in both key designs, newest first. A
/// position (a page's `LastEvaluatedKey`) is the order's table key and id under the query's
/// owner and status, so a walk begun in one design continues in the other: a reader switched
/// between two pages of a client's walk, or falling back, neither fails nor skips.
#[derive(Debug, Clone)]
pub struct ByStatus {
    status: OrderStatus,
    concatenated: KeyCondition<Gsi1>,
    multi: IndexCondition,
}

impl ByStatus {
    /// C4 by status: the customer's order headers in `status` placed on the dates `from..=to`.
    pub fn customer(
        customer: &Id,
        status: OrderStatus,
        from: Date,
        to: Date,
    ) -> Result<ByStatus, KeyError> {
        Ok(ByStatus {
            status,
            concatenated: k::customer_orders_in_status(customer, status, from, to)?,
            multi: k::customer_orders_by_status(customer, status, from, to)?,
        })
    }

    /// O10, one status: the rep's order summaries in `status` placed on the dates `from..=to`.
    pub fn rep(rep: &Id, status: OrderStatus, from: Date, to: Date) -> Result<ByStatus, KeyError> {
        Ok(ByStatus {
            status,
            concatenated: k::rep_orders_in_status(rep, status, from, to)?,
            multi: k::rep_orders_by_status(rep, status, from, to)?,
        })
    }

    /// The multi-attribute condition (the store-level query of the design the API does not use).
    pub fn multi(&self) -> &IndexCondition {
        &self.multi
    }

    pub fn concatenated(&self) -> &KeyCondition<Gsi1> {
        &self.concatenated
    }

    /// The `ExclusiveStartKey` in `design` of a position written by either design.
    fn start_in(&self, design: Design, position: &Item) -> Result<Item, StoreError> {
        let text = |name: &str| {
            position
                .get(name)
                .and_then(|v| v.as_s().ok())
                .map(String::as_str)
        };
        let order = text(Order::ORDER_ID)
            .or_else(|| text(keys::attr::GSI1SK).and_then(|sk| sk.rsplit_once('#').map(|p| p.1)))
            .and_then(|id| OrderId::parse(id).ok())
            .ok_or_else(|| StoreError::Corrupt("a position without its order".into()))?;
        let mut start: Item = [keys::attr::PK, keys::attr::SK]
            .into_iter()
            .filter_map(|n| position.get(n).map(|v| (n.to_owned(), v.clone())))
            .collect();
        match design {
            Design::Concatenated => {
                start.insert(keys::attr::GSI1PK.into(), s(self.concatenated.pk()));
                start.insert(
                    keys::attr::GSI1SK.into(),
                    s(k::status_sort_key(self.status, order)),
                );
            }
            Design::MultiAttribute => {
                for (name, value) in self.multi.partition() {
                    start.insert((*name).to_owned(), model::key_value(value));
                }
                start.insert(Order::STATUS.into(), s(self.status.as_str()));
                start.insert(Order::ORDER_ID.into(), s(order.to_string()));
            }
        }
        Ok(start)
    }

    /// One page, newest first: at most `limit` orders after `start` (a position of either
    /// design), from the design `keys` reads ([`Design::of`]), within the read budget at
    /// [`Order::LARGEST_BYTES`] an order.
    pub async fn page(
        &self,
        table: &Table,
        keys: StatusKeys,
        limit: u32,
        start: Option<&Item>,
    ) -> Result<StatusPage, StoreError> {
        let design = Design::of(keys, table, self.multi.index().name).await;
        let page = match design {
            Design::MultiAttribute => {
                let query = table.query(self.multi.clone()).backwards();
                let from = start.map(|p| self.start_in(design, p)).transpose()?;
                store::read_within(query, limit, from, ORDER_PAGE).await?
            }
            Design::Concatenated => {
                let query = table.query(self.concatenated.clone()).backwards();
                let from = start.map(|p| self.start_in(design, p)).transpose()?;
                store::read_within(query, limit, from, ORDER_PAGE).await?
            }
        };
        Ok(StatusPage {
            items: page.items,
            last_key: page.last_key,
            served_by: design,
        })
    }
}

/// O10 without a status: the rep's orders in every status, one stream per status merged newest
/// first by order id ([`store::merge`]), in either key design; a position (every stream's) is
/// carried across designs as [`ByStatus`] carries one.
#[derive(Debug, Clone)]
pub struct RepOrders(Vec<ByStatus>);

impl RepOrders {
    pub fn new(rep: &Id, from: Date, to: Date) -> Result<RepOrders, KeyError> {
        OrderStatus::ALL
            .into_iter()
            .map(|status| ByStatus::rep(rep, status, from, to))
            .collect::<Result<_, _>>()
            .map(RepOrders)
    }

    /// Every stream's position, from `start` (a merged position of either design), in `design`.
    fn positions(&self, design: Design, start: Option<&Item>) -> Result<Positions, StoreError> {
        let Some(flat) = start else {
            return Ok(Positions::start(self.0.len()));
        };
        let positions = Positions::from_item(flat, self.0.len())
            .ok_or_else(|| StoreError::Corrupt("a merged position of other streams".into()))?;
        positions
            .0
            .into_iter()
            .zip(&self.0)
            .map(|(p, stream)| match p {
                Position::After(key) => stream.start_in(design, &key).map(Position::After),
                other => Ok(other),
            })
            .collect::<Result<_, _>>()
            .map(Positions)
    }

    /// One page, newest first, from the design `keys` reads (as [`ByStatus::page`] chooses);
    /// `last_key` is every stream's position, flat ([`Positions::to_item`]).
    pub async fn page(
        &self,
        table: &Table,
        keys: StatusKeys,
        limit: u32,
        start: Option<&Item>,
    ) -> Result<StatusPage, StoreError> {
        let design = Design::of(keys, table, self.0[0].multi.index().name).await;
        let from = self.positions(design, start)?;
        // Merged by order id, newest first, within a page's budget at the largest order.
        async fn merged<C: store::merge::Stream>(
            table: &Table,
            streams: Vec<C>,
            from: Positions,
            limit: u32,
        ) -> Result<store::merge::MergedPage, StoreError> {
            let by = MergeKey::Attribute(Order::ORDER_ID);
            let budget = Some(ORDER_PAGE);
            merged_page_by(
                table,
                streams,
                from,
                limit,
                Direction::Descending,
                by,
                budget,
            )
            .await
        }
        let merged = match design {
            Design::MultiAttribute => {
                let streams = self.0.iter().map(|s| s.multi.clone()).collect();
                merged(table, streams, from, limit).await?
            }
            Design::Concatenated => {
                let streams = self.0.iter().map(|s| s.concatenated.clone()).collect();
                merged(table, streams, from, limit).await?
            }
        };
        Ok(StatusPage {
            items: merged.items,
            last_key: merged.next.map(|p| p.to_item()),
            served_by: design,
        })
    }
}

/// C4 by status or O10 with a status ([`ByStatus`]), or O10 without one ([`RepOrders`]).
#[derive(Debug, Clone)]
pub enum StatusRead {
    One(ByStatus),
    Every(RepOrders),
}

impl StatusRead {
    /// One page ([`ByStatus::page`], [`RepOrders::page`]).
    pub async fn page(
        &self,
        table: &Table,
        keys: StatusKeys,
        limit: u32,
        start: Option<&Item>,
    ) -> Result<StatusPage, StoreError> {
        match self {
            StatusRead::One(r) => r.page(table, keys, limit, start).await,
            StatusRead::Every(r) => r.page(table, keys, limit, start).await,
        }
    }
}

/// How long a reader trusts an index's not being `ACTIVE` before it asks DynamoDB again.
const INDEX_RECHECK: std::time::Duration = std::time::Duration::from_secs(5);

/// What this process knows of a multi-attribute index, per table.
#[derive(Debug, Clone, Copy)]
enum Seen {
    Active,
    /// Not `ACTIVE` when asked; ask again from then on.
    NotBefore(std::time::Instant),
}

static INDEXES_SEEN: std::sync::LazyLock<
    std::sync::Mutex<std::collections::BTreeMap<(String, &'static str), Seen>>,
> = std::sync::LazyLock::new(Default::default);

impl Design {
    /// The design a reader of `keys` reads `index`'s list from: the one it names, except
    /// [`StatusKeys::Moving2`]'s, which reads the index once this process has seen it `ACTIVE`
    /// ([`index_active`]) and GSI1 until then. No other design asks DynamoDB anything.
    pub async fn of(keys: StatusKeys, table: &Table, index: &'static str) -> Design {
        match keys {
            StatusKeys::Concatenated | StatusKeys::Moving1 => Design::Concatenated,
            StatusKeys::Moving2 if index_active(table, index).await => Design::MultiAttribute,
            StatusKeys::Moving2 => Design::Concatenated,
            StatusKeys::MultiAttribute => Design::MultiAttribute,
        }
    }
}

/// Whether `index` of `table` is `ACTIVE`: one DescribeTable per process (a Lambda's container)
/// once it is, one at most every [`INDEX_RECHECK`] until then; only during a move
/// ([`StatusKeys::Moving2`]: CloudFormation creates an index without waiting for its
/// backfill). DynamoDB refuses a Query of an index it is still backfilling, and DynamoDB Local
/// answers it from the part it has filled (a partial list: seen on the large seed), so a reader
/// does not wait for a refusal: it reads an index only once it has seen it `ACTIVE`. A
/// DescribeTable that fails counts as not `ACTIVE`.
async fn index_active(table: &Table, index: &'static str) -> bool {
    let key = (table.name().to_owned(), index);
    let seen = INDEXES_SEEN.lock().ok().and_then(|s| s.get(&key).copied());
    match seen {
        Some(Seen::Active) => return true,
        Some(Seen::NotBefore(t)) if std::time::Instant::now() < t => return false,
        _ => {}
    }
    let described = store::deadline::bounded(
        table
            .client()
            .describe_table()
            .table_name(table.name())
            .send(),
    )
    .await;
    let active = described.ok().and_then(|d| d.table).is_some_and(|t| {
        t.global_secondary_indexes().iter().any(|i| {
            i.index_name() == Some(index)
                && i.index_status() == Some(&store::aws_sdk_dynamodb::types::IndexStatus::Active)
        })
    });
    let now = if active {
        Seen::Active
    } else {
        Seen::NotBefore(std::time::Instant::now() + INDEX_RECHECK)
    };
    if let Ok(mut s) = INDEXES_SEEN.lock() {
        s.insert(key, now);
    }
    active
}
