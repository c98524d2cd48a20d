//! Filecoin's registered proof types (what a node names in its C1, PoSt and SnapDeals requests), mirrored from
//! filecoin-proofs-api 19.1 `registry.rs` and filecoin-proofs 19.1 `constants.rs` without depending on either
//! (the update proofs' partition counts come from storage-proofs-update itself).
//!
//! Serde names are the variant names, as filecoin-proofs-api writes them (`"StackedDrg2KiBV1_1"`);
//! `as_u64` is Go's `abi.Registered*Proof` number (for seal proofs also the `porep_id`).

use serde::{Deserialize, Serialize};
use storage_proofs_core::api_version::{ApiFeature, ApiVersion};

/// The published sector sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SectorSize {
    /// 2 KiB (test networks).
    S2KiB,
    /// 8 MiB (test networks).
    S8MiB,
    /// 512 MiB (test networks).
    S512MiB,
    /// 32 GiB (mainnet).
    S32GiB,
    /// 64 GiB (mainnet).
    S64GiB,
}

impl SectorSize {
    /// Size in bytes.
    pub const fn bytes(self) -> u64 {
        match self {
            SectorSize::S2KiB => 1 << 11,
            SectorSize::S8MiB => 1 << 23,
            SectorSize::S512MiB => 1 << 29,
            SectorSize::S32GiB => 1 << 35,
            SectorSize::S64GiB => 1 << 36,
        }
    }

    /// The size with this byte count.
    pub fn from_bytes(bytes: u64) -> Option<SectorSize> {
        [SectorSize::S2KiB, SectorSize::S8MiB, SectorSize::S512MiB, SectorSize::S32GiB, SectorSize::S64GiB]
            .into_iter()
            .find(|s| s.bytes() == bytes)
    }

    /// Whether it is one of the small (test network) sizes.
    const fn small(self) -> bool {
        matches!(self, SectorSize::S2KiB | SectorSize::S8MiB | SectorSize::S512MiB)
    }

    /// filecoin-proofs `LAYERS`.
    pub const fn layers(self) -> usize {
        if self.small() {
            2
        } else {
            11
        }
    }

    /// filecoin-proofs `POREP_PARTITIONS` (interactive and synthetic PoRep).
    pub const fn porep_partitions(self) -> usize {
        if self.small() {
            1
        } else {
            10
        }
    }

    /// filecoin-proofs `get_porep_non_interactive_partitions`.
    pub const fn porep_ni_partitions(self) -> usize {
        if self.small() {
            13
        } else {
            126
        }
    }

    /// filecoin-proofs `get_porep_{,non_}interactive_minimum_challenges`.
    pub const fn porep_minimum_challenges(self, non_interactive: bool) -> usize {
        match (self.small(), non_interactive) {
            (true, false) => 2,
            (true, true) => 26,
            (false, false) => 176,
            (false, true) => 2253,
        }
    }

    /// filecoin-proofs `WINDOW_POST_SECTOR_COUNT`.
    pub const fn window_post_sector_count(self) -> usize {
        match self {
            SectorSize::S32GiB => 2349,
            SectorSize::S64GiB => 2300,
            _ => 2,
        }
    }
}

/// WinningPoSt challenges (filecoin-proofs `WINNING_POST_CHALLENGE_COUNT`).
pub const WINNING_POST_CHALLENGE_COUNT: usize = 66;
/// Sectors of one WinningPoSt.
pub const WINNING_POST_SECTOR_COUNT: usize = 1;
/// WindowPoSt challenges per sector.
pub const WINDOW_POST_CHALLENGE_COUNT: usize = 10;

