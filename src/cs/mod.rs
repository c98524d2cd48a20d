//! The constraint system circuits are written against: variables, linear combinations, allocation and
//! constraints, with one implementation per consumer (prover, shape counter, matrix recorder, setup evaluator,
//! witness-only synthesis and the PCE recorder).

mod book;
mod density;
mod direct;
mod evals;
pub mod foreign;
pub(crate) mod fr;
mod lc;
pub mod pce;
mod prover;
mod shape;
mod survey;
#[cfg(test)]
pub(crate) mod test_circuit;
mod var;
mod witness;

pub use book::{Book, Densities, NoDensity, Shape, Track};
pub use density::Density;
pub use direct::DirectProver;
pub use evals::{Evals, HostBlock, HostPool, Lent};
pub use lc::{LinearCombination, SmallStore, Term, TermStore, VecStore, SMALLVEC_INLINE};
pub use pce::{Pce, PceError, PceStats, RecordOptions};
pub use prover::ProvingAssignment;
pub use shape::{MatrixRecorder, ShapeCounter};
pub use survey::Survey;
pub use var::{Index, Variable};
pub use witness::{Witness, WitnessOnly};

use blstrs::Scalar;

/// Shorthand for the linear combination type of a constraint system.
pub type Lc<CS> = LinearCombination<<CS as ConstraintSystem>::Store>;

/// The interface gadgets and circuits synthesize into. Circuits always carry their witness, so allocation
/// takes the value directly; consumers that only need the shape ignore it.
pub trait ConstraintSystem: Send {
    /// Term store of this system's linear combinations (A1).
    type Store: TermStore;

    /// Allocates a private variable with the given value.
    fn alloc(&mut self, value: Scalar) -> Variable;

    /// Allocates a public input with the given value.
    fn alloc_input(&mut self, value: Scalar) -> Variable;

    /// Adds the constraint ⟨a⟩ · ⟨b⟩ = ⟨c⟩; each closure builds its linear combination from an empty one.
    fn enforce<A, B, C>(&mut self, a: A, b: B, c: C)
    where
        A: FnOnce(Lc<Self>) -> Lc<Self>,
        B: FnOnce(Lc<Self>) -> Lc<Self>,
        C: FnOnce(Lc<Self>) -> Lc<Self>;

    /// The value of a variable (gadgets read back values they did not keep).
    fn value(&self, var: Variable) -> Scalar;

    /// Whether this system only keeps the witness (its `enforce` ignores the combinations): a foreign
    /// circuit's adapter then skips building them.
    fn witness_only(&self) -> bool {
        false
    }

    /// Whether the next constraint's combinations are read: a pass over some of a circuit's rows (the
    /// digest's, the setup's) answers no outside them, so a foreign circuit's adapter skips building them there.
    fn wants_terms(&self) -> bool {
        !self.witness_only()
    }

    /// Adds ⟨a⟩ · ⟨b⟩ = ⟨c⟩ from ready-made terms (a foreign circuit's linear combinations, already merged per
    /// variable); a system that only evaluates them overrides this to skip building its own combinations.
    fn enforce_terms<A, B, C>(&mut self, a: A, b: B, c: C)
    where
        A: Iterator<Item = Term>,
        B: Iterator<Item = Term>,
        C: Iterator<Item = Term>,
    {
        // Pushed in place: folding `lc + (k, v)` moved the combination (a SmallVec's inline terms too) once per
        // term.
        self.enforce(|lc| lc.extended(a), |lc| lc.extended(b), |lc| lc.extended(c));
    }

    /// [`ConstraintSystem::enforce_terms`] from slices (what a foreign circuit's adapter holds): a system that
    /// reads terms where they are overrides this and builds nothing.
    fn enforce_slices(&mut self, a: &[Term], b: &[Term], c: &[Term]) {
        self.enforce_terms(a.iter().copied(), b.iter().copied(), c.iter().copied());
    }

    /// The prover's parts, when this system is the prover: a foreign circuit's adapter then evaluates its
    /// combinations in place instead of handing over copies of their terms.
    fn direct(&mut self) -> Option<&mut DirectProver> {
        None
    }

    /// The variable fixed to 1.
    fn one() -> Variable {
        Variable::ONE
    }
}

/// Why a circuit could not synthesize (a foreign circuit's own error, e.g. a malformed vanilla proof), as one
/// line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("synthesis failed: {0}")]
pub struct SynthesisError(pub String);

/// A circuit: something that can synthesize itself, witness included, into any constraint system.
pub trait Circuit: Sync {
    /// Writes the circuit's variables and constraints into `cs`; the sample circuits never fail, circuits
    /// from other crates may.
    fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError>;
}
