//! A write-sharded index read as ONE ordered, pageable list.
//!
//! A sharded pattern (the certificates by type of Walch's talk, the open orders of AWS's relational
//! example) spreads one logical partition over N partition keys, one per shard. Each shard is a
//! *stream*: a key condition that DynamoDB returns in sort-key order. [`merged_page`] queries the
//! streams in parallel and merges them into one order: by sort key (or, [`merged_page_by`], by an
//! attribute whose order each stream's sort key follows), ties broken by stream number (the order
//! of `streams`), and within a stream as DynamoDB returns it. [`Positions`] is where each stream
//! stands after the page: not started, after a given item, or done. It becomes one cursor (the
//! caller signs it).
//!
//! Cost. A query that returns nothing still costs 0.5 RCU, so a page costs at least
//! `active streams × 0.5 RCU`, and the number of queries is what a page's cost mostly depends on
//! (items of a few hundred bytes: one 0.5 RCU query reads 16 of them). The fetch keeps both
//! queries and over-reading low: the first round asks every active stream for
//! `ceil(limit / active) + 1` items (`limit + 2 × active` at most in all); a stream is asked again
//! only when it runs dry while it could still hold the next item, and the streams asked in one
//! round share what the page still needs (plus one each). Items read but not returned are read
//! again by the next page. Asking every stream for `limit` items would read up to
//! `active × limit`. `make bench` measures it against a single-partition baseline.
//!
//! Within a [`Budget`] (what an API page may spend, [`crate::PAGE_READ_BUDGET`]), a round asks
//! each stream for no more items than its share of the budget left could pay for were each of
//! them the largest an item can be, and a page stops, with its cursor, before a round it could not
//! pay for: a page of 20 streams reads at least one item of each (10 units), then takes items
//! until a stream runs dry and asks again only what is left of the budget.
//!
//! Walking every page returns every item that exists throughout the walk exactly once, in the
//! merged order. An item written during the walk is returned at most once: when its stream has
//! not started, or stands after an item with a smaller sort key, it is returned when that stream
//! gets there (possibly after items of other streams that sort after it); when its stream has
//! finished, or already stands past its sort key, this walk does not see it (a tie with the
//! position's sort key goes either way: DynamoDB orders ties by the table's keys). An item
//! deleted before its stream reaches it is not returned. `tests/src/merged.rs` checks all of it.

use std::collections::VecDeque;

use futures::future::try_join_all;
use keys::{IndexCondition, KeyCondition, KeySpace, attr};
use model::{Item, s};

use crate::{Selection, StoreError, Table};

/// Where one stream stands between pages.
#[derive(Debug, Clone, PartialEq)]
pub enum Position {
    /// Nothing read yet.
    Start,
    /// After this item (its key attributes: DynamoDB's `ExclusiveStartKey`).
    After(Item),
    /// Nothing left.
    Done,
}

/// Every stream's position: a merged cursor's content.
#[derive(Debug, Clone, PartialEq)]
pub struct Positions(pub Vec<Position>);

impl Positions {
    /// A walk's beginning over `streams` streams.
    pub fn start(streams: usize) -> Positions {
        Positions(vec![Position::Start; streams])
    }

    pub fn all_done(&self) -> bool {
        self.0.iter().all(|p| *p == Position::Done)
    }

    /// As one flat map of strings, to sign as a cursor: `"<stream>.<attribute>" → value` for a
    /// stream after an item, `"<stream>" → "done"` for a finished one; a stream not started is
    /// absent.
    pub fn to_item(&self) -> Item {
        let mut flat = Item::new();
        for (i, p) in self.0.iter().enumerate() {
            match p {
                Position::Start => {}
                Position::Done => {
                    flat.insert(i.to_string(), s("done"));
                }
                Position::After(key) => {
                    for (name, value) in key {
                        flat.insert(format!("{i}.{name}"), value.clone());
                    }
                }
            }
        }
        flat
    }

    /// The inverse of [`Positions::to_item`] for `streams` streams; `None` for a map that names a
    /// stream out of range or is otherwise not one `to_item` makes.
    pub fn from_item(flat: &Item, streams: usize) -> Option<Positions> {
        let mut positions = vec![Position::Start; streams];
        for (name, value) in flat {
            match name.split_once('.') {
                None => {
                    let i: usize = name.parse().ok().filter(|i| *i < streams)?;
                    if value.as_s().ok()? != "done" || positions[i] != Position::Start {
                        return None;
                    }
                    positions[i] = Position::Done;
                }
                Some((i, attribute)) => {
                    let i: usize = i.parse().ok().filter(|i| *i < streams)?;
                    match &mut positions[i] {
                        p @ Position::Start => {
                            *p =
                                Position::After(Item::from([(attribute.to_owned(), value.clone())]))
                        }
                        Position::After(key) => {
                            key.insert(attribute.to_owned(), value.clone());
                        }
                        Position::Done => return None,
                    }
                }
            }
        }
        Some(Positions(positions))
    }
}

