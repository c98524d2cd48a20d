//! The prover's parts lent to a foreign circuit's adapter (see [`super::ConstraintSystem::direct`]).

use blstrs::Scalar;

use super::book::{Book, Densities};
use super::evals::Evals;

/// The prover's book and a/b/c. A foreign circuit's adapter reaches them through
/// [`super::ConstraintSystem::direct`] and evaluates its own combinations in place: copying each constraint's
/// terms into cuzk's form first made normal synthesis of the real C2 5–8% slower (docs/PERF.md).
#[derive(Debug)]
pub struct DirectProver {
    book: Book<Densities>,
    a: Evals,
    b: Evals,
    c: Evals,
}

impl DirectProver {
    /// The parts of a proving synthesis about to start.
    pub(super) fn new(book: Book<Densities>, [a, b, c]: [Evals; 3]) -> Self {
        DirectProver { book, a, b, c }
    }

    /// The parts back, when synthesis ends.
    pub(super) fn into_parts(self) -> (Book<Densities>, [Evals; 3]) {
        (self.book, [self.a, self.b, self.c])
    }

    /// The values, read-only.
    #[inline]
    pub(super) fn book_ref(&self) -> &Book<Densities> {
        &self.book
    }

    /// The values and densities the combinations are evaluated against and marked in.
    #[inline]
    pub fn book(&mut self) -> &mut Book<Densities> {
        &mut self.book
    }

    /// Adds one constraint's evaluations.
    #[inline]
    pub fn push_row(&mut self, a: Scalar, b: Scalar, c: Scalar) {
        self.book.enforced();
        self.a.push(a);
        self.b.push(b);
        self.c.push(c);
    }
}