macro_rules! seal_proofs {
    ($($name:ident = $id:expr, $size:ident, $ver:ident, $feat:expr;)*) => {
        /// A registered PoRep proof type (filecoin-proofs-api `RegisteredSealProof`).
        #[allow(non_camel_case_types, missing_docs)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum SealProof { $($name,)* }

        impl SealProof {
            /// Every registered seal proof.
            pub const ALL: &'static [SealProof] = &[$(SealProof::$name,)*];
            /// Go's abi number (= filecoin-proofs-api `REGISTERED_PROOF_IDS`).
            pub fn as_u64(self) -> u64 { match self { $(SealProof::$name => $id,)* } }
            /// The sector size.
            pub fn size(self) -> SectorSize { match self { $(SealProof::$name => SectorSize::$size,)* } }
            /// The proofs API version.
            pub fn api_version(self) -> ApiVersion { match self { $(SealProof::$name => ApiVersion::$ver,)* } }
            /// The API features (synthetic, non-interactive).
            pub fn api_features(self) -> Vec<ApiFeature> { match self { $(SealProof::$name => $feat,)* } }
            /// The registered name.
            pub fn name(self) -> &'static str { match self { $(SealProof::$name => stringify!($name),)* } }
        }
    };
}

seal_proofs! {
    StackedDrg2KiBV1 = 0, S2KiB, V1_0_0, vec![];
    StackedDrg8MiBV1 = 1, S8MiB, V1_0_0, vec![];
    StackedDrg512MiBV1 = 2, S512MiB, V1_0_0, vec![];
    StackedDrg32GiBV1 = 3, S32GiB, V1_0_0, vec![];
    StackedDrg64GiBV1 = 4, S64GiB, V1_0_0, vec![];
    StackedDrg2KiBV1_1 = 5, S2KiB, V1_1_0, vec![];
    StackedDrg8MiBV1_1 = 6, S8MiB, V1_1_0, vec![];
    StackedDrg512MiBV1_1 = 7, S512MiB, V1_1_0, vec![];
    StackedDrg32GiBV1_1 = 8, S32GiB, V1_1_0, vec![];
    StackedDrg64GiBV1_1 = 9, S64GiB, V1_1_0, vec![];
    StackedDrg2KiBV1_1_Feat_SyntheticPoRep = 10, S2KiB, V1_2_0, vec![ApiFeature::SyntheticPoRep];
    StackedDrg8MiBV1_1_Feat_SyntheticPoRep = 11, S8MiB, V1_2_0, vec![ApiFeature::SyntheticPoRep];
    StackedDrg512MiBV1_1_Feat_SyntheticPoRep = 12, S512MiB, V1_2_0, vec![ApiFeature::SyntheticPoRep];
    StackedDrg32GiBV1_1_Feat_SyntheticPoRep = 13, S32GiB, V1_2_0, vec![ApiFeature::SyntheticPoRep];
    StackedDrg64GiBV1_1_Feat_SyntheticPoRep = 14, S64GiB, V1_2_0, vec![ApiFeature::SyntheticPoRep];
    StackedDrg2KiBV1_2_Feat_NonInteractivePoRep = 15, S2KiB, V1_2_0, vec![ApiFeature::NonInteractivePoRep];
    StackedDrg8MiBV1_2_Feat_NonInteractivePoRep = 16, S8MiB, V1_2_0, vec![ApiFeature::NonInteractivePoRep];
    StackedDrg512MiBV1_2_Feat_NonInteractivePoRep = 17, S512MiB, V1_2_0, vec![ApiFeature::NonInteractivePoRep];
    StackedDrg32GiBV1_2_Feat_NonInteractivePoRep = 18, S32GiB, V1_2_0, vec![ApiFeature::NonInteractivePoRep];
    StackedDrg64GiBV1_2_Feat_NonInteractivePoRep = 19, S64GiB, V1_2_0, vec![ApiFeature::NonInteractivePoRep];
}

impl SealProof {
    /// Non-interactive PoRep (its C2 output is a SnarkPack aggregate, which cuzk does not produce).
    pub fn is_non_interactive(self) -> bool {
        self.api_features().contains(&ApiFeature::NonInteractivePoRep)
    }

    /// Synthetic PoRep (same circuit as V1_1).
    pub fn is_synthetic(self) -> bool {
        self.api_features().contains(&ApiFeature::SyntheticPoRep)
    }

    /// filecoin-proofs-api `porep_id`: id (LE u64) ‖ nonce 0 (LE u64) ‖ 16 zero bytes.
    pub fn porep_id(self) -> [u8; 32] {
        let mut id = [0u8; 32];
        id[0..8].copy_from_slice(&self.as_u64().to_le_bytes());
        id
    }

