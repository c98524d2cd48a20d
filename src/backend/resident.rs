//! Copies of named data a backend keeps between operations (SRS bases on a device), found again by identity
//! and checked before reuse. Keys never contain host addresses: an address is reused by the allocator for
//! other data, an identity is not.

use super::api::{ParamsId, Query};

/// What a resident copy holds: query `query` of params `params`, `len` elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ResidentKey {
    /// The params set.
    pub params: ParamsId,
    /// The query.
    pub query: Query,
    /// Its length in elements.
    pub len: usize,
}

/// The resident copies of one backend lane.
#[derive(Debug)]
pub struct ResidentSet<V> {
    entries: Vec<(ResidentKey, V)>,
}

impl<V> Default for ResidentSet<V> {
    fn default() -> Self {
        ResidentSet { entries: Vec::new() }
    }
}

/// How [`ResidentSet::get_or_insert`] found its entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// An entry with this key passed the check and was reused.
    Reused,
    /// There was none: built.
    Built,
    /// One existed but failed the check: rebuilt.
    Rebuilt,
}

impl<V> ResidentSet<V> {
    /// The entry for `key`: an existing one if `check` accepts it, else a new one from `build` (replacing a
    /// rejected one). `build` runs with the set minus the rejected entry, so its memory can be reused.
    pub fn get_or_insert<E>(
        &mut self,
        key: ResidentKey,
        check: impl FnOnce(&V) -> bool,
        build: impl FnOnce() -> Result<V, E>,
    ) -> Result<(&V, Found), E> {
        let mut found = Found::Built;
        if let Some(i) = self.entries.iter().position(|(k, _)| *k == key) {
            if check(&self.entries[i].1) {
                return Ok((&self.entries[i].1, Found::Reused));
            }
            self.entries.swap_remove(i);
            found = Found::Rebuilt;
        }
        let v = build()?;
        self.entries.push((key, v));
        let last = self.entries.len() - 1;
        Ok((&self.entries[last].1, found))
    }

    /// The entry of query `query` of params `params`, if held.
    pub fn get(&self, params: ParamsId, query: Query) -> Option<(&ResidentKey, &V)> {
        self.entries.iter().find(|(k, _)| k.params == params && k.query == query).map(|(k, v)| (k, v))
    }

    /// Drops every entry of params other than `keep` (a call with new params frees the old ones first).
    pub fn retain_params(&mut self, keep: ParamsId) {
        self.entries.retain(|(k, _)| k.params == keep);
    }

    /// Drops everything.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Number of entries held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
