//! Sector shapes: the merkle tree types of filecoin-proofs' `constants.rs` for each published size.

use filecoin_hashers::poseidon::PoseidonHasher;
use filecoin_hashers::sha256::Sha256Hasher;
use storage_proofs_core::merkle::LCTree;
use typenum::{U0, U2, U8};

/// comm_d tree hasher (filecoin-proofs `DefaultPieceHasher`).
pub type PieceHasher = Sha256Hasher;
/// comm_c / comm_r_last tree hasher (filecoin-proofs `DefaultTreeHasher`).
pub type TreeHasher = PoseidonHasher;

/// 2 KiB, 8 MiB and 512 MiB sectors.
pub type ShapeBase = LCTree<TreeHasher, U8, U0, U0>;
/// 32 GiB sectors.
pub type ShapeSub8 = LCTree<TreeHasher, U8, U8, U0>;
/// 64 GiB sectors.
pub type ShapeTop2 = LCTree<TreeHasher, U8, U8, U2>;

/// Calls `$f::<Tree>($args..)` with the tree type of a [`SectorSize`](super::registry::SectorSize), like
/// filecoin-proofs' `with_shape!`.
macro_rules! with_shape {
    ($size:expr, $f:ident $(, $args:expr)* $(,)?) => {
        match $size {
            $crate::circuits::filecoin::registry::SectorSize::S2KiB
            | $crate::circuits::filecoin::registry::SectorSize::S8MiB
            | $crate::circuits::filecoin::registry::SectorSize::S512MiB => {
                $f::<$crate::circuits::filecoin::shapes::ShapeBase>($($args),*)
            }
            $crate::circuits::filecoin::registry::SectorSize::S32GiB => {
                $f::<$crate::circuits::filecoin::shapes::ShapeSub8>($($args),*)
            }
            $crate::circuits::filecoin::registry::SectorSize::S64GiB => {
                $f::<$crate::circuits::filecoin::shapes::ShapeTop2>($($args),*)
            }
        }
    };
}
pub(crate) use with_shape;