/// Which way a walk goes: by sort key ascending, or descending (newest first, for keys that
/// start with a date). Ties go to the lower stream number either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Ascending,
    Descending,
}

/// What the merge orders items by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeKey {
    /// The index's sort key: the streams are shards of one partition, their sort keys alike.
    SortKey,
    /// An attribute of the items (a string), for streams whose sort keys start with a part of
    /// their own: O10's `<STATUS>#<orderId>`, one stream per status, merged by `OrderId`. Each
    /// stream's sort-key order must be that attribute's order (here: a constant prefix, then it).
    Attribute(&'static str),
}

impl MergeKey {
    fn of<C: Stream>(self, item: &Item) -> &str {
        let name = match self {
            MergeKey::SortKey => C::SORT_KEY,
            MergeKey::Attribute(name) => name,
        };
        item.get(name)
            .and_then(|v| v.as_s().ok())
            .map(String::as_str)
            .unwrap_or("")
    }
}

/// One merged page: the items in merged order, and where every stream stands after them.
#[derive(Debug)]
pub struct MergedPage {
    pub items: Vec<Item>,
    /// `None` when every stream is done: the walk is over.
    pub next: Option<Positions>,
}

/// A key condition a merge reads as one stream: of GSI1/GSI2 or the table, or of a
/// multi-attribute index.
pub trait Stream: Selection {
    /// The attribute [`MergeKey::SortKey`] orders by (a multi-attribute index has none: merge
    /// its streams by an attribute).
    const SORT_KEY: &'static str;
    /// The key attributes of `item` that a cursor must carry: the table's keys, and for an index
    /// its sort key attributes (its partition's are the stream's own, added back by
    /// [`Stream::resume`]).
    fn key_of(&self, item: &Item) -> Item;
    /// DynamoDB's `ExclusiveStartKey` for the stream after `key` (see [`Stream::key_of`]).
    fn resume(&self, key: &Item) -> Item;
}

impl<S: KeySpace> Stream for KeyCondition<S> {
    const SORT_KEY: &'static str = S::SK;

    fn key_of(&self, item: &Item) -> Item {
        let mut names = vec![attr::PK, attr::SK];
        if S::INDEX.is_some() {
            names.push(S::SK);
        }
        pick(item, names)
    }

    fn resume(&self, key: &Item) -> Item {
        let mut start = key.clone();
        if S::INDEX.is_some() {
            start.insert(S::PK.to_owned(), s(self.pk()));
        }
        start
    }
}

impl Stream for IndexCondition {
    const SORT_KEY: &'static str = "";

    fn key_of(&self, item: &Item) -> Item {
        let sort = self.index().sort.iter().map(|a| a.name);
        pick(item, [attr::PK, attr::SK].into_iter().chain(sort))
    }

    fn resume(&self, key: &Item) -> Item {
        let mut start = key.clone();
        for (name, value) in self.partition() {
            start.insert((*name).to_owned(), model::key_value(value));
        }
        start
    }
}

/// The attributes `names` of `item`.
fn pick<'a>(item: &Item, names: impl IntoIterator<Item = &'a str>) -> Item {
    names
        .into_iter()
        .filter_map(|n| item.get(n).map(|v| (n.to_owned(), v.clone())))
        .collect()
}

/// One stream's state while a page is merged.
struct StreamState<C> {
    condition: C,
    buffer: VecDeque<Item>,
    /// Where DynamoDB's last page of this stream ended (`None` with `exhausted`: nothing more).
    resume: Option<Item>,
    exhausted: bool,
    /// The stream's position after the items this page took from it.
    position: Position,
}

/// What a page may spend: at most `units` read units, its items at most `largest` bytes each.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    pub units: f64,
    pub largest: u32,
}

impl Budget {
    /// A page's: [`crate::PAGE_READ_BUDGET`], for items of at most `largest` bytes.
    pub fn page(largest: u32) -> Budget {
        Budget {
            units: crate::PAGE_READ_BUDGET,
            largest,
        }
    }

    /// How many items each of `streams` streams may be asked for when `spent` units are spent:
    /// an equal share of what is left, each item assumed `largest`; at least one each when a
    /// round of one item a stream is affordable (or the page has nothing yet: a page always
    /// reads). `None`: the page stops here.
    fn per_stream(&self, spent: f64, streams: usize, page_is_empty: bool) -> Option<u32> {
        let left = self.units - spent;
        let share = crate::budget_items(left / streams as f64, self.largest);
        let one_each = streams as f64 * half_units(self.largest) <= left;
        match share {
            0 if one_each || page_is_empty => Some(1),
            0 => None,
            n => Some(n),
        }
    }
}

