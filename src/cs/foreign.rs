//! Foreign circuits in cuzk: circuits written against bellperson 0.27's `ConstraintSystem` (bellpepper-core
//! 0.2's trait, what Filecoin's storage-proofs circuits use) or bellpepper-core 0.4's synthesize into any cuzk
//! constraint system unchanged — the proving assignment, the shape counter, the matrix recorder, the setup
//! evaluator. Variables keep their indices (both sides allocate in order, input 0 being the constant one);
//! foreign errors come back as [`SynthesisError`]s.
//!
//! A constraint's foreign combinations (already merged per variable) reach the system one of three ways: the
//! prover lends its parts ([`DirectProver`]) and they are evaluated where they are, inputs and aux apart, as
//! bellperson's own prover does; a system that does not read them (witness-only synthesis) is told so and
//! they are not built; every other system gets them as term slices (`enforce_slices`).
//!
//! The adapter reaches the cuzk system through [`DynCs`] (dynamic dispatch per allocation and constraint), so a
//! large foreign circuit (a PoRep partition) is compiled once, not once per cuzk system: one indirect call
//! per constraint costs nothing beside the foreign gadgets' own work.

use blstrs::Scalar;

use super::{Circuit, ConstraintSystem, DirectProver, Index, SynthesisError, Term, Variable};

/// The object-safe face of a cuzk constraint system that foreign circuits write into.
pub trait DynCs: Send {
    /// Allocates a private variable.
    fn dyn_alloc(&mut self, value: Scalar) -> Variable;
    /// Allocates a public input.
    fn dyn_alloc_input(&mut self, value: Scalar) -> Variable;
    /// Adds ⟨a⟩ · ⟨b⟩ = ⟨c⟩ from merged terms.
    fn dyn_enforce(&mut self, a: &[Term], b: &[Term], c: &[Term]);
    /// Whether the system ignores the combinations (witness-only synthesis).
    fn dyn_witness_only(&self) -> bool;
    /// When the system does not read the next constraint's combinations, adds it without them and says true;
    /// else does nothing and says false. One indirect call per constraint of witness-only synthesis, not two.
    fn dyn_enforce_unread(&mut self) -> bool;
    /// The prover's parts, when the system is the prover ([`ConstraintSystem::direct`]).
    fn dyn_direct(&mut self) -> Option<&mut DirectProver>;
}

impl<T: ConstraintSystem> DynCs for T {
    fn dyn_alloc(&mut self, value: Scalar) -> Variable {
        self.alloc(value)
    }
    fn dyn_alloc_input(&mut self, value: Scalar) -> Variable {
        self.alloc_input(value)
    }
    fn dyn_enforce(&mut self, a: &[Term], b: &[Term], c: &[Term]) {
        self.enforce_slices(a, b, c);
    }
    fn dyn_witness_only(&self) -> bool {
        self.witness_only()
    }
    fn dyn_enforce_unread(&mut self) -> bool {
        if self.wants_terms() {
            return false;
        }
        self.enforce_terms(std::iter::empty(), std::iter::empty(), std::iter::empty());
        true
    }
    fn dyn_direct(&mut self) -> Option<&mut DirectProver> {
        self.direct()
    }
}

