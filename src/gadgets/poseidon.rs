//! Poseidon over BLS12-381 Fr with neptune 13's Merkle-tree constants (what Filecoin's tree_c and tree_r_last
//! use), natively and as a circuit gadget, for arities 2, 8 and 11.
//!
//! The gadget ("lean Poseidon") keeps linear combinations short by choosing which values get variables.
//! Each S-box costs 3 constraints, `u·u = x²`, `x²·x² = x⁴`, `x⁴·u = x⁵`; x² and x⁴ are plain variables
//! and the C side of the third constraint is a free linear slot. The textbook gadget allocates x⁵ there and
//! writes every later S-box input as a sum over earlier x⁵ values, used three times per S-box (6–13 k
//! terms per hash). Here the slots define the *S-box inputs* instead: every input after round 0 is a single
//! variable, and each x⁵ is written in its third constraint, once, as a linear form over those variables.
//! In the full rounds that form is a row of M⁻¹ (t + 1 terms); through the partial rounds the forms grow
//! with the round (the inputs follow a rank-(t − 1) recurrence whose inverse is dense), up to t + R_P terms.
//! The slots left over name the output and t − 1 last-round x⁵ values (they make the linear map from x⁵
//! values to variables square and invertible). One round-1 input is a linear function of the others
//! (round 0 has t − 1 S-boxes: the domain tag is a constant) and takes one extra constraint, so the count
//! stays the textbook gadget's `3·(t·R_F + R_P − 1) + 1`:
//!
//! | arity | R_P | constraints | terms per hash: textbook → lean | longest A/B combination |
//! |---|---|---|---|---|
//! | 2 | 55 | 235 | 6 338 → 2 588 | 59 → 3 |
//! | 8 | 57 | 385 | 10 727 → 4 367 | 67 → 9 |
//! | 11 | 57 | 457 | 13 295 → 5 375 | 70 → 12 |
//!
//! (Terms as `MatrixRecorder` stores them, allocated inputs; tests/suite/poseidon_lean.rs. The longest A/B rows
//! are the extra constraint's.) The variable choice is worked out once per arity by linear algebra over the
//! textbook permutation (a `Program`, cached); synthesis computes the values with neptune's optimized
//! native permutation and emits the precomputed forms, so witness-only synthesis does no form evaluation.

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

/// Most S-boxes with constraints in one hash (arity 11: 12·8 − 1 + 57), plus one: per-hash values stay on
/// the stack.
const MAX_SBOXES: usize = 153;

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
    let x: SmallVec<[Scalar; 11]> = inputs.iter().map(|i| i.value()).collect();
    // (u, u², u⁴) per S-box: the powers the permutation computes anyway are the x², x⁴ variables.
    let mut u: SmallVec<[[Scalar; 3]; MAX_SBOXES]> = SmallVec::new();
    let out_value = match inputs.len() {
        2 => sbox_inputs(constants_2(), &x, &mut u),
        8 => sbox_inputs(constants_8(), &x, &mut u),
        _ => sbox_inputs(constants_11(), &x, &mut u),
    };
    debug_assert_eq!(u.len(), prog.sboxes.len());

    // The program's variables first (S-box inputs, the output, last-round x⁵ values), then per S-box x², x⁴.
    let mut out = None;
    let vars: SmallVec<[Variable; MAX_SBOXES]> = prog
        .vars
        .iter()
        .map(|v| match *v {
            ZValue::Input(k) => cs.alloc(u[k][0]),
            ZValue::X5(k) => cs.alloc(u[k][2] * u[k][0]),
            ZValue::Output => {
                let n = AllocatedNum::alloc(cs, out_value);
                out = Some(n);
                n.variable()
            }
        })
        .collect();
    for (sbox, &[_, x2, x4]) in prog.sboxes.iter().zip(u.iter()) {
        let (v2, v4) = (cs.alloc(x2), cs.alloc(x4));
        let input = |mut lc: LinearCombination<CS::Store>| match sbox.input {
            SboxInput::First { input, rc } => {
                inputs[input].push_scaled(&mut lc, Scalar::ONE);
                if rc != Scalar::ZERO {
                    lc.push(Variable::ONE, rc);
                }
                lc
            }
            SboxInput::Var(z) => lc + vars[z as usize],
        };
        cs.enforce(input, input, |lc| lc + v2);
        cs.enforce(|lc| lc + v2, |lc| lc + v2, |lc| lc + v4);
        cs.enforce(|lc| lc + v4, input, |lc| sbox.x5.add_to(lc, &vars));
    }
    let (z, form) = &prog.extra;
    cs.enforce(|lc| form.add_to(lc, &vars), |lc| lc + CS::one(), |lc| lc + vars[*z as usize]);
    match out {
        Some(n) => n,
        None => unreachable!("every program has an output variable"),
    }
}

