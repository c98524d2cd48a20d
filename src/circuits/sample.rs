//! Sample files (`samples/*.toml`): what circuit, how big, how many, which seed.

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use super::filecoin::{FilecoinError, FilecoinJob};
use crate::vocab::{limits, Toggles};

/// A loaded, validated sample file.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Short name shown everywhere.
    pub name: String,
    /// One line of description.
    pub description: String,
    /// Where it was loaded from.
    pub path: PathBuf,
    /// Seed of the witness, params and proof randomness.
    pub seed: u64,
    /// Circuits per sector (one per partition).
    pub partitions: usize,
    /// Sectors a job proves.
    pub sectors: usize,
    /// The circuit and its knobs.
    pub circuit: CircuitSpec,
    /// Toggle defaults from the file's `[toggles]` table.
    pub toggles: Toggles,
    /// The loaded request of a `filecoin` sample (its circuits and public inputs).
    pub filecoin: Option<Arc<FilecoinJob>>,
    /// A params file to prove with (`[circuit] params`, `--params`), instead of the params cache.
    pub params_file: Option<PathBuf>,
    /// The seed of the proofs' randomizers when it is not `seed`: the daemon draws one per job from the OS,
    /// keeping `seed` (the params') fixed so every job proves with the same params.
    pub proof_seed: Option<u64>,
}

/// Which circuit a sample proves, with its knobs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CircuitSpec {
    /// A StackedDRG-PoRep-shaped circuit.
    Porep(PorepKnobs),
    /// A chain of SHA-256 compressions (the shape supraseal-c2 is measured on side by side).
    Sha256Chain {
        /// Number of compressions.
        compressions: usize,
    },
    /// Inclusion proofs in an 8-ary Poseidon tree.
    PoseidonMerkle {
        /// Tree height in 8-ary levels.
        height: usize,
        /// Number of inclusion proofs per circuit.
        paths: usize,
    },
    /// Filecoin's real circuits from a request file: a C1 output (PoRep C2) or a vanilla PoSt request.
    Filecoin {
        /// The request file.
        file: PathBuf,
    },
}

/// Which hash the PoRep labeling and tree_d use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LabelHash {
    /// SHA-256, as the real circuit.
    Sha256,
    /// Poseidon: a compact stand-in keeping every other part of the shape (for fast tests).
    Poseidon,
}

/// How a PoRep challenge opens its parents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PorepLayout {
    /// Parent labels are free witnesses, each hashed once: half the real rows, for small fast samples.
    #[default]
    Compact,
    /// As Filecoin's StackedDRG circuit: every parent's column is opened in tree_c, a label hashes its
    /// parents repeated to 37 after a 64-byte header, and each inclusion path's index is a public input.
    Stacked,
}

/// Knobs of the PoRep circuit; the real 32 GiB partition is challenges 18, layers 11, nodes_log2 30,
/// base_parents 6, expander_parents 8, hash sha256, layout stacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PorepKnobs {
    /// Challenges per partition circuit.
    pub challenges: usize,
    /// Layers of labeling.
    pub layers: usize,
    /// log2 of the sector size in 32-byte nodes (multiple of 3 so the 8-ary trees are complete).
    pub nodes_log2: usize,
    /// Base (same-layer) parents per label.
    pub base_parents: usize,
    /// Expander (previous-layer) parents per label after layer 1.
    pub expander_parents: usize,
    /// Hash of labeling and tree_d.
    pub hash: LabelHash,
    /// How parents are opened.
    pub layout: PorepLayout,
}

/// A sample file problem, printed as one line naming the file, the line and the key.
#[derive(Debug, thiserror::Error)]
#[error("{}{}: {msg}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct SampleError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// What is wrong, naming the key.
    pub msg: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSample {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default = "default_seed", deserialize_with = "seed_value")]
    seed: u64,
    #[serde(default = "one")]
    partitions: usize,
    #[serde(default = "one")]
    sectors: usize,
    circuit: RawCircuit,
    #[serde(default)]
    toggles: Toggles,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum Kind {
    Porep,
    Sha256Chain,
    PoseidonMerkle,
    Filecoin,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCircuit {
    kind: Kind,
    challenges: Option<usize>,
    layers: Option<usize>,
    nodes_log2: Option<usize>,
    base_parents: Option<usize>,
    expander_parents: Option<usize>,
    hash: Option<LabelHash>,
    layout: Option<PorepLayout>,
    compressions: Option<usize>,
    height: Option<usize>,
    paths: Option<usize>,
    file: Option<PathBuf>,
    params: Option<PathBuf>,
}

/// `file` as written in the sample at `sample`: relative paths are relative to the sample's folder.
fn beside(sample: &Path, file: &Path) -> PathBuf {
    if file.is_absolute() {
        file.to_path_buf()
    } else {
        sample.parent().unwrap_or(Path::new(".")).join(file)
    }
}

fn default_seed() -> u64 {
    42
}

/// A seed is any u64: a TOML integer (which stops at 2^63 − 1) or a string of decimal or `0x` hex digits for
/// the rest (`seed = "18446744073709551615"`), as `--seed` takes it.
fn seed_value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    struct V;
    const WANT: &str =
        "a seed 0..=18446744073709551615 (an integer, or a string such as \"18446744073709551615\" \
                        or \"0xffffffffffffffff\" above 9223372036854775807)";
    impl serde::de::Visitor<'_> for V {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(WANT)
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| E::custom(format!("{v} is negative; expected {WANT}")))
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<u64, E> {
            let t = v.trim();
            let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => t.parse::<u64>(),
            };
            parsed.map_err(|_| E::custom(format!("\"{v}\" is not {WANT}")))
        }
    }
    d.deserialize_any(V)
}
fn one() -> usize {
    1
}

