//! What a function reads from its environment, once, at start-up. Every function has the same
//! [`Deps`]; what it needs beyond the table it declares ([`Needs`]), so a missing setting stops
//! it at start-up, and the contract tests check the template gives each function what it
//! declares (and nothing it does not). A setting of one context's own (commerce's key design,
//! `ORDER_STATUS_KEYS`, and O5's shards, `ORDER_STATUS_SHARDS`) is a [`Setting`] that context
//! declares: read and checked here at start-up like the rest, parsed by the context that reads it.

use keys::indexes::IndexDesign;

use crate::{StoreError, Table, cursor::CursorCodec};

/// A setting a context reads from the environment beyond the table's: its variable, the value
/// tests and tools get unless they say otherwise, and the check a value must pass for the
/// function to start (its error is the function's start-up error).
#[derive(Debug, Clone, Copy)]
pub struct Setting {
    pub variable: &'static str,
    pub default: fn() -> String,
    pub check: fn(&str) -> Result<(), StoreError>,
}

/// A variable names one setting.
impl PartialEq for Setting {
    fn eq(&self, other: &Setting) -> bool {
        self.variable == other.variable
    }
}

impl Eq for Setting {}

/// Another context's table a function reaches: a crossing between contexts, declared by the
/// function that makes it (docs/one-table-or-many.md lists them). With `TableLayout` one-table
/// its variable names the function's own table; with table-per-context, the other context's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer {
    pub variable: &'static str,
    /// The context whose table it is (`keys`' context names).
    pub context: &'static str,
}

/// HR's table: commerce checks an account rep (an employee) and a warehouse (reference data).
pub const HR_TABLE: Peer = Peer {
    variable: "HR_TABLE_NAME",
    context: "hr",
};

/// Reviews' table: the reviews' share of the site-wide daily counts, which its consumer writes.
pub const REVIEWS_TABLE: Peer = Peer {
    variable: "REVIEWS_TABLE_NAME",
    context: "reviews",
};

/// `INDEX_DESIGN`: GSI1 overloaded or an index per pattern ([`IndexDesign`], the template's
/// `IndexDesign`), a setting of every function whose reads or writes differ between the two:
/// read and checked at start-up, `overloaded` in tests and tools unless they say otherwise.
pub const INDEX_DESIGN: Setting = Setting {
    variable: IndexDesign::VARIABLE,
    default: || IndexDesign::default().as_str().to_owned(),
    check: |v| {
        IndexDesign::parse(v)
            .map(|_| ())
            .map_err(StoreError::Config)
    },
};

/// The index design `deps` read at start-up ([`INDEX_DESIGN`]); an error if the function did not
/// declare it.
pub fn index_design(deps: &Deps) -> Result<IndexDesign, StoreError> {
    IndexDesign::parse(deps.setting(&INDEX_DESIGN)?).map_err(StoreError::Config)
}

/// The index design of the process's `INDEX_DESIGN` (the default when unset): how the seed
/// loaders write into the local stack's table, whose `IndexDesign` the Makefile passes them.
pub fn index_design_from_env() -> Result<IndexDesign, StoreError> {
    match std::env::var(INDEX_DESIGN.variable) {
        Ok(v) => IndexDesign::parse(&v).map_err(StoreError::Config),
        Err(_) => Ok(IndexDesign::default()),
    }
}

/// Beyond `TABLE_NAME`, what a function needs from its environment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Needs {
    /// `CURSOR_SIGNING_KEY` (and, during a rotation, `CURSOR_SIGNING_KEY_PREVIOUS`): the function
    /// pages.
    pub cursors: bool,
    /// `AGGREGATE_SHARDS`: the function writes or reads sharded counters.
    pub shards: bool,
    /// The settings of its context's own it reads ([`Setting`]).
    pub settings: &'static [Setting],
    /// Other contexts' tables it reaches ([`Peer`]).
    pub peers: &'static [Peer],
}

impl Needs {
    /// The table only.
    pub const TABLE: Needs = Needs {
        cursors: false,
        shards: false,
        settings: &[],
        peers: &[],
    };
    pub const CURSORS: Needs = Needs {
        cursors: true,
        ..Needs::TABLE
    };
    pub const SHARDS: Needs = Needs {
        shards: true,
        ..Needs::TABLE
    };

    /// These needs and `settings`.
    pub const fn with_settings(self, settings: &'static [Setting]) -> Needs {
        Needs { settings, ..self }
    }

    /// These needs and other contexts' tables.
    pub const fn with_peers(self, peers: &'static [Peer]) -> Needs {
        Needs { peers, ..self }
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
        v.extend(self.settings.iter().map(|s| s.variable));
        v.extend(self.peers.iter().map(|p| p.variable));
        v
    }
}

