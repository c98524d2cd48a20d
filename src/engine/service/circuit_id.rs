//! Curio's circuit ids (`porep-32g`, `wpost-32g`, `winning-32g`, `snap-32g`) and the registered proofs they
//! name: the key of the SRS a job proves with, in `GetStatus`, `PreloadSRS` and `EvictSRS`.

use crate::circuits::filecoin::registry::{PoStProof, PoStType, SealProof, SectorSize, UpdateProof};
use crate::circuits::filecoin::Registered;

/// What a circuit id names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CircuitTarget {
    /// A real circuit cuzk proves (PoRep C2, WindowPoSt, WinningPoSt, SnapDeals update).
    Real(Registered),
}

/// The size part of a circuit id: `2k`, `8m`, `512m`, `32g`, `64g`.
pub fn size_tag(size: SectorSize) -> &'static str {
    match size {
        SectorSize::S2KiB => "2k",
        SectorSize::S8MiB => "8m",
        SectorSize::S512MiB => "512m",
        SectorSize::S32GiB => "32g",
        SectorSize::S64GiB => "64g",
    }
}

const SIZES: [SectorSize; 5] =
    [SectorSize::S2KiB, SectorSize::S8MiB, SectorSize::S512MiB, SectorSize::S32GiB, SectorSize::S64GiB];

/// The circuit id of a registered proof: `porep-<size>`, `wpost-<size>`, `winning-<size>` or `snap-<size>`.
pub fn circuit_id(r: Registered) -> String {
    match r {
        Registered::Seal(p) => format!("porep-{}", size_tag(p.size())),
        Registered::Post(p) if p.typ() == PoStType::Winning => format!("winning-{}", size_tag(p.size())),
        Registered::Post(p) => format!("wpost-{}", size_tag(p.size())),
        Registered::Update(p) => snap_circuit_id(p.size()),
    }
}

/// The circuit id of a SnapDeals proof of `size`.
pub fn snap_circuit_id(size: SectorSize) -> String {
    format!("snap-{}", size_tag(size))
}

/// What `id` names, as the current registered proof of its kind and size (PoRep V1_1, WindowPoSt V1_2,
/// WinningPoSt V1: the circuits whose params filecoin-proofs publishes); one line naming it otherwise.
pub fn parse_circuit_id(id: &str) -> Result<CircuitTarget, String> {
    let bad = || {
        format!(
            "circuit_id {id:?}: expected porep-, wpost-, winning- or snap- followed by 2k, 8m, 512m, 32g or 64g"
        )
    };
    let (kind, tag) = id.trim().split_once('-').ok_or_else(bad)?;
    let size = SIZES.into_iter().find(|s| size_tag(*s) == tag.to_ascii_lowercase()).ok_or_else(bad)?;
    let seal =
        |s: SealProof| s.size() == size && s.api_version() == SealProof::StackedDrg2KiBV1_1.api_version();
    let post = |t: PoStType| move |p: &&PoStProof| p.size() == size && p.typ() == t;
    let found = match kind.to_ascii_lowercase().as_str() {
        "porep" => SealProof::ALL
            .iter()
            .copied()
            .find(|s| seal(*s) && s.api_features().is_empty())
            .map(Registered::Seal),
        // The newest WindowPoSt of the size (V1_2), the one WinningPoSt.
        "wpost" => PoStProof::ALL.iter().rev().find(post(PoStType::Window)).copied().map(Registered::Post),
        "winning" => PoStProof::ALL.iter().find(post(PoStType::Winning)).copied().map(Registered::Post),
        "snap" => UpdateProof::ALL.iter().find(|p| p.size() == size).copied().map(Registered::Update),
        _ => None,
    };
    found.map(CircuitTarget::Real).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every id names a proof whose id is itself; case and spaces do not matter; others are refused.
    #[test]
    fn ids_round_trip() {
        for kind in ["porep", "wpost", "winning"] {
            for size in SIZES {
                let id = format!("{kind}-{}", size_tag(size));
                let Ok(CircuitTarget::Real(r)) = parse_circuit_id(&id) else { panic!("{id}") };
                assert_eq!(circuit_id(r), id);
            }
        }
        assert_eq!(
            parse_circuit_id(" PoRep-32G"),
            Ok(CircuitTarget::Real(Registered::Seal(SealProof::StackedDrg32GiBV1_1)))
        );
        assert_eq!(
            parse_circuit_id("wpost-2k"),
            Ok(CircuitTarget::Real(Registered::Post(PoStProof::StackedDrgWindow2KiBV1_2)))
        );
        assert_eq!(
            parse_circuit_id("snap-64g"),
            Ok(CircuitTarget::Real(Registered::Update(UpdateProof::ALL[4])))
        );
        assert_eq!(circuit_id(Registered::Update(UpdateProof::ALL[0])), "snap-2k");
        for bad in ["", "porep", "porep-16g", "seal-32g", "porep32g"] {
            let e = parse_circuit_id(bad).expect_err(bad);
            assert!(e.starts_with("circuit_id"), "{e}");
        }
    }
}