/// Neptune's optimized native permutation (pre-sparse and sparse matrices in the partial rounds, compressed
/// round constants), recording the input of every S-box that has constraints with its square and fourth
/// power, in program order; returns the hash. The recorded values equal the textbook S-box inputs (checked by the tests against the
/// program's forms): only element 0 enters a partial S-box and the sparse factorization keeps it.
fn sbox_inputs<A: Arity<Scalar>>(
    c: &PoseidonConstants<Scalar, A>,
    inputs: &[Scalar],
    out: &mut SmallVec<[[Scalar; 3]; MAX_SBOXES]>,
) -> Scalar {
    let t = c.width();
    let half = c.half_full_rounds;
    let crc = &c.compressed_round_constants;
    let mut e: SmallVec<[Scalar; 12]> = std::iter::once(c.domain_tag).chain(inputs.iter().copied()).collect();
    for (x, k) in e.iter_mut().zip(crc) {
        *x += k;
    }
    let mut off = t;
    let rounds = c.full_rounds + c.partial_rounds;
    for round in 0..rounds {
        let full = round < half || round >= half + c.partial_rounds;
        let last = round == rounds - 1;
        for (i, x) in e.iter_mut().enumerate().take(if full { t } else { 1 }) {
            let x2 = x.square();
            let x4 = x2.square();
            if round > 0 || i > 0 {
                out.push([*x, x2, x4]);
            }
            *x *= x4;
            if !last {
                *x += crc[off + i];
            }
        }
        if !last {
            off += if full { t } else { 1 };
        }
        // The linear layer, as neptune's `round_product_mds`.
        let mut next: SmallVec<[Scalar; 12]> = SmallVec::from_elem(Scalar::ZERO, t);
        if round + 1 == half {
            let m = &c.pre_sparse_matrix;
            for (j, n) in next.iter_mut().enumerate() {
                *n = e.iter().zip(m.iter()).fold(Scalar::ZERO, |acc, (x, row)| acc + *x * row[j]);
            }
        } else if round >= half && round < half + c.partial_rounds {
            let s = &c.sparse_matrixes[round - half];
            next[0] = e.iter().zip(&s.w_hat).fold(Scalar::ZERO, |acc, (x, w)| acc + *x * w);
            for j in 1..t {
                next[j] = e[j] + s.v_rest[j - 1] * e[0];
            }
        } else {
            for (n, row) in next.iter_mut().zip(c.mds_matrices.m.iter()) {
                *n = row.iter().zip(e.iter()).fold(Scalar::ZERO, |acc, (m, x)| acc + *m * x);
            }
        }
        e = next;
    }
    e[1]
}

/// A linear form over the program's variables (indices into the per-hash variable list) plus a constant.
struct Form {
    constant: Scalar,
    terms: Box<[(u32, Scalar)]>,
}

impl Form {
    /// Adds the form to `lc`, mapping variable indices to this hash's variables.
    #[inline]
    fn add_to<S: TermStore>(&self, mut lc: LinearCombination<S>, vars: &[Variable]) -> LinearCombination<S> {
        if self.constant != Scalar::ZERO {
            lc.push(Variable::ONE, self.constant);
        }
        for &(i, c) in self.terms.iter() {
            lc.push(vars[i as usize], c);
        }
        lc
    }

    /// The form of `coeffs · (z − z_const) + constant` over the variables.
    fn from_dense(coeffs: &[Scalar], z_const: &[Scalar], constant: Scalar) -> Self {
        let mut k = constant;
        let mut terms = Vec::new();
        for (j, (c, zc)) in coeffs.iter().zip(z_const).enumerate() {
            if *c != Scalar::ZERO {
                k -= *c * zc;
                terms.push((j as u32, *c));
            }
        }
        Form { constant: k, terms: terms.into() }
    }
}

