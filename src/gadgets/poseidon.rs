//! Poseidon over BLS12-381 Fr with neptune 13's Merkle-tree constants (what Filecoin's tree_c and tree_r_last
//! use), natively and as a circuit gadget, for arities 2, 8 and 11.
//!
//! The gadget is the textbook permutation on the state `[domain tag, x_1 .. x_arity]`: per round add the round
//! constants, apply x^5 (every element in the R_F full rounds, element 0 in the R_P partial rounds), multiply by
//! the MDS matrix. Round constants and MDS products are linear, so they are folded into the linear combinations
//! that feed the next S-boxes; only S-box results are allocated (x², x⁴, x⁵: 3 constraints per S-box). The
//! first round's S-box on the constant domain tag is computed natively, and one last constraint puts the
//! output (state element 1) in a variable.
//!
//! Constraints per hash, `3·(t·R_F + R_P − 1) + 1` with t = arity + 1, R_F = 8:
//!
//! | arity | R_P | constraints |
//! |---|---|---|
//! | 2 | 55 | 235 |
//! | 8 | 57 | 385 |
//! | 11 | 57 | 457 |
//!
//! How each S-box input depends on the inputs and earlier S-box outputs is the same for every hash, so it is
//! worked out once per arity (a [`Program`], cached) and synthesis only evaluates and emits those terms.

use std::sync::OnceLock;

use blstrs::Scalar;
use ff::Field;
use neptune::poseidon::{Arity, Poseidon, PoseidonConstants};
use smallvec::SmallVec;
use typenum::{U11, U2, U8};

use crate::cs::{ConstraintSystem, LinearCombination, TermStore, Variable};
use crate::gadgets::num::{AllocatedNum, LcValue};

/// The arities this module supports (neptune features `arity2`, `arity8`, `arity11`).
pub const ARITIES: [usize; 3] = [2, 8, 11];

/// Largest number of S-box results one hash allocates plus its inputs (arity 11: 12·8 + 57 − 1 + 11);
/// synthesis keeps them on the stack.
const MAX_BASIS: usize = 163;

fn constants_2() -> &'static PoseidonConstants<Scalar, U2> {
    static C: OnceLock<PoseidonConstants<Scalar, U2>> = OnceLock::new();
    C.get_or_init(PoseidonConstants::new)
}

fn constants_8() -> &'static PoseidonConstants<Scalar, U8> {
    static C: OnceLock<PoseidonConstants<Scalar, U8>> = OnceLock::new();
    C.get_or_init(PoseidonConstants::new)
}

fn constants_11() -> &'static PoseidonConstants<Scalar, U11> {
    static C: OnceLock<PoseidonConstants<Scalar, U11>> = OnceLock::new();
    C.get_or_init(PoseidonConstants::new)
}

/// Native Poseidon with neptune's Merkle-tree constants: the reference the gadget must match, and the hash of
/// native tree builders.
///
/// # Panics
/// If `arity` is not 2, 8 or 11 or `inputs.len() != arity`: both are fixed by the calling code, never by data
/// (programmer errors). [`poseidon_hash_2`], [`poseidon_hash_8`] and [`poseidon_hash_11`] rule them out by type.
pub fn poseidon_hash(arity: usize, inputs: &[Scalar]) -> Scalar {
    assert_eq!(inputs.len(), arity, "poseidon_hash: {} inputs for arity {arity}", inputs.len());
    match arity {
        2 => Poseidon::new_with_preimage(inputs, constants_2()).hash(),
        8 => Poseidon::new_with_preimage(inputs, constants_8()).hash(),
        11 => Poseidon::new_with_preimage(inputs, constants_11()).hash(),
        _ => panic!("poseidon_hash: unsupported arity {arity} (supported: {ARITIES:?})"),
    }
}

/// Native Poseidon of two elements (binary trees).
pub fn poseidon_hash_2(inputs: &[Scalar; 2]) -> Scalar {
    Poseidon::new_with_preimage(inputs, constants_2()).hash()
}

/// Native Poseidon of eight elements (8-ary trees: tree_c, tree_r_last).
pub fn poseidon_hash_8(inputs: &[Scalar; 8]) -> Scalar {
    Poseidon::new_with_preimage(inputs, constants_8()).hash()
}

/// Native Poseidon of eleven elements (PoRep column hashes: one element per layer).
pub fn poseidon_hash_11(inputs: &[Scalar; 11]) -> Scalar {
    Poseidon::new_with_preimage(inputs, constants_11()).hash()
}

/// Constraints [`poseidon_hash_gadget`] writes for one hash of `arity` inputs, for shape estimates.
///
/// # Panics
/// If `arity` is not 2, 8 or 11 (programmer error).
pub fn poseidon_constraints(arity: usize) -> usize {
    3 * program(arity).sboxes.len() + 1
}