    /// Partitions (= Groth16 proofs) of one sector's C2.
    pub fn partitions(self) -> usize {
        if self.is_non_interactive() {
            self.size().porep_ni_partitions()
        } else {
            self.size().porep_partitions()
        }
    }

    /// Challenges a sector's proof must cover in all.
    pub fn minimum_challenges(self) -> usize {
        self.size().porep_minimum_challenges(self.is_non_interactive())
    }

    /// filecoin-proofs `select_challenges`: ⌈minimum / partitions⌉ (at most 18, checked by a test).
    pub fn challenges_per_partition(self) -> usize {
        self.minimum_challenges().div_ceil(self.partitions())
    }
}

/// Which PoSt a proof type is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoStType {
    /// WinningPoSt: one sector, 66 challenges, one proof.
    Winning,
    /// WindowPoSt: many sectors, 10 challenges each, one proof per partition.
    Window,
}

macro_rules! post_proofs {
    ($($name:ident = $id:expr, $size:ident, $typ:ident, $ver:ident;)*) => {
        /// A registered PoSt proof type (filecoin-proofs-api `RegisteredPoStProof`).
        #[allow(missing_docs)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum PoStProof { $($name,)* }

        impl PoStProof {
            /// Every registered PoSt proof.
            pub const ALL: &'static [PoStProof] = &[$(PoStProof::$name,)*];
            /// Go's abi number.
            pub fn as_u64(self) -> u64 { match self { $(PoStProof::$name => $id,)* } }
            /// The sector size.
            pub fn size(self) -> SectorSize { match self { $(PoStProof::$name => SectorSize::$size,)* } }
            /// Winning or Window.
            pub fn typ(self) -> PoStType { match self { $(PoStProof::$name => PoStType::$typ,)* } }
            /// The proofs API version.
            pub fn api_version(self) -> ApiVersion { match self { $(PoStProof::$name => ApiVersion::$ver,)* } }
            /// The registered name.
            pub fn name(self) -> &'static str { match self { $(PoStProof::$name => stringify!($name),)* } }
        }
    };
}

post_proofs! {
    StackedDrgWinning2KiBV1 = 0, S2KiB, Winning, V1_0_0;
    StackedDrgWinning8MiBV1 = 1, S8MiB, Winning, V1_0_0;
    StackedDrgWinning512MiBV1 = 2, S512MiB, Winning, V1_0_0;
    StackedDrgWinning32GiBV1 = 3, S32GiB, Winning, V1_0_0;
    StackedDrgWinning64GiBV1 = 4, S64GiB, Winning, V1_0_0;
    StackedDrgWindow2KiBV1 = 5, S2KiB, Window, V1_0_0;
    StackedDrgWindow8MiBV1 = 6, S8MiB, Window, V1_0_0;
    StackedDrgWindow512MiBV1 = 7, S512MiB, Window, V1_0_0;
    StackedDrgWindow32GiBV1 = 8, S32GiB, Window, V1_0_0;
    StackedDrgWindow64GiBV1 = 9, S64GiB, Window, V1_0_0;
    StackedDrgWindow2KiBV1_2 = 10, S2KiB, Window, V1_2_0;
    StackedDrgWindow8MiBV1_2 = 11, S8MiB, Window, V1_2_0;
    StackedDrgWindow512MiBV1_2 = 12, S512MiB, Window, V1_2_0;
    StackedDrgWindow32GiBV1_2 = 13, S32GiB, Window, V1_2_0;
    StackedDrgWindow64GiBV1_2 = 14, S64GiB, Window, V1_2_0;
}

impl PoStProof {
    /// Sectors one partition proves (PoStConfig.sector_count).
    pub fn sector_count(self) -> usize {
        match self.typ() {
            PoStType::Winning => WINNING_POST_SECTOR_COUNT,
            PoStType::Window => self.size().window_post_sector_count(),
        }
    }

    /// PoStConfig.challenge_count.
    pub fn challenge_count(self) -> usize {
        match self.typ() {
            PoStType::Winning => WINNING_POST_CHALLENGE_COUNT,
            PoStType::Window => WINDOW_POST_CHALLENGE_COUNT,
        }
    }
}

