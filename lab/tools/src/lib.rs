//! Maintenance commands of the Makefile: the seeds' example data (`make seed`, and a realistic
//! volume with `SIZE=large`), the drift report of the derived data (`make reconcile`), the
//! certificate migration (`make migrate`) and the NoSQL Workbench model (`make workbench`).

pub mod compare;
pub mod copies;
pub mod counts;
pub mod flags;
pub mod layout;
pub mod migrate;
pub mod move_index;
pub mod move_rehearsal;
pub mod org;
pub mod pipeline;
pub mod reconcile;
pub mod seed;
pub mod target;
pub mod volume;
pub mod workbench;

/// A fixed-seed generator (splitmix64): the same org and volume on every machine, no dependency.
pub(crate) struct Draw(pub(crate) u64);

impl Draw {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// One of `from`.
    pub(crate) fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len() as u64) as usize]
    }
}