/// A function's dependencies: the table, and what else it declared it needs.
#[derive(Debug, Clone)]
pub struct Deps {
    pub table: Table,
    cursors: Option<CursorCodec>,
    shards: Option<u32>,
    /// Each declared setting's value, by variable.
    settings: Vec<(&'static str, String)>,
    /// Each declared peer's table, by variable.
    peers: Vec<(&'static str, Table)>,
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
        let settings = needs
            .settings
            .iter()
            .map(|s| match std::env::var(s.variable) {
                Ok(v) => (s.check)(&v).map(|()| (s.variable, v)),
                Err(_) => Err(StoreError::Config(format!("{} is not set", s.variable))),
            })
            .collect::<Result<_, _>>()?;
        let peers = needs
            .peers
            .iter()
            .map(|p| match std::env::var(p.variable) {
                Ok(name) if !name.is_empty() => Ok((p.variable, table.named(name))),
                _ => Err(StoreError::Config(format!("{} is not set", p.variable))),
            })
            .collect::<Result<_, _>>()?;
        Ok(Deps {
            table,
            cursors,
            shards,
            settings,
            peers,
        })
    }

    /// Dependencies given directly (tests, tools): only what `needs` declares is set; each
    /// setting its default (see [`Deps::with_setting`]), each peer `table` itself, as with one
    /// table (see [`Deps::with_peer`]).
    pub fn new(
        table: Table,
        needs: Needs,
        cursor_key: &str,
        shards: u32,
    ) -> Result<Deps, StoreError> {
        Ok(Deps {
            peers: needs
                .peers
                .iter()
                .map(|p| (p.variable, table.clone()))
                .collect(),
            table,
            cursors: needs
                .cursors
                .then(|| CursorCodec::new(cursor_key))
                .transpose()?,
            shards: needs
                .shards
                .then(|| check_count("AGGREGATE_SHARDS", shards))
                .transpose()?,
            settings: needs
                .settings
                .iter()
                .map(|s| (s.variable, (s.default)()))
                .collect(),
        })
    }

    /// These dependencies with `value` for `setting` (tests, tools), checked as at start-up;
    /// only if declared.
    pub fn with_setting(mut self, setting: &Setting, value: &str) -> Result<Deps, StoreError> {
        if let Some((_, v)) = self
            .settings
            .iter_mut()
            .find(|(n, _)| *n == setting.variable)
        {
            (setting.check)(value)?;
            *v = value.to_owned();
        }
        Ok(self)
    }

    /// These dependencies with `table` for `peer` (tests of a table per context); only if
    /// declared.
    pub fn with_peer(mut self, peer: &Peer, table: Table) -> Deps {
        if let Some((_, t)) = self.peers.iter_mut().find(|(n, _)| *n == peer.variable) {
            *t = table;
        }
        self
    }

    /// `peer`'s table, as read at start-up; an error if the function did not declare it.
    pub fn peer(&self, peer: &Peer) -> Result<&Table, StoreError> {
        self.peers
            .iter()
            .find(|(n, _)| *n == peer.variable)
            .map(|(_, t)| t)
            .ok_or_else(|| {
                StoreError::Config(format!(
                    "this function does not declare the table {}",
                    peer.variable
                ))
            })
    }

    /// The value of `setting`, as read (and checked) at start-up; an error if the function did
    /// not declare it.
    pub fn setting(&self, setting: &Setting) -> Result<&str, StoreError> {
        self.settings
            .iter()
            .find(|(n, _)| *n == setting.variable)
            .map(|(_, v)| v.as_str())
            .ok_or_else(|| {
                StoreError::Config(format!(
                    "this function does not declare the setting {}",
                    setting.variable
                ))
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

/// A shard count from the environment: `AGGREGATE_SHARDS` (write shards of each sharded counter).
fn count_from_env(name: &str) -> Result<u32, StoreError> {
    let raw = std::env::var(name).map_err(|_| StoreError::Config(format!("{name} is not set")))?;
    shard_count(name, &raw)
}

/// The value `raw` of the variable `name` as a shard count (1 to [`keys::Shard::MAX_COUNT`]),
/// or the error that names both: a context's own shard setting checks and reads its value so.
pub fn shard_count(name: &str, raw: &str) -> Result<u32, StoreError> {
    raw.parse::<u32>()
        .map_err(|_| StoreError::Config(format!("{name} is not a number: {raw:?}")))
        .and_then(|n| check_count(name, n))
}
