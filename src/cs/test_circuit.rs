//! A small circuit for the unit tests of passes split over row ranges (`cs::survey`,
//! the setup's QAP evaluation).

use blstrs::Scalar;

use super::{Circuit, ConstraintSystem, SynthesisError};

/// `n` rows naming the constant, a global allocated first, the previous row's output and an input, with a
/// coefficient per row: every way a split pass can see a column (its own, an older one, an input) is taken
/// at every split, and a misordered or missing row changes any digest.
pub(crate) struct Mixed(pub usize);

impl Circuit for Mixed {
    fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        let global = cs.alloc(Scalar::from(3u64));
        let x = cs.alloc_input(Scalar::from(5u64));
        let mut prev = global;
        for i in 0..self.0 {
            let next = cs.alloc(Scalar::from(i as u64));
            let k = Scalar::from(i as u64 + 2);
            cs.enforce(
                |lc| lc + (k, prev) + global,
                |lc| lc + (Scalar::from(7u64), CS::one()) + (k, x),
                |lc| lc + next - (k, global),
            );
            prev = next;
        }
        Ok(())
    }
}
