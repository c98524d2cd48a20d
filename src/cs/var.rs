//! Variables: the handles allocation returns and linear combinations are made of.

use blstrs::Scalar;

/// Where a variable lives: public inputs (index 0 is the constant one) or private aux values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Index {
    /// Public input `i`; input 0 is the constant 1.
    Input(usize),
    /// Private (aux) variable `i`.
    Aux(usize),
}

/// A handle to an allocated variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variable(pub Index);

impl Variable {
    /// The variable fixed to 1 (public input 0), used for constants in linear combinations.
    pub const ONE: Variable = Variable(Index::Input(0));

    /// Its value in the given assignments.
    #[inline]
    pub fn value_in(self, inputs: &[Scalar], aux: &[Scalar]) -> Scalar {
        match self.0 {
            Index::Input(i) => inputs[i],
            Index::Aux(i) => aux[i],
        }
    }
}
