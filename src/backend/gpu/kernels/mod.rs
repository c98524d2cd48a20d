//! The kernel modules: one `cuda/*.cu` file each, compiled by NVRTC as one program, and one Rust file here
//! wrapping its launches. Adding a module is one row of [`Module`] and its wrapper file (docs/ARCHITECTURE.md,
//! "To add a kernel module").

pub mod batch_add;
pub mod fixed_base;
pub mod floor;
pub mod msm;
pub mod ntt;

/// One NVRTC program: a `cuda/*.cu` file and the headers it includes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Module {
    /// `cuda/ntt.cu`: NTTs and Groth16's compute_h ([`ntt`]).
    Ntt,
    /// `cuda/msm.cu`: Pippenger MSM in G1 and its shifted bases ([`msm`]).
    Msm,
    /// `cuda/msm_g2.cu`: the G2 MSM's bucket steps and B_G2's gather ([`msm`], `g2d`).
    MsmG2,
    /// `cuda/batch_add.cu`: bitmap batch additions in G1 and G2 ([`batch_add`]).
    BatchAdd,
    /// `cuda/floor.cu`: the machine-floor microbenchmarks of `cuzk bench floor` ([`floor`]).
    Floor,
    /// `cuda/fixed_base.cu`: many scalars times one base, G1 and G2, for setup ([`fixed_base`]).
    FixedBase,
}

impl Module {
    /// Every module: what a device loads at start and the compile-everything check covers.
    pub const ALL: [Module; 6] =
        [Module::Ntt, Module::Msm, Module::MsmG2, Module::BatchAdd, Module::Floor, Module::FixedBase];

    /// The module's file in `cuda/`.
    pub fn file(self) -> &'static str {
        match self {
            Module::Ntt => "ntt.cu",
            Module::Msm => "msm.cu",
            Module::MsmG2 => "msm_g2.cu",
            Module::BatchAdd => "batch_add.cu",
            Module::Floor => "floor.cu",
            Module::FixedBase => "fixed_base.cu",
        }
    }
}
