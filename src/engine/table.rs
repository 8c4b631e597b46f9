//! The transposition table: a fixed number of slots sized in megabytes, one entry per slot,
//! shared by every game (entries hold a position key and a move id, never a game's types).

use std::hash::{DefaultHasher, Hash, Hasher};

/// What a stored score says about the position's true value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Bound {
    Exact,
    /// At least the score (the search failed high).
    Lower,
    /// At most the score (no move reached alpha).
    Upper,
}

/// One slot. `key == 0` marks an empty slot (a real key of 0 is merely never stored).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Entry {
    pub key: u64,
    pub score: i32,
    /// The best move's id ([`Evaluate::move_id`](super::eval::Evaluate::move_id)); 0 for none.
    pub best: u32,
    pub depth: u8,
    pub bound: Bound,
}

const EMPTY: Entry = Entry {
    key: 0,
    score: 0,
    best: 0,
    depth: 0,
    bound: Bound::Upper,
};

/// The engine's memory of searched positions, kept between the moves of a game. Its size is
/// fixed when it is made, so a search never allocates more.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Table {
    slots: Vec<Entry>,
}

impl Table {
    /// The smallest table, in megabytes.
    pub const MIN_MB: usize = 1;
    /// The largest table, in megabytes.
    pub const MAX_MB: usize = 4096;
    /// The size of the table the chat opponent uses, in megabytes.
    pub const DEFAULT_MB: usize = 16;

    /// A table of about `megabytes` (clamped to [`Table::MIN_MB`]..=[`Table::MAX_MB`]).
    #[must_use]
    pub fn new(megabytes: usize) -> Table {
        let megabytes = megabytes.clamp(Table::MIN_MB, Table::MAX_MB);
        let slots = megabytes * 1024 * 1024 / size_of::<Entry>();
        Table {
            slots: vec![EMPTY; slots.max(1)],
        }
    }

    /// Forgets every position (a new game).
    pub fn clear(&mut self) {
        self.slots.fill(EMPTY);
    }

    /// How many positions the table can hold.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    fn index(&self, key: u64) -> usize {
        // The high bits spread better than the low ones of a multiplicative hash.
        ((u128::from(key) * self.slots.len() as u128) >> 64) as usize
    }

    pub(super) fn probe(&self, key: u64) -> Option<Entry> {
        let entry = self.slots[self.index(key)];
        (entry.key == key && key != 0).then_some(entry)
    }

    /// Stores an entry: it replaces another position's only when at least as deep, or
    /// always for the same position.
    pub(super) fn store(&mut self, entry: Entry) {
        let index = self.index(entry.key);
        let slot = &mut self.slots[index];
        if slot.key == entry.key || entry.depth >= slot.depth || slot.key == 0 {
            let best = if entry.best == 0 && slot.key == entry.key {
                slot.best
            } else {
                entry.best
            };
            *slot = Entry { best, ..entry };
        }
    }
}

impl Default for Table {
    fn default() -> Table {
        Table::new(Table::DEFAULT_MB)
    }
}

/// A stable, non-zero id of a move, for the table, the killer moves and the history (which
/// keep ids, not a game's move type). Two moves of one position share an id only by a
/// 1-in-4-billion chance, and then only the move order suffers.
pub(super) fn move_id<M: Hash>(mv: &M) -> u32 {
    let mut hasher = DefaultHasher::new();
    mv.hash(&mut hasher);
    (hasher.finish() as u32) | 1
}
