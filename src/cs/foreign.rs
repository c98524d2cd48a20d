//! Foreign circuits in cuzk: circuits written against bellperson 0.27's `ConstraintSystem` (bellpepper-core
//! 0.2's trait, what Filecoin's storage-proofs circuits use) or bellpepper-core 0.4's synthesize into any cuzk
//! constraint system unchanged — the proving assignment, the shape counter, the matrix recorder, the setup
//! evaluator. Variables keep their indices (both sides allocate in order, input 0 being the constant one);
//! foreign linear combinations arrive as merged terms through `enforce_terms`; foreign errors come back as
//! [`SynthesisError`]s.

use blstrs::Scalar;

use super::{Circuit, ConstraintSystem, Index, SynthesisError, Variable};

/// Implements the adapter and the circuit wrapper for one foreign trait version.
macro_rules! foreign {
    ($(#[$doc:meta])* $module:ident, $bp:path) => {
        $(#[$doc])*
        pub mod $module {
            use super::*;
            use $bp as bp;

            /// A cuzk constraint system seen through the foreign trait.
            pub struct Adapter<'a, CS: ConstraintSystem> {
                cs: &'a mut CS,
            }

            impl<'a, CS: ConstraintSystem> Adapter<'a, CS> {
                /// Wraps `cs`.
                pub fn new(cs: &'a mut CS) -> Self {
                    Adapter { cs }
                }
            }

            fn to_foreign(v: Variable) -> bp::Variable {
                bp::Variable::new_unchecked(match v.0 {
                    Index::Input(i) => bp::Index::Input(i),
                    Index::Aux(i) => bp::Index::Aux(i),
                })
            }

            fn to_cuzk(v: bp::Variable) -> Variable {
                Variable(match v.get_unchecked() {
                    bp::Index::Input(i) => Index::Input(i),
                    bp::Index::Aux(i) => Index::Aux(i),
                })
            }

            fn terms(lc: &bp::LinearCombination<Scalar>) -> impl Iterator<Item = (Variable, Scalar)> + '_ {
                lc.iter().map(|(v, k)| (to_cuzk(v), *k))
            }

            impl<CS: ConstraintSystem> bp::ConstraintSystem<Scalar> for Adapter<'_, CS> {
                type Root = Self;

                fn alloc<F, A, AR>(&mut self, _annotation: A, f: F) -> Result<bp::Variable, bp::SynthesisError>
                where
                    F: FnOnce() -> Result<Scalar, bp::SynthesisError>,
                    A: FnOnce() -> AR,
                    AR: Into<String>,
                {
                    Ok(to_foreign(self.cs.alloc(f()?)))
                }

                fn alloc_input<F, A, AR>(
                    &mut self,
                    _annotation: A,
                    f: F,
                ) -> Result<bp::Variable, bp::SynthesisError>
                where
                    F: FnOnce() -> Result<Scalar, bp::SynthesisError>,
                    A: FnOnce() -> AR,
                    AR: Into<String>,
                {
                    Ok(to_foreign(self.cs.alloc_input(f()?)))
                }

                fn enforce<A, AR, LA, LB, LC>(&mut self, _annotation: A, a: LA, b: LB, c: LC)
                where
                    A: FnOnce() -> AR,
                    AR: Into<String>,
                    LA: FnOnce(bp::LinearCombination<Scalar>) -> bp::LinearCombination<Scalar>,
                    LB: FnOnce(bp::LinearCombination<Scalar>) -> bp::LinearCombination<Scalar>,
                    LC: FnOnce(bp::LinearCombination<Scalar>) -> bp::LinearCombination<Scalar>,
                {
                    let zero = bp::LinearCombination::<Scalar>::zero;
                    let (a, b, c) = (a(zero()), b(zero()), c(zero()));
                    self.cs.enforce_terms(terms(&a), terms(&b), terms(&c));
                }

                fn push_namespace<NR, N>(&mut self, _name: N)
                where
                    NR: Into<String>,
                    N: FnOnce() -> NR,
                {
                }

                fn pop_namespace(&mut self) {}

                fn get_root(&mut self) -> &mut Self::Root {
                    self
                }
            }

            /// A foreign circuit as a cuzk [`Circuit`]; synthesis consumes a clone (the foreign trait takes
            /// the circuit by value).
            #[derive(Clone, Debug)]
            pub struct Foreign<C>(pub C);

            impl<C: bp::Circuit<Scalar> + Clone + Sync> Circuit for Foreign<C> {
                fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
                    self.0.clone().synthesize(&mut Adapter::new(cs)).map_err(|e| SynthesisError(e.to_string()))
                }
            }
        }
    };
}

foreign!(
    /// bellperson 0.27 (= bellpepper-core 0.2): Filecoin's storage-proofs 19 circuits.
    bellperson,
    ::bellperson
);

foreign!(
    /// bellpepper-core 0.4: newer circuits written for bellpepper.
    bellpepper,
    ::bellpepper_core
);