/// 1-based line of byte offset `pos`.
fn line_of(text: &str, pos: usize) -> usize {
    text.as_bytes()[..pos.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// The key written on the line holding `pos` (`key = value`), with its table (`circuit.layers`), if any.
fn key_at(text: &str, pos: usize) -> Option<String> {
    let pos = floor_char(text, pos);
    let start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let line = text[start..].lines().next()?;
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches('"');
    let table = text[..start]
        .lines()
        .rev()
        .map(str::trim)
        .find_map(|l| l.strip_prefix('[').and_then(|l| l.strip_suffix(']')))
        .map(|t| t.trim().trim_matches('"'));
    Some(match table {
        Some(t) if !t.is_empty() && !key.contains('.') => format!("{t}.{key}"),
        _ => key.to_string(),
    })
}

/// The largest char boundary of `text` at or below `pos` (error spans may point anywhere).
fn floor_char(text: &str, pos: usize) -> usize {
    let mut p = pos.min(text.len());
    while !text.is_char_boundary(p) {
        p -= 1;
    }
    p
}

/// Line of `key` inside `[section]` (or the top level when `section` is empty).
fn line_of_key(text: &str, section: &str, key: &str) -> Option<usize> {
    let mut current = String::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(h) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = h.trim().to_string();
        } else if current == section && line.split('=').next().map(str::trim) == Some(key) {
            return Some(i + 1);
        }
    }
    None
}

impl Sample {
    /// Loads and validates a sample file.
    pub fn load(path: &Path) -> Result<Sample, SampleError> {
        let text = std::fs::read_to_string(path).map_err(|e| SampleError {
            path: path.into(),
            line: None,
            msg: format!("cannot read sample file: {e}"),
        })?;
        Self::parse(path, &text)
    }