/// Where an S-box's input comes from.
#[derive(Clone, Copy)]
enum SboxInput {
    /// Round 0: hash input `input` plus the round constant `rc`.
    First { input: usize, rc: Scalar },
    /// The program variable with this index.
    Var(u32),
}

/// One S-box: its input and its x⁵ as a form over the variables (the C side of its third constraint).
struct Sbox {
    input: SboxInput,
    x5: Form,
}

/// What a program variable holds; the value is computed natively for each hash.
#[derive(Clone, Copy)]
enum ZValue {
    /// The input of S-box k.
    Input(usize),
    /// The hash.
    Output,
    /// x⁵ of (last-round) S-box k.
    X5(usize),
}

/// The lean gadget for one arity: S-boxes in permutation order, the variables, and the one input that is
/// a linear function of the others (defined by the extra constraint `form · 1 = z`).
struct Program {
    sboxes: Vec<Sbox>,
    vars: Vec<ZValue>,
    extra: (u32, Form),
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

/// One S-box of the textbook permutation, symbolically: its input as a dense affine form (index 0 the
/// constant, 1 + i hash input i, 1 + arity + k the x⁵ of S-box k).
struct Symbolic {
    input: Vec<Scalar>,
    last_round: bool,
}

/// The textbook permutation run on affine forms: every S-box with constraints and the output form.
fn symbolic<A: Arity<Scalar>>(c: &PoseidonConstants<Scalar, A>) -> (Vec<Symbolic>, Vec<Scalar>) {
    let (arity, t) = (c.arity(), c.width());
    let rounds = c.full_rounds + c.partial_rounds;
    let n = 1 + arity + t * c.full_rounds + c.partial_rounds;
    let rc = c.round_constants.as_deref().expect("PoseidonConstants::new always carries the round constants");
    let unit = |k: usize| {
        let mut v = vec![Scalar::ZERO; n];
        v[k] = Scalar::ONE;
        v
    };
    let mut state: Vec<Vec<Scalar>> = (0..t)
        .map(|i| {
            if i == 0 {
                Vec::from_iter((0..n).map(|j| if j == 0 { c.domain_tag } else { Scalar::ZERO }))
            } else {
                unit(i)
            }
        })
        .collect();
    let mut sboxes: Vec<Symbolic> = Vec::new();
    for r in 0..rounds {
        let full = r < c.half_full_rounds || r >= c.half_full_rounds + c.partial_rounds;
        for (i, el) in state.iter_mut().enumerate() {
            el[0] += rc[r * t + i];
        }
        for el in state.iter_mut().take(if full { t } else { 1 }) {
            if el[1..].iter().all(|x| *x == Scalar::ZERO) {
                el[0] = el[0].pow_vartime([5]);
            } else {
                sboxes.push(Symbolic { input: el.clone(), last_round: r + 1 == rounds });
                *el = unit(arity + sboxes.len());
            }
        }
        let mut next = vec![vec![Scalar::ZERO; n]; t];
        for (row, out) in c.mds_matrices.m.iter().zip(next.iter_mut()) {
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
    let output = state.swap_remove(1);
    (sboxes, output)
}

/// An echelon basis for testing linear independence (rows normalized at their pivots, each reduced
/// against the earlier ones).
#[derive(Default)]
struct Echelon {
    rows: Vec<(usize, Vec<Scalar>)>,
}

impl Echelon {
    /// Adds `v` if it is independent of the basis; returns whether it was.
    fn insert(&mut self, mut v: Vec<Scalar>) -> bool {
        for (p, b) in &self.rows {
            let f = v[*p];
            if f != Scalar::ZERO {
                for (x, y) in v.iter_mut().zip(b) {
                    if *y != Scalar::ZERO {
                        *x -= f * y;
                    }
                }
            }
        }
        let Some(p) = v.iter().position(|x| *x != Scalar::ZERO) else { return false };
        let inv = v[p].invert().unwrap_or(Scalar::ZERO);
        v.iter_mut().for_each(|x| *x *= inv);
        self.rows.push((p, v));
        true
    }
}

/// The inverse of a square matrix (Gauss–Jordan); `None` when singular.
fn invert(m: &[Vec<Scalar>]) -> Option<Vec<Vec<Scalar>>> {
    let n = m.len();
    let mut a: Vec<Vec<Scalar>> = m.to_vec();
    let mut inv: Vec<Vec<Scalar>> =
        (0..n).map(|i| (0..n).map(|j| if i == j { Scalar::ONE } else { Scalar::ZERO }).collect()).collect();
    for col in 0..n {
        let p = (col..n).find(|&r| a[r][col] != Scalar::ZERO)?;
        a.swap(col, p);
        inv.swap(col, p);
        let f = Option::<Scalar>::from(a[col][col].invert())?;
        a[col].iter_mut().chain(inv[col].iter_mut()).for_each(|x| *x *= f);
        let (pa, pi) = (a[col].clone(), inv[col].clone());
        for r in 0..n {
            let g = a[r][col];
            if r == col || g == Scalar::ZERO {
                continue;
            }
            for (x, y) in a[r].iter_mut().zip(&pa).chain(inv[r].iter_mut().zip(&pi)) {
                if *y != Scalar::ZERO {
                    *x -= g * y;
                }
            }
        }
    }
    Some(inv)
}

impl Program {
    /// Chooses the variables (module docs) and writes every S-box's x⁵ as a form over them.
    fn new<A: Arity<Scalar>>(c: &PoseidonConstants<Scalar, A>) -> Self {
        let arity = c.arity();
        let (sym, output) = symbolic(c);
        let s = sym.len();
        let x_part = |v: &[Scalar]| v[1 + arity..].to_vec();
        let first = |v: &[Scalar]| v[1 + arity..].iter().all(|x| *x == Scalar::ZERO);

        // Rows of the map X ↦ (variables), in the order tried: S-box inputs after round 0, the output,
        // then last-round x⁵ values until the map is square and invertible.
        let mut basis = Echelon::default();
        let (mut rows, mut z_const, mut vars) = (Vec::new(), Vec::new(), Vec::new());
        let mut dependent = Vec::new();
        let mut choose = |basis: &mut Echelon, row: Vec<Scalar>, k: Scalar, z: ZValue| {
            let taken = basis.insert(row.clone());
            if taken {
                rows.push(row);
                z_const.push(k);
                vars.push(z);
            }
            taken
        };
        for (k, sb) in sym.iter().enumerate() {
            if !first(&sb.input) && !choose(&mut basis, x_part(&sb.input), sb.input[0], ZValue::Input(k)) {
                dependent.push(k);
            }
        }
        let out_taken = choose(&mut basis, x_part(&output), output[0], ZValue::Output);
        for (k, _) in sym.iter().enumerate().filter(|(_, sb)| sb.last_round) {
            let mut e = vec![Scalar::ZERO; s];
            e[k] = Scalar::ONE;
            choose(&mut basis, e, Scalar::ZERO, ZValue::X5(k));
        }
        assert!(
            out_taken && rows.len() == s && dependent.len() == 1,
            "poseidon program: unexpected structure"
        );
        let l = invert(&rows).expect("the chosen rows are independent");

        let mut index = vec![None; s];
        for (j, z) in vars.iter().enumerate() {
            if let ZValue::Input(k) = z {
                index[*k] = Some(j as u32);
            }
        }
        // The dependent input: A·X + c = (A·L)·(z − z_const) + c, over the other variables.
        let d = dependent[0];
        let a = x_part(&sym[d].input);
        let al: Vec<Scalar> =
            (0..s).map(|j| a.iter().zip(&l).fold(Scalar::ZERO, |acc, (x, row)| acc + *x * row[j])).collect();
        let extra = (s as u32, Form::from_dense(&al, &z_const, sym[d].input[0]));
        index[d] = Some(s as u32);
        vars.push(ZValue::Input(d));

        let sboxes = sym
            .iter()
            .enumerate()
            .map(|(k, sb)| {
                let input = match index[k] {
                    Some(z) => SboxInput::Var(z),
                    None => {
                        let i = sb.input[1..=arity].iter().position(|x| *x == Scalar::ONE).unwrap_or(0);
                        SboxInput::First { input: i, rc: sb.input[0] }
                    }
                };
                Sbox { input, x5: Form::from_dense(&l[k], &z_const, Scalar::ZERO) }
            })
            .collect();
        Program { sboxes, vars, extra }
    }
}