/// What one Query of one item of `bytes` bytes costs, read eventually consistently.
fn half_units(bytes: u32) -> f64 {
    f64::from(bytes.div_ceil(4096).max(1)) * 0.5
}

/// Reads one page of at most `limit` items of the streams merged by sort key, from `positions`
/// on, in `direction`. `streams` and `direction` must be the same, in the same order, for every
/// page of a walk (a cursor binds them). No budget: a tool's read.
pub async fn merged_page<C: Stream>(
    table: &Table,
    streams: Vec<C>,
    positions: Positions,
    limit: u32,
    direction: Direction,
) -> Result<MergedPage, StoreError> {
    merged_page_by(
        table,
        streams,
        positions,
        limit,
        direction,
        MergeKey::SortKey,
        None,
    )
    .await
}

/// [`merged_page`], the items merged by `by` instead of the sort key (the same walk: `by` must
/// be the same for every page too), within `budget` if one is given.
pub async fn merged_page_by<C: Stream>(
    table: &Table,
    streams: Vec<C>,
    positions: Positions,
    limit: u32,
    direction: Direction,
    by: MergeKey,
    budget: Option<Budget>,
) -> Result<MergedPage, StoreError> {
    if positions.0.len() != streams.len() {
        return Err(StoreError::Corrupt("positions for other streams".into()));
    }
    let limit = limit.max(1) as usize;
    let mut streams: Vec<StreamState<C>> = streams
        .into_iter()
        .zip(positions.0)
        .map(|(condition, position)| StreamState {
            buffer: VecDeque::new(),
            exhausted: position == Position::Done,
            resume: match &position {
                Position::After(key) => Some(condition.resume(key)),
                _ => None,
            },
            condition,
            position,
        })
        .collect();
    let (mut out, mut spent) = (Vec::with_capacity(limit), 0.0);
    while out.len() < limit {
        // A stream that ran dry but may hold more must be read before the next item is chosen.
        let dry: Vec<usize> = (0..streams.len())
            .filter(|&i| streams[i].buffer.is_empty() && !streams[i].exhausted)
            .collect();
        if !dry.is_empty() {
            // What the page still needs, shared among the streams asked, plus one each: the first
            // round asks every stream for `ceil(limit / streams) + 1`.
            let mut batch = (limit - out.len()).div_ceil(dry.len()) + 1;
            if let Some(budget) = budget {
                match budget.per_stream(spent, dry.len(), out.is_empty()) {
                    Some(n) => batch = batch.min(n as usize),
                    None => break,
                }
            }
            let pages = try_join_all(dry.iter().map(|&i| {
                let st = &streams[i];
                let query = table
                    .query(st.condition.clone())
                    .start(st.resume.clone())
                    .limit(u32::try_from(batch).unwrap_or(u32::MAX));
                match direction {
                    Direction::Ascending => query,
                    Direction::Descending => query.backwards(),
                }
                .send()
            }))
            .await?;
            for (i, page) in dry.into_iter().zip(pages) {
                spent += page.read_units;
                let st = &mut streams[i];
                st.buffer.extend(page.items);
                st.exhausted = page.last_key.is_none();
                st.resume = page.last_key;
            }
        }
        let next = (0..streams.len())
            .filter(|&i| !streams[i].buffer.is_empty())
            .min_by(|&a, &b| {
                let (ka, kb) = (
                    by.of::<C>(&streams[a].buffer[0]),
                    by.of::<C>(&streams[b].buffer[0]),
                );
                let by_key = match direction {
                    Direction::Ascending => ka.cmp(kb),
                    Direction::Descending => kb.cmp(ka),
                };
                by_key.then(a.cmp(&b))
            });
        let Some(i) = next else { break };
        let item = streams[i].buffer.pop_front().expect("a buffered item");
        streams[i].position = Position::After(streams[i].condition.key_of(&item));
        out.push(item);
    }
    for st in &mut streams {
        if st.buffer.is_empty() && st.exhausted {
            st.position = Position::Done;
        }
    }
    let positions = Positions(streams.into_iter().map(|s| s.position).collect());
    Ok(MergedPage {
        items: out,
        next: (!positions.all_done()).then_some(positions),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A merged page's rounds within a page's budget, at 4 KB an item: 20 streams are asked for
    /// 2 items each (20 units at most); 1.2 units left pays one more item of each of two
    /// streams, not of three; a page with nothing yet reads one of each whatever the budget.
    #[test]
    fn a_round_asks_what_the_budget_left_pays_for() {
        let budget = Budget::page(4096);
        assert_eq!(budget.per_stream(0.0, 20, true), Some(2));
        assert_eq!(budget.per_stream(30.8, 2, false), Some(1));
        assert_eq!(budget.per_stream(30.8, 3, false), None);
        assert_eq!(budget.per_stream(40.0, 20, true), Some(1));
        assert_eq!(Budget::page(512).per_stream(0.0, 1, true), Some(504));
    }
}