/// Implements the adapter and the circuit wrapper for one foreign trait version.
macro_rules! foreign {
    ($(#[$doc:meta])* $module:ident, $bp:path, $witness_generator:path) => {
        $(#[$doc])*
        pub mod $module {
            use super::*;
            use $bp as bp;

            /// A cuzk constraint system seen through the foreign trait (with scratch room for the terms of
            /// one constraint, reused across constraints).
            pub struct Adapter<'a> {
                cs: &'a mut dyn DynCs,
                scratch: [Vec<Term>; 3],
            }

            impl<'a> Adapter<'a> {
                /// Wraps `cs`.
                pub fn new(cs: &'a mut dyn DynCs) -> Self {
                    Adapter { cs, scratch: Default::default() }
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

            fn fill(out: &mut Vec<Term>, lc: &bp::LinearCombination<Scalar>) {
                out.clear();
                out.extend(lc.iter().map(|(v, k)| (to_cuzk(v), *k)));
            }

            impl bp::ConstraintSystem<Scalar> for Adapter<'_> {
                type Root = Self;

                fn alloc<F, A, AR>(&mut self, _annotation: A, f: F) -> Result<bp::Variable, bp::SynthesisError>
                where
                    F: FnOnce() -> Result<Scalar, bp::SynthesisError>,
                    A: FnOnce() -> AR,
                    AR: Into<String>,
                {
                    Ok(to_foreign(self.cs.dyn_alloc(f()?)))
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
                    Ok(to_foreign(self.cs.dyn_alloc_input(f()?)))
                }

                fn enforce<A, AR, LA, LB, LC>(&mut self, _annotation: A, a: LA, b: LB, c: LC)
                where
                    A: FnOnce() -> AR,
                    AR: Into<String>,
                    LA: FnOnce(bp::LinearCombination<Scalar>) -> bp::LinearCombination<Scalar>,
                    LB: FnOnce(bp::LinearCombination<Scalar>) -> bp::LinearCombination<Scalar>,
                    LC: FnOnce(bp::LinearCombination<Scalar>) -> bp::LinearCombination<Scalar>,
                {
                    if self.cs.dyn_enforce_unread() {
                        // The combinations would be dropped (witness-only synthesis, or a row outside a split
                        // pass's own): they are not built (the foreign gadgets' own closures are most of a
                        // constraint's cost).
                        return;
                    }
                    let zero = bp::LinearCombination::<Scalar>::zero;
                    if let Some(p) = self.cs.dyn_direct() {
                        // The prover: the combinations are evaluated where they are, inputs and aux apart.
                        let (la, lb, lc) = (a(zero()), b(zero()), c(zero()));
                        let book = p.book();
                        let av = book.eval_a_split(la.iter_inputs(), la.iter_aux());
                        let bv = book.eval_b_split(lb.iter_inputs(), lb.iter_aux());
                        let cv = book.eval_split(lc.iter_inputs(), lc.iter_aux());
                        p.push_row(av, bv, cv);
                        return;
                    }
                    let [ta, tb, tc] = &mut self.scratch;
                    fill(ta, &a(zero()));
                    fill(tb, &b(zero()));
                    fill(tc, &c(zero()));
                    self.cs.dyn_enforce(ta, tb, tc);
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

                fn is_witness_generator(&self) -> bool {
                    $witness_generator(self.cs.dyn_witness_only())
                }
            }

            /// A foreign circuit as a cuzk [`Circuit`]; synthesis consumes a clone (the foreign trait takes
            /// the circuit by value).
            #[derive(Clone, Debug)]
            pub struct Foreign<C>(pub C);

            /// The one instantiation of `c`'s synthesis, whatever the cuzk system.
            fn synthesize_dyn<C: bp::Circuit<Scalar> + Clone>(c: &C, cs: &mut dyn DynCs) -> Result<(), SynthesisError> {
                c.clone().synthesize(&mut Adapter::new(cs)).map_err(|e| SynthesisError(e.to_string()))
            }

            impl<C: bp::Circuit<Scalar> + Clone + Sync> Circuit for Foreign<C> {
                fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
                    synthesize_dyn(&self.0, cs)
                }
            }
        }
    };
}

/// bellperson 0.27's adapter answers `is_witness_generator()` with whether the cuzk system ignores linear
/// combinations: the patched SHA-256 compression, adders and `MultiEq` (`vendor/bellperson/PATCH.md`) ask it
/// through every namespace and then take their lean paths (most of witness-only synthesis of a real PoRep;
/// docs/PERF.md).
/// Nothing else the Filecoin circuits run asks: bellperson 0.27, bellpepper-core 0.2 and storage-proofs
/// 19.1 never read it, and neptune reads it only in `circuit2`/`sponge`, which they do not use (those would
/// call `allocate_empty`, which the adapter does not implement).
fn witness_generator(witness_only: bool) -> bool {
    witness_only
}

/// bellpepper-core 0.4's gadgets build their combinations whatever the system says, and neptune 13's
/// witness-generator paths need `allocate_empty`: the adapter says no.
fn never(_witness_only: bool) -> bool {
    false
}

foreign!(
    /// bellperson 0.27 (= bellpepper-core 0.2): Filecoin's storage-proofs 19 circuits.
    bellperson,
    ::bellperson,
    witness_generator
);

foreign!(
    /// bellpepper-core 0.4: newer circuits written for bellpepper.
    bellpepper,
    ::bellpepper_core,
    never
);
