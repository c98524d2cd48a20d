//! The terminal console (DESIGN.md §8).

pub mod theme;
