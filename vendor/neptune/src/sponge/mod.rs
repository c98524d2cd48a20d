pub mod api;
pub mod circuit;
pub mod vanilla;
