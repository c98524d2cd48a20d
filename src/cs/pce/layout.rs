//! The record's layout: the CSR of A, B, C with their codes and coefficient table, and the density
//! bitmaps (the types the recorder builds, the SpMV reads and the serializer writes; described in `super`).

use blstrs::Scalar;

use crate::cs::{Density, Shape};

/// Codes at or above this index the coefficient table; below it they are ±2^k Horner steps.
pub const GENERAL: u16 = 0x8000;

/// One deduplicated coefficient of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Coeff {
    /// The coefficient.
    pub(crate) value: Scalar,
    /// The term is on the constant one: add the value itself, skip the column and the multiplication.
    pub(crate) constant: bool,
}

/// A recorded circuit shape: its A, B, C in the compact CSR layout, its density bitmaps and identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pce {
    pub(super) shape: Shape,
    pub(super) digest: u64,
    pub(super) fingerprint: u64,
    /// 3·constraints + 1 offsets into `cols`/`codes`; row 3i is A_i, 3i + 1 is B_i, 3i + 2 is C_i.
    pub(super) row_ptr: Vec<u32>,
    pub(super) cols: Vec<u32>,
    pub(super) codes: Vec<u16>,
    pub(super) table: Vec<Coeff>,
    /// Constraints whose C row is not stored (see [`super::RecordOptions::c_from_products`]): c = a·b.
    pub(super) c_product: Density,
    pub(super) a_aux: Density,
    pub(super) b_input: Density,
    pub(super) b_aux: Density,
}
