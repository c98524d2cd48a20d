pub mod fixed_base;
