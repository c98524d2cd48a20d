pub mod gpu;
pub mod sources;
