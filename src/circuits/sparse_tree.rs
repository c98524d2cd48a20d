//! Merkle trees of any size built only along opened paths: subtrees no challenge opens get seeded random
//! roots, so a 2^30-node sector costs as much as its challenges' paths, and every opened path is consistent.

use std::collections::BTreeMap;

/// A k-ary tree that stores only the nodes on, or beside, the opened paths.
pub struct SparseTree<V> {
    arity: usize,
    /// levels[0] are leaves; the last level holds the root at index 0.
    levels: Vec<BTreeMap<u64, V>>,
}

impl<V: Clone> SparseTree<V> {
    /// Builds a tree of `height` levels of `arity`-ary hashing over the given opened leaves; `opaque(level,
    /// index)` gives the value of any node whose subtree holds no opened leaf.
    pub fn build(
        arity: usize,
        height: usize,
        leaves: &[(u64, V)],
        opaque: impl Fn(usize, u64) -> V,
        hash: impl Fn(&[V]) -> V,
    ) -> Self {
        let mut levels = vec![leaves.iter().cloned().collect::<BTreeMap<_, _>>()];
        let a = arity as u64;
        for level in 0..height {
            let parents: Vec<u64> = {
                let mut p: Vec<u64> = levels[level].keys().map(|i| i / a).collect();
                p.dedup();
                p
            };
            let mut next = BTreeMap::new();
            for p in parents {
                let children: Vec<V> = (0..a)
                    .map(|j| {
                        let idx = p * a + j;
                        levels[level].entry(idx).or_insert_with(|| opaque(level, idx)).clone()
                    })
                    .collect();
                next.insert(p, hash(&children));
            }
            levels.push(next);
        }
        SparseTree { arity, levels }
    }

    /// The root.
    pub fn root(&self) -> V {
        // Built from at least one leaf, so the top level holds index 0.
        self.levels.last().and_then(|l| l.get(&0)).cloned().expect("sparse tree built from at least one leaf")
    }

    /// The siblings of opened leaf `index` per level, in child order without the node itself.
    pub fn siblings(&self, index: u64) -> Vec<Vec<V>> {
        let a = self.arity as u64;
        let mut idx = index;
        let mut out = Vec::with_capacity(self.levels.len() - 1);
        for level in &self.levels[..self.levels.len() - 1] {
            let base = idx / a * a;
            out.push((base..base + a).filter(|&i| i != idx).filter_map(|i| level.get(&i).cloned()).collect());
            idx /= a;
        }
        out
    }
}