/// Poseidon in the circuit: the returned number equals [`poseidon_hash`] of the input values.
///
/// Inputs may be allocated numbers or lazy sums ([`crate::gadgets::num::Num`]); each is added into exactly
/// one S-box input of the first round, so a short sum costs nothing extra. Constraint counts: module docs.
///
/// # Panics
/// If `inputs.len()` is not 2, 8 or 11 (programmer error: the arity is a property of the circuit).
pub fn poseidon_hash_gadget<CS, N>(cs: &mut CS, inputs: &[N]) -> AllocatedNum
where
    CS: ConstraintSystem,
    N: LcValue<CS::Store>,
{
    let prog = program(inputs.len());
    // Basis: the inputs (indices < arity), then every S-box result in order.
    let mut values: SmallVec<[Scalar; MAX_BASIS]> = SmallVec::new();
    let mut vars: SmallVec<[Variable; MAX_BASIS]> = SmallVec::new();
    values.extend(inputs.iter().map(|x| x.value()));

    for sbox in prog.sboxes.iter() {
        let x = sbox.eval(&values);
        let x2 = x.square();
        let x4 = x2.square();
        let x5 = x4 * x;
        let (v2, v4, v5) = (cs.alloc(x2), cs.alloc(x4), cs.alloc(x5));
        cs.enforce(|lc| sbox.add_to(lc, inputs, &vars), |lc| sbox.add_to(lc, inputs, &vars), |lc| lc + v2);
        cs.enforce(|lc| lc + v2, |lc| lc + v2, |lc| lc + v4);
        cs.enforce(|lc| lc + v4, |lc| sbox.add_to(lc, inputs, &vars), |lc| lc + v5);
        values.push(x5);
        vars.push(v5);
    }

    let out = AllocatedNum::alloc(cs, prog.output.eval(&values));
    cs.enforce(|lc| prog.output.add_to(lc, inputs, &vars), |lc| lc + CS::one(), |lc| lc + out.variable());
    out
}

/// One affine form over the basis: `constant + Σ coeff · basis[index]`.
struct Affine {
    constant: Scalar,
    terms: Box<[(u32, Scalar)]>,
}

impl Affine {
    /// Its value given the basis values computed so far.
    #[inline]
    fn eval(&self, basis: &[Scalar]) -> Scalar {
        self.terms.iter().fold(self.constant, |acc, &(i, c)| acc + basis[i as usize] * c)
    }

    /// Adds the form to `lc`, mapping basis indices to the inputs and the S-box variables. Terms are pushed in
    /// place: moving the combination per term would copy a `SmallVec` store each time.
    #[inline]
    fn add_to<S: TermStore, N: LcValue<S>>(
        &self,
        mut lc: LinearCombination<S>,
        inputs: &[N],
        sbox_vars: &[Variable],
    ) -> LinearCombination<S> {
        if self.constant != Scalar::ZERO {
            lc.push(Variable::ONE, self.constant);
        }
        let arity = inputs.len();
        for &(i, c) in self.terms.iter() {
            let i = i as usize;
            if i < arity {
                inputs[i].push_scaled(&mut lc, c);
            } else {
                lc.push(sbox_vars[i - arity], c);
            }
        }
        lc
    }
}

/// The permutation for one arity, unrolled: the input form of every S-box that needs constraints, in
/// allocation order, and the form of the output.
struct Program {
    sboxes: Vec<Affine>,
    output: Affine,
}

/// The cached program of `arity`.
///
/// # Panics
/// If `arity` is not 2, 8 or 11 (programmer error).
fn program(arity: usize) -> &'static Program {
    static P2: OnceLock<Program> = OnceLock::new();
    static P8: OnceLock<Program> = OnceLock::new();
    static P11: OnceLock<Program> = OnceLock::new();
    match arity {
        2 => P2.get_or_init(|| Program::new(constants_2())),
        8 => P8.get_or_init(|| Program::new(constants_8())),
        11 => P11.get_or_init(|| Program::new(constants_11())),
        _ => panic!("poseidon gadget: unsupported arity {arity} (supported: {ARITIES:?})"),
    }
}

impl Program {
    /// Runs the permutation symbolically: each state element is a dense affine form (index 0 the constant,
    /// index 1 + k basis element k) over the inputs and the S-box results allocated so far.
    fn new<A: Arity<Scalar>>(c: &PoseidonConstants<Scalar, A>) -> Self {
        let arity = c.arity();
        let t = c.width();
        let rounds = c.full_rounds + c.partial_rounds;
        let n_basis = arity + t * c.full_rounds + c.partial_rounds;
        debug_assert!(n_basis <= MAX_BASIS + 1);
        let rc =
            c.round_constants.as_deref().expect("PoseidonConstants::new always carries the round constants");
        let mds = &c.mds_matrices.m;

        let unit = |k: usize| {
            let mut v = vec![Scalar::ZERO; 1 + n_basis];
            v[1 + k] = Scalar::ONE;
            v
        };
        let mut state: Vec<Vec<Scalar>> = (0..t)
            .map(|i| {
                if i == 0 {
                    let mut v = vec![Scalar::ZERO; 1 + n_basis];
                    v[0] = c.domain_tag;
                    v
                } else {
                    unit(i - 1)
                }
            })
            .collect();
        let mut sboxes = Vec::with_capacity(n_basis - arity);

        for r in 0..rounds {
            let full = r < c.half_full_rounds || r >= c.half_full_rounds + c.partial_rounds;
            for (i, el) in state.iter_mut().enumerate() {
                el[0] += rc[r * t + i];
            }
            for el in state.iter_mut().take(if full { t } else { 1 }) {
                if el[1..].iter().all(|x| *x == Scalar::ZERO) {
                    el[0] = el[0].pow_vartime([5]);
                } else {
                    sboxes.push(Affine::from_dense(el));
                    *el = unit(arity + sboxes.len() - 1);
                }
            }
            // state ← M · state
            let mut next = vec![vec![Scalar::ZERO; 1 + n_basis]; t];
            for (row, out) in mds.iter().zip(next.iter_mut()) {
                for (m, el) in row.iter().zip(state.iter()) {
                    for (o, x) in out.iter_mut().zip(el.iter()) {
                        if *x != Scalar::ZERO {
                            *o += *m * x;
                        }
                    }
                }
            }
            state = next;
        }
        let output = Affine::from_dense(&state[1]);
        Program { sboxes, output }
    }
}

impl Affine {
    /// The sparse form of a dense one.
    fn from_dense(v: &[Scalar]) -> Self {
        let terms = v[1..]
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != Scalar::ZERO)
            .map(|(k, c)| (k as u32, *c))
            .collect();
        Affine { constant: v[0], terms }
    }
}
