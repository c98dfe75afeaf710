//! What a function reads from its environment, once, at start-up. Every function has the same
//! [`Deps`]; what it needs beyond the table it declares ([`Needs`]), so a missing setting stops
//! it at start-up, and the contract tests check the template gives each function what it
//! declares (and nothing it does not).

use crate::{StoreError, Table, commerce::StatusKeys, cursor::CursorCodec};

/// Beyond `TABLE_NAME`, what a function needs from its environment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Needs {
    /// `CURSOR_SIGNING_KEY` (and, during a rotation, `CURSOR_SIGNING_KEY_PREVIOUS`): the function
    /// pages.
    pub cursors: bool,
    /// `AGGREGATE_SHARDS`: the function writes or reads sharded counters.
    pub shards: bool,
    /// `ORDER_STATUS_SHARDS`: the function places orders on, or reads, O5's GSI2 shards.
    pub order_shards: bool,
    /// `ORDER_STATUS_KEYS`: the function reads C4 by status or O10, from the key design it
    /// names ([`StatusKeys`]).
    pub status_keys: bool,
}

impl Needs {
    /// The table only.
    pub const TABLE: Needs = Needs {
        cursors: false,
        shards: false,
        order_shards: false,
        status_keys: false,
    };
    pub const CURSORS: Needs = Needs {
        cursors: true,
        ..Needs::TABLE
    };
    pub const SHARDS: Needs = Needs {
        shards: true,
        ..Needs::TABLE
    };

    /// These needs and `ORDER_STATUS_SHARDS`.
    pub const fn with_order_shards(self) -> Needs {
        Needs {
            order_shards: true,
            ..self
        }
    }

    /// These needs and `ORDER_STATUS_KEYS`.
    pub const fn with_status_keys(self) -> Needs {
        Needs {
            status_keys: true,
            ..self
        }
    }

    /// The environment variables these needs name, `TABLE_NAME` first.
    pub fn variables(self) -> Vec<&'static str> {
        let mut v = vec!["TABLE_NAME"];
        if self.cursors {
            v.extend(["CURSOR_SIGNING_KEY", "CURSOR_SIGNING_KEY_PREVIOUS"]);
        }
        if self.shards {
            v.push("AGGREGATE_SHARDS");
        }
        if self.order_shards {
            v.push("ORDER_STATUS_SHARDS");
        }
        if self.status_keys {
            v.push("ORDER_STATUS_KEYS");
        }
        v
    }
}

/// A function's dependencies: the table, and what else it declared it needs.
#[derive(Debug, Clone)]
pub struct Deps {
    pub table: Table,
    cursors: Option<CursorCodec>,
    shards: Option<u32>,
    order_shards: Option<u32>,
    status_keys: Option<StatusKeys>,
}

impl Deps {
    /// Reads the environment for `needs`; anything missing or invalid is an error (the function
    /// does not start).
    pub async fn from_env(needs: Needs) -> Result<Deps, StoreError> {
        let table = Table::from_env().await?;
        crate::sdk::connect_at_init(&table).await;
        let cursors = needs.cursors.then(CursorCodec::from_env).transpose()?;
        let shards = needs
            .shards
            .then(|| count_from_env("AGGREGATE_SHARDS"))
            .transpose()?;
        let order_shards = needs
            .order_shards
            .then(|| count_from_env("ORDER_STATUS_SHARDS"))
            .transpose()?;
        let status_keys = needs
            .status_keys
            .then(|| match std::env::var("ORDER_STATUS_KEYS") {
                Ok(v) => StatusKeys::parse(&v),
                Err(_) => Err(StoreError::Config("ORDER_STATUS_KEYS is not set".into())),
            })
            .transpose()?;
        Ok(Deps {
            table,
            cursors,
            shards,
            order_shards,
            status_keys,
        })
    }

    /// Dependencies given directly (tests, tools): only what `needs` declares is set; O5's
    /// shards are the default count (see [`Deps::with_order_shards`]).
    pub fn new(
        table: Table,
        needs: Needs,
        cursor_key: &str,
        shards: u32,
    ) -> Result<Deps, StoreError> {
        Ok(Deps {
            table,
            cursors: needs
                .cursors
                .then(|| CursorCodec::new(cursor_key))
                .transpose()?,
            shards: needs
                .shards
                .then(|| check_count("AGGREGATE_SHARDS", shards))
                .transpose()?,
            order_shards: needs
                .order_shards
                .then_some(keys::commerce::DEFAULT_ORDER_STATUS_SHARDS),
            status_keys: needs.status_keys.then_some(StatusKeys::default()),
        })
    }

    /// These dependencies reading C4 by status and O10 from `keys` (tests, tools); only if
    /// declared.
    pub fn with_status_keys(mut self, keys: StatusKeys) -> Deps {
        if self.status_keys.is_some() {
            self.status_keys = Some(keys);
        }
        self
    }

    /// The key design C4 by status and O10 read; an error if the function did not declare it.
    pub fn status_keys(&self) -> Result<StatusKeys, StoreError> {
        self.status_keys.ok_or_else(|| {
            StoreError::Config("this function does not declare Needs::status_keys".into())
        })
    }

    /// These dependencies with `count` GSI2 shards for O5 (tests, tools); only if declared.
    pub fn with_order_shards(mut self, count: u32) -> Result<Deps, StoreError> {
        if self.order_shards.is_some() {
            self.order_shards = Some(check_count("ORDER_STATUS_SHARDS", count)?);
        }
        Ok(self)
    }

    /// The cursor codec; an error if the function did not declare that it pages.
    pub fn cursors(&self) -> Result<&CursorCodec, StoreError> {
        self.cursors.as_ref().ok_or_else(|| {
            StoreError::Config("this function does not declare Needs::cursors".into())
        })
    }

    /// Write shards per sharded counter; an error if the function did not declare it.
    pub fn shards(&self) -> Result<u32, StoreError> {
        self.shards.ok_or_else(|| {
            StoreError::Config("this function does not declare Needs::shards".into())
        })
    }

    /// O5's GSI2 shards; an error if the function did not declare it.
    pub fn order_shards(&self) -> Result<u32, StoreError> {
        self.order_shards.ok_or_else(|| {
            StoreError::Config("this function does not declare Needs::order_shards".into())
        })
    }
}

fn check_count(name: &str, n: u32) -> Result<u32, StoreError> {
    if (1..=keys::Shard::MAX_COUNT).contains(&n) {
        Ok(n)
    } else {
        Err(StoreError::Config(format!(
            "{name} must be 1..={}, not {n}",
            keys::Shard::MAX_COUNT
        )))
    }
}

/// A shard count from the environment: `AGGREGATE_SHARDS` (write shards of each sharded counter)
/// or `ORDER_STATUS_SHARDS` (O5's GSI2 shards).
fn count_from_env(name: &str) -> Result<u32, StoreError> {
    let raw = std::env::var(name).map_err(|_| StoreError::Config(format!("{name} is not set")))?;
    raw.parse::<u32>()
        .map_err(|_| StoreError::Config(format!("{name} is not a number: {raw:?}")))
        .and_then(|n| check_count(name, n))
}
