//! What a function reads from its environment, once, at start-up. Every function has the same
//! [`Deps`]; what it needs beyond the table it declares ([`Needs`]), so a missing setting stops
//! it at start-up, and the contract tests check the template gives each function what it
//! declares (and nothing it does not).

use crate::{StoreError, Table, cursor::CursorCodec};

/// Beyond `TABLE_NAME`, what a function needs from its environment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Needs {
    /// `CURSOR_SIGNING_KEY` (and, during a rotation, `CURSOR_SIGNING_KEY_PREVIOUS`): the function
    /// pages.
    pub cursors: bool,
    /// `AGGREGATE_SHARDS`: the function writes or reads sharded counters.
    pub shards: bool,
}

impl Needs {
    /// The table only.
    pub const TABLE: Needs = Needs {
        cursors: false,
        shards: false,
    };
    pub const CURSORS: Needs = Needs {
        cursors: true,
        shards: false,
    };
    pub const SHARDS: Needs = Needs {
        cursors: false,
        shards: true,
    };

    /// The environment variables these needs name, `TABLE_NAME` first.
    pub fn variables(self) -> Vec<&'static str> {
        let mut v = vec!["TABLE_NAME"];
        if self.cursors {
            v.extend(["CURSOR_SIGNING_KEY", "CURSOR_SIGNING_KEY_PREVIOUS"]);
        }
        if self.shards {
            v.push("AGGREGATE_SHARDS");
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
}

impl Deps {
    /// Reads the environment for `needs`; anything missing or invalid is an error (the function
    /// does not start).
    pub async fn from_env(needs: Needs) -> Result<Deps, StoreError> {
        let table = Table::from_env().await?;
        let cursors = needs.cursors.then(CursorCodec::from_env).transpose()?;
        let shards = needs.shards.then(shards_from_env).transpose()?;
        Ok(Deps {
            table,
            cursors,
            shards,
        })
    }

    /// Dependencies given directly (tests, tools): only what `needs` declares is set.
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
            shards: needs.shards.then(|| check_shards(shards)).transpose()?,
        })
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
}

fn check_shards(n: u32) -> Result<u32, StoreError> {
    if (1..=keys::Shard::MAX_COUNT).contains(&n) {
        Ok(n)
    } else {
        Err(StoreError::Config(format!(
            "AGGREGATE_SHARDS must be 1..={}, not {n}",
            keys::Shard::MAX_COUNT
        )))
    }
}

/// `AGGREGATE_SHARDS`: how many write shards each sharded counter has.
fn shards_from_env() -> Result<u32, StoreError> {
    let raw = std::env::var("AGGREGATE_SHARDS")
        .map_err(|_| StoreError::Config("AGGREGATE_SHARDS is not set".into()))?;
    raw.parse::<u32>()
        .map_err(|_| StoreError::Config(format!("AGGREGATE_SHARDS is not a number: {raw:?}")))
        .and_then(check_shards)
}