    /// Parses and validates sample text; `path` is used in messages.
    pub fn parse(path: &Path, text: &str) -> Result<Sample, SampleError> {
        let raw: RawSample = toml::from_str(text).map_err(|e| {
            let pos = e.span().map(|s| s.start);
            let mut msg = e.message().replace('\n', "; ");
            if let Some(key) = pos.and_then(|p| key_at(text, p)) {
                msg = format!("key `{key}`: {msg}");
            }
            SampleError { path: path.into(), line: pos.map(|p| line_of(text, p)), msg }
        })?;
        let err = |section: &str, key: &str, msg: String| SampleError {
            path: path.into(),
            line: line_of_key(text, section, key),
            msg: format!(
                "key `{}{key}`: {msg}",
                if section.is_empty() { String::new() } else { format!("{section}.") }
            ),
        };
        let range = |section: &str, key: &str, v: usize, r: RangeInclusive<usize>| {
            if r.contains(&v) {
                Ok(v)
            } else {
                Err(err(section, key, format!("{v} is out of range (expected {}..={})", r.start(), r.end())))
            }
        };
        let bound = |section: &str, limit: &limits::Limit, v: usize| {
            let r = *limit.range.start() as usize..=*limit.range.end() as usize;
            range(section, limit.key, v, r)
        };
        bound("", &limits::PARTITIONS, raw.partitions)?;
        bound("", &limits::SECTORS, raw.sectors)?;
        bound("toggles", &limits::BATCH, raw.toggles.batch)?;
        let c = &raw.circuit;
        let knob = |key: &str, v: Option<usize>, default: Option<usize>, r: RangeInclusive<usize>| match v
            .or(default)
        {
            Some(v) => range("circuit", key, v, r),
            None => Err(err("circuit", key, "missing (required for this kind)".into())),
        };
        // Every knob present in the file must belong to the kind.
        let present = [
            ("challenges", c.challenges.is_some()),
            ("layers", c.layers.is_some()),
            ("nodes_log2", c.nodes_log2.is_some()),
            ("base_parents", c.base_parents.is_some()),
            ("expander_parents", c.expander_parents.is_some()),
            ("hash", c.hash.is_some()),
            ("layout", c.layout.is_some()),
            ("compressions", c.compressions.is_some()),
            ("height", c.height.is_some()),
            ("paths", c.paths.is_some()),
            ("file", c.file.is_some()),
            ("params", c.params.is_some()),
        ];
        let (kind_name, allowed): (&str, &[&str]) = match c.kind {
            Kind::Porep => (
                "porep",
                &["challenges", "layers", "nodes_log2", "base_parents", "expander_parents", "hash", "layout"],
            ),
            Kind::Sha256Chain => ("sha256-chain", &["compressions"]),
            Kind::PoseidonMerkle => ("poseidon-merkle", &["height", "paths"]),
            Kind::Filecoin => ("filecoin", &["file", "params"]),
        };
        if let Some((k, _)) = present.iter().find(|(k, on)| *on && !allowed.contains(k)) {
            return Err(err("circuit", k, format!("does not apply to kind {kind_name}")));
        }
        let circuit = match c.kind {
            Kind::Porep => {
                let nodes_log2 = knob("nodes_log2", c.nodes_log2, None, 3..=30)?;
                if nodes_log2 % 3 != 0 {
                    return Err(err(
                        "circuit",
                        "nodes_log2",
                        format!("{nodes_log2} is not a multiple of 3 (8-ary trees need a power of 8 nodes)"),
                    ));
                }
                let k = PorepKnobs {
                    challenges: knob("challenges", c.challenges, None, 1..=64)?,
                    layers: knob("layers", c.layers, None, 1..=11)?,
                    nodes_log2,
                    base_parents: knob("base_parents", c.base_parents, Some(6), 0..=6)?,
                    expander_parents: knob("expander_parents", c.expander_parents, Some(8), 0..=8)?,
                    hash: c.hash.unwrap_or(LabelHash::Sha256),
                    layout: c.layout.unwrap_or_default(),
                };
                // Parents are drawn from nodes no challenge opens, so every tree_c leaf has one column.
                let challenged = raw.partitions.saturating_mul(k.challenges);
                if k.layout == PorepLayout::Stacked && (1usize << nodes_log2) <= challenged {
                    return Err(err(
                        "circuit",
                        "layout",
                        format!(
                            "stacked needs more than partitions × challenges = {challenged} nodes, \
                             nodes_log2 {nodes_log2} has {}",
                            1usize << nodes_log2
                        ),
                    ));
                }
                CircuitSpec::Porep(k)
            }
            Kind::Sha256Chain => CircuitSpec::Sha256Chain {
                compressions: knob("compressions", c.compressions, None, 1..=10_000)?,
            },
            Kind::PoseidonMerkle => CircuitSpec::PoseidonMerkle {
                height: knob("height", c.height, None, 1..=10)?,
                paths: knob("paths", c.paths, None, 1..=100_000)?,
            },
            Kind::Filecoin => {
                let file = c
                    .file
                    .as_ref()
                    .ok_or_else(|| err("circuit", "file", "missing (required for this kind)".into()))?;
                CircuitSpec::Filecoin { file: beside(path, file) }
            }
        };
        let params_file = c.params.as_ref().map(|p| beside(path, p));
        let mut sample = Sample {
            name: raw.name,
            description: raw.description,
            path: path.into(),
            seed: raw.seed,
            partitions: raw.partitions,
            sectors: raw.sectors,
            circuit,
            toggles: raw.toggles,
            filecoin: None,
            params_file,
            proof_seed: None,
        };
        if let CircuitSpec::Filecoin { file } = &sample.circuit {
            let job = FilecoinJob::load(file).map_err(|e| err("circuit", "file", e.to_string()))?;
            if line_of_key(text, "", "partitions").is_some() && raw.partitions != job.partitions() {
                let msg = format!("{} but {} has {}", raw.partitions, file.display(), job.partitions());
                return Err(err("", "partitions", msg));
            }
            sample.partitions = job.partitions();
            sample.filecoin = Some(Arc::new(job));
        }
        Ok(sample)
    }

    /// A sample proving a Filecoin request file (`cuzk prove --c1 FILE` / `--post FILE` / `--snap FILE`): one sector, its
    /// partitions, default toggles.
    pub fn from_request(file: &Path, seed: u64) -> Result<Sample, FilecoinError> {
        let job = FilecoinJob::load(file)?;
        let stem = file.file_stem().map_or_else(|| "request".into(), |s| s.to_string_lossy().into_owned());
        let description = format!("{} from {}", job.registered.name(), file.display());
        Ok(Sample::of_job(job, stem, description, CircuitSpec::Filecoin { file: file.into() }, seed))
    }

    /// A sample proving a request that came as bytes (a daemon job): `name` and `description` as shown,
    /// `circuit` the key the engine's memos know its circuit by (one per registered proof, so every job of
    /// one kind shares the shape count and the params).
    pub fn of_job(
        job: FilecoinJob,
        name: String,
        description: String,
        circuit: CircuitSpec,
        seed: u64,
    ) -> Sample {
        Sample {
            name,
            description,
            path: job.path.clone(),
            seed,
            partitions: job.partitions(),
            sectors: 1,
            circuit,
            toggles: Toggles::default(),
            filecoin: Some(Arc::new(job)),
            params_file: None,
            proof_seed: None,
        }
    }

    /// The seed of the proofs' randomizers: `proof_seed` when set, else `seed`.
    pub fn randomizer_seed(&self) -> u64 {
        self.proof_seed.unwrap_or(self.seed)
    }

    /// Circuits per proof call for one sector.
    pub fn circuits_per_sector(&self) -> usize {
        self.partitions
    }
}