macro_rules! update_proofs {
    ($($name:ident = $id:expr, $size:ident, $circuit:expr;)*) => {
        /// A registered SnapDeals update proof type (filecoin-proofs-api `RegisteredUpdateProof`, all at
        /// API version 1.1).
        #[allow(missing_docs)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum UpdateProof { $($name,)* }

        impl UpdateProof {
            /// Every registered update proof.
            pub const ALL: &'static [UpdateProof] = &[$(UpdateProof::$name,)*];
            /// Go's `abi.RegisteredUpdateProof` number (what `cuzk.v1` requests carry in `registered_proof`).
            pub fn as_u64(self) -> u64 { match self { $(UpdateProof::$name => $id,)* } }
            /// The sector size.
            pub fn size(self) -> SectorSize { match self { $(UpdateProof::$name => SectorSize::$size,)* } }
            /// The registered name.
            pub fn name(self) -> &'static str { match self { $(UpdateProof::$name => stringify!($name),)* } }
            /// Curio's circuit id for it (`snap-32g`), which the daemon maps to this proof type.
            pub fn circuit_id(self) -> &'static str { match self { $(UpdateProof::$name => $circuit,)* } }
        }
    };
}

update_proofs! {
    StackedDrg2KiBV1 = 0, S2KiB, "snap-2k";
    StackedDrg8MiBV1 = 1, S8MiB, "snap-8m";
    StackedDrg512MiBV1 = 2, S512MiB, "snap-512m";
    StackedDrg32GiBV1 = 3, S32GiB, "snap-32g";
    StackedDrg64GiBV1 = 4, S64GiB, "snap-64g";
}

impl UpdateProof {
    /// The proof type with Go's abi number `id`.
    pub fn from_u64(id: u64) -> Option<UpdateProof> {
        UpdateProof::ALL.iter().copied().find(|p| p.as_u64() == id)
    }

    /// The proof type Curio's circuit id names.
    pub fn from_circuit_id(id: &str) -> Option<UpdateProof> {
        UpdateProof::ALL.iter().copied().find(|p| p.circuit_id() == id)
    }

    /// Sector size in 32-byte nodes.
    pub fn nodes(self) -> usize {
        (self.size().bytes() / 32) as usize
    }

    /// Partitions (= Groth16 proofs) of one update proof (storage-proofs-update `partition_count`).
    pub fn partitions(self) -> usize {
        storage_proofs_update::constants::partition_count(self.nodes())
    }

    /// filecoin-proofs `SectorUpdateConfig::h`: the high bits of a challenge its encoding randomness uses.
    pub fn h(self) -> usize {
        storage_proofs_update::constants::h_default(self.nodes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_facts() {
        for p in SealProof::ALL {
            assert!(
                p.challenges_per_partition() <= 18,
                "{p:?}: filecoin-proofs' MAX_CHALLENGES_PER_PARTITION"
            );
            assert_eq!(p.porep_id()[0] as u64, p.as_u64());
            assert_eq!(SectorSize::from_bytes(p.size().bytes()), Some(p.size()));
        }
        assert_eq!(SealProof::StackedDrg32GiBV1_1.partitions(), 10);
        assert_eq!(SealProof::StackedDrg32GiBV1_1.challenges_per_partition(), 18);
        assert_eq!(PoStProof::StackedDrgWindow32GiBV1_2.sector_count(), 2349);
        let parts: Vec<usize> = UpdateProof::ALL.iter().map(|p| p.partitions()).collect();
        assert_eq!(parts, [1, 4, 16, 16, 16], "storage-proofs-update partition counts");
        for p in UpdateProof::ALL {
            assert_eq!(UpdateProof::from_u64(p.as_u64()), Some(*p));
            assert_eq!(UpdateProof::from_circuit_id(p.circuit_id()), Some(*p));
        }
        assert_eq!(UpdateProof::from_u64(5), None);
        assert_eq!(UpdateProof::StackedDrg32GiBV1.h(), 10);
        let json = serde_json::to_string(&SealProof::StackedDrg2KiBV1_1).unwrap_or_default();
        assert_eq!(json, "\"StackedDrg2KiBV1_1\"");
    }
}
