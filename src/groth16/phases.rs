//! Phase names: the vocabulary of spans, run records, exports and the console (DESIGN.md §3).

/// Read/mmap/validate the params file.
pub const SRS_LOAD: &str = "srs_load";
/// Copy bases to the GPU.
pub const SRS_UPLOAD: &str = "srs_upload";
/// Run a circuit into a `ProvingAssignment` (one span per circuit).
pub const SYNTHESIS: &str = "synthesis";
/// Page-lock a/b/c (B1, GPU only).
pub const PIN_ABC: &str = "pin_abc";
/// Classify aux scalars into zero / one / tail and gather tail bases and scalars.
pub const PREP_MSM: &str = "prep_msm";
/// H = (A·B − C)/Z by NTTs, then its MSM (per circuit).
pub const NTT_MSM_H: &str = "ntt_msm_h";
/// Sub-phase of `ntt_msm_h`: the seven NTTs and the pointwise work.
pub const NTT_H: &str = "ntt_h";
/// Sub-phase of `ntt_msm_h`: the MSM against the H bases.
pub const MSM_H: &str = "msm_h";
/// Sums of the bases whose scalar is exactly one.
pub const BATCH_ADD: &str = "batch_add";
/// MSMs over the compacted non-0/1 scalars for L, A, B_G1.
pub const TAIL_MSM: &str = "tail_msm";
/// The B_G2 MSMs (CPU).
pub const B_G2_MSM: &str = "b_g2_msm";
/// Proof assembly from the MSM results and the randomizers.
pub const ASSEMBLE: &str = "assemble";
/// Pairing check of every proof.
pub const VERIFY: &str = "verify";

/// Every phase in pipeline order (sub-phases after their parent).
pub const ALL: [&str; 13] = [
    SRS_LOAD, SRS_UPLOAD, SYNTHESIS, PIN_ABC, PREP_MSM, NTT_MSM_H, NTT_H, MSM_H, BATCH_ADD, TAIL_MSM,
    B_G2_MSM, ASSEMBLE, VERIFY,
];

/// Whether `name` is a sub-phase (its time is inside its parent's).
pub fn is_sub_phase(name: &str) -> bool {
    name == NTT_H || name == MSM_H
}
