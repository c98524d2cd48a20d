//! The toggles: run-time switches that change how fast a run is, never what it computes. Every fact about a
//! toggle (id, labels, help, default, which backends it affects, whether ablation flips it) is one row of
//! [`toggles!`]; adding a toggle is one row here plus the code that reads it.

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Which backends a toggle changes anything on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applies {
    /// Every backend.
    All,
    /// Only backends with a device (the GPU): n/a on the CPU.
    DeviceOnly,
}

/// What the table knows about one toggle.
#[derive(Clone, Copy, Debug)]
pub struct ToggleInfo {
    /// The id in `--set`, sample files, records and exports.
    pub id: &'static str,
    /// Short label for the console's toggle list (≤ 12 characters).
    pub short: &'static str,
    /// One line: what turning it on does.
    pub help: &'static str,
    /// Its value when nothing sets it.
    pub default: bool,
    /// The backends it affects.
    pub applies: Applies,
    /// Whether `ablate` flips it.
    pub ablate: bool,
}

macro_rules! toggles {
    ($( $var:ident = $id:literal, short $short:literal, default $default:literal,
        applies $applies:expr, ablate $ablate:literal, help $help:literal; )*) => {
        /// A boolean switch of the prover or engine.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Toggle {
            $( #[doc = $help] $var, )*
        }

        impl Toggle {
            /// Every toggle in display order (the console's keys 1, 2, …).
            pub const ALL: &'static [Toggle] = &[$( Toggle::$var, )*];

            /// Every key a toggles table accepts: the toggle ids, then `batch`.
            pub const KEYS: &'static [&'static str] = &[$( $id, )* BATCH];

            /// The toggle's row of the table.
            pub const fn info(self) -> ToggleInfo {
                match self {
                    $( Toggle::$var => ToggleInfo {
                        id: $id,
                        short: $short,
                        help: $help,
                        default: $default,
                        applies: $applies,
                        ablate: $ablate,
                    }, )*
                }
            }
        }
    };
}

toggles! {
    A1 = "a1", short "A1 smallvec", default false, applies Applies::All, ablate true,
        help "A1: linear-combination terms in SmallVec instead of Vec.";
    A2 = "a2", short "A2 presize", default false, applies Applies::All, ablate true,
        help "A2: reserve synthesis vectors from the circuit's shape.";
    A4 = "a4", short "A4 par B_G2", default true, applies Applies::All, ablate true,
        help "A4: the circuits' B_G2 MSMs in parallel rather than one after another.";
    B1 = "b1", short "B1 pin abc", default false, applies Applies::DeviceOnly, ablate true,
        help "B1: page-lock a/b/c (cuMemHostRegister) before their upload.";
    D4 = "d4", short "D4 windows", default true, applies Applies::All, ablate true,
        help "D4: each tail MSM picks its window from its own size.";
    Pipeline = "pipeline", short "pipeline", default true, applies Applies::All, ablate true,
        help "Synthesize the next call while this one proves.";
    SrsResident = "srs_resident", short "srs resident", default true, applies Applies::DeviceOnly,
        ablate false, help "Keep the SRS bases on the device across calls.";
    Verify = "verify", short "verify", default true, applies Applies::All, ablate false,
        help "Pairing-check every proof after proving.";
    // Default on: synthesis is the GPU proof's long pole, and this makes the SHA chains' GPU proofs about 4×
    // shorter (docs/PERF.md); neutral on the CPU, where the pipeline hides synthesis.
    Pce = "pce", short "pce", default true, applies Applies::All, ablate true,
        help "Record a circuit shape's A, B, C once; later circuits: witness-only synthesis + SpMV.";
    // Default on: page-locked memory uploads at 55 GB/s against 8 GB/s pageable on the H200 host
    // (docs/PERF.md).
    B2 = "b2", short "B2 pin pool", default true, applies Applies::DeviceOnly, ablate true,
        help "B2: a/b/c via reusable pinned host memory: with pce synthesis writes them there, else copied through it (B1 wins).";
    // Default on: it takes the host's b_g2_msm off a 2^22 proof's critical path (docs/PERF.md); with no room
    // on the device it falls back to the host with one warning.
    G2d = "g2d", short "g2d B_G2 dev", default true, applies Applies::DeviceOnly, ablate true,
        help "g2d: B_G2 on the device (bases resident; batch addition and MSM on a second stream beside the lane).";
    // Default on: no per-call device allocations, a few ms after synthesis at 2^22 (docs/PERF.md); off is the
    // driver's default (freed scratch returned at every synchronisation).
    Dpool = "dpool", short "dpool devmem", default true, applies Applies::DeviceOnly, ablate true,
        help "dpool: the device's memory pool keeps freed scratch mapped between calls (no per-call device allocations).";
    // Default on: a's transforms run under b's and c's uploads, about 5 ms off ntt_h at 2^22 (docs/PERF.md);
    // off: uploads and transforms on one stream.
    Streams = "streams", short "strms a/b/c", default true, applies Applies::DeviceOnly, ablate true,
        help "streams: a/b/c uploads on a stream of their own, b's and c's NTTs on two more, so a's run under their copies.";
    Msm2s = "msm2s", short "msm2s passes", default true, applies Applies::DeviceOnly, ablate true,
        help "msm2s: G1 MSMs from 2^22 points in two window passes on two streams: the next pass's sort and this one's reduction under its accumulation.";
    // Default off: msm_h is shorter with it, but the copies' one-time build per params and process pays back
    // only after ~150 proofs, so one-shot proves and short console sessions are slower with it
    // (docs/PERF.md). From 2^21 points only; with no room it falls back, saying so.
    Shift = "shift", short "shift bases", default false, applies Applies::DeviceOnly, ablate true,
        help "shift: msm_h over resident H bases stored once per window as 2^(c·j)·P (one shared bucket set, wider windows; 96 B per copy).";
    // Default on: 7% off after synthesis with eight 2^20 circuits per call (docs/PERF.md); it costs a second
    // set of a/b/c device buffers (96 B per domain element) and is off when that does not fit.
    Hpipe = "hpipe", short "hpipe next H", default true, applies Applies::DeviceOnly, ablate true,
        help "hpipe: with several circuits per call, the next circuit's a/b/c upload and NTTs run under this one's msm_h.";
    // Default on: one wait instead of one per tail, a third off the lane's tails with several circuits per
    // call (docs/PERF.md).
    Tailseq = "tailseq", short "tails queued", default true, applies Applies::DeviceOnly, ablate true,
        help "tailseq: a lane's batch additions and tail MSMs of all its circuits queued back to back, one wait at the end.";
}

impl Toggle {
    /// The toggle's id.
    pub const fn id(self) -> &'static str {
        self.info().id
    }

    /// The toggle with this id.
    pub fn from_id(id: &str) -> Option<Toggle> {
        Toggle::ALL.iter().copied().find(|t| t.id() == id)
    }

    /// The toggles `ablate` flips, in display order.
    pub fn ablated() -> impl Iterator<Item = Toggle> {
        Toggle::ALL.iter().copied().filter(|t| t.info().ablate)
    }

    /// The toggles `ablate` flips on a backend with (or without) a device: flipping one that does not apply
    /// there would only measure noise.
    pub fn ablated_on(has_device: bool) -> impl Iterator<Item = Toggle> {
        Toggle::ablated().filter(move |t| t.not_applicable(has_device).is_none())
    }

    /// Why it does nothing on a backend with (or without) a device (`None`: it applies there).
    pub fn not_applicable(self, has_device: bool) -> Option<&'static str> {
        match self.info().applies {
            Applies::DeviceOnly if !has_device => Some("GPU only"),
            _ => None,
        }
    }

    /// The console key that flips it (its position: `1`…`9`, `0`, then `!`); `None` past the keys.
    pub fn key(self) -> Option<char> {
        TOGGLE_KEYS.get(self as usize).copied()
    }

    /// The toggle console key `c` flips.
    pub fn for_key(c: char) -> Option<Toggle> {
        let i = TOGGLE_KEYS.iter().position(|&k| k == c)?;
        Toggle::ALL.get(i).copied()
    }

    const fn bit(self) -> u32 {
        1 << self as u32
    }
}

impl fmt::Display for Toggle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// Every id a `--set` or `[toggles]` table accepts, comma-separated.
fn expected_ids() -> String {
    Toggle::KEYS.join(", ")
}

/// The console's toggle keys in display order: the number row, then `!`, `@`, `#`, `$`, `%`, `^` and `&`
/// (shift-1 to shift-7) for the eleventh to seventeenth.
pub const TOGGLE_KEYS: [char; 17] =
    ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '!', '@', '#', '$', '%', '^', '&'];

/// The id of the numeric knob beside the boolean toggles.
pub const BATCH: &str = "batch";

/// The settings of one run: every boolean toggle plus `batch` (sectors per proof call). The same seed gives
/// the same proofs for any combination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Toggles {
    bits: u32,
    /// Sectors per proof call (≥ 1).
    pub batch: usize,
}

impl Default for Toggles {
    fn default() -> Self {
        let bits = Toggle::ALL.iter().filter(|t| t.info().default).fold(0, |b, t| b | t.bit());
        Toggles { bits, batch: 1 }
    }
}

/// Why a `--set` string was rejected.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ToggleError {
    /// The id is not a toggle.
    #[error("unknown toggle `{0}` (expected one of {ids})", ids = expected_ids())]
    Unknown(String),
    /// The value does not fit the toggle.
    #[error("toggle `{id}`: `{value}` is not {expected}")]
    BadValue {
        /// The toggle id.
        id: String,
        /// The value given.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
}

impl Toggles {
    /// Whether `t` is on.
    pub fn on(&self, t: Toggle) -> bool {
        self.bits & t.bit() != 0
    }

    /// Turns `t` on or off.
    pub fn set(&mut self, t: Toggle, on: bool) {
        if on {
            self.bits |= t.bit();
        } else {
            self.bits &= !t.bit();
        }
    }

    /// A copy with `t` flipped.
    pub fn flipped(mut self, t: Toggle) -> Toggles {
        self.set(t, !self.on(t));
        self
    }

    /// Applies a `--set` list such as `a1=on,d4=off,batch=2`.
    pub fn apply_set(&mut self, spec: &str) -> Result<(), ToggleError> {
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (id, value) = item.split_once('=').unwrap_or((item, "on"));
            let (id, value) = (id.trim(), value.trim());
            if id == BATCH {
                self.batch = super::limits::BATCH.parse(value).map_err(|_| ToggleError::BadValue {
                    id: id.into(),
                    value: value.into(),
                    expected: "an integer in 1..=1024",
                })?;
                continue;
            }
            let t = Toggle::from_id(id).ok_or_else(|| ToggleError::Unknown(id.into()))?;
            let on = match value {
                "on" | "true" | "1" | "yes" => true,
                "off" | "false" | "0" | "no" => false,
                _ => {
                    return Err(ToggleError::BadValue {
                        id: id.into(),
                        value: value.into(),
                        expected: "on/off",
                    })
                }
            };
            self.set(t, on);
        }
        Ok(())
    }

    /// Compact form for tables, e.g. `a4 d4 pipeline srs_resident verify batch=1` (the toggles that are on).
    pub fn compact(&self) -> String {
        let mut parts: Vec<String> =
            Toggle::ALL.iter().filter(|t| self.on(**t)).map(|t| t.id().to_string()).collect();
        parts.push(format!("{BATCH}={}", self.batch));
        parts.join(" ")
    }

    /// What differs from the defaults, e.g. `a1=on verify=off batch=2`, or `defaults`: the part of a run's
    /// settings a list of runs must show in full.
    pub fn changed(&self) -> String {
        let d = Toggles::default();
        let mut parts: Vec<String> = Toggle::ALL
            .iter()
            .filter(|t| self.on(**t) != d.on(**t))
            .map(|t| format!("{}={}", t.id(), if self.on(*t) { "on" } else { "off" }))
            .collect();
        if self.batch != d.batch {
            parts.push(format!("{BATCH}={}", self.batch));
        }
        if parts.is_empty() {
            "defaults".to_string()
        } else {
            parts.join(" ")
        }
    }
}

/// Records and sample files keep the historical shape: one `id: bool` entry per toggle plus `batch`.
impl Serialize for Toggles {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(Toggle::ALL.len() + 1))?;
        for t in Toggle::ALL {
            m.serialize_entry(t.id(), &self.on(*t))?;
        }
        m.serialize_entry(BATCH, &self.batch)?;
        m.end()
    }
}

/// A key of a toggles table, checked while it is read (so a file parser can point at the key's line).
enum Key {
    Toggle(Toggle),
    Batch,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct KV;
        impl Visitor<'_> for KV {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a toggle id")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                match Toggle::from_id(v) {
                    Some(t) => Ok(Key::Toggle(t)),
                    None if v == BATCH => Ok(Key::Batch),
                    None => Err(E::unknown_field(v, Toggle::KEYS)),
                }
            }
        }
        d.deserialize_identifier(KV)
    }
}

/// The toggles every record named before `pce` (and `b2`) were added.
const PRE_PCE: [Toggle; 8] = [
    Toggle::A1,
    Toggle::A2,
    Toggle::A4,
    Toggle::B1,
    Toggle::D4,
    Toggle::Pipeline,
    Toggle::SrsResident,
    Toggle::Verify,
];

/// Missing ids keep their defaults (except `pce` in a record older than it); an unknown id is an error naming it.
impl<'de> Deserialize<'de> for Toggles {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Toggles, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Toggles;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a table of toggles ({})", expected_ids())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Toggles, A::Error> {
                let mut t = Toggles::default();
                let mut seen = 0u32;
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::Batch => t.batch = map.next_value()?,
                        Key::Toggle(tog) => {
                            seen |= 1 << tog as u32;
                            t.set(tog, map.next_value()?)
                        }
                    }
                }
                // A full record written before `pce` existed (every older toggle named, `pce` not): pce was
                // off then, whatever today's default. Partial tables (sample files) keep the defaults.
                let older = PRE_PCE.iter().fold(0u32, |m, t| m | 1 << *t as u32);
                if seen & older == older && seen & (1 << Toggle::Pce as u32) == 0 {
                    t.set(Toggle::Pce, false);
                }
                // Likewise a full record written before `b2` existed uploaded a/b/c without the pool.
                if seen & older == older && seen & (1 << Toggle::B2 as u32) == 0 {
                    t.set(Toggle::B2, false);
                }
                Ok(t)
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        assert!(Toggle::ALL.len() <= 32, "Toggles keeps one bit per toggle in a u32");
        assert!(
            Toggle::ALL.len() <= TOGGLE_KEYS.len(),
            "the console flips toggles with keys 1..9, 0 and ! to &"
        );
        for (i, t) in Toggle::ALL.iter().enumerate() {
            assert_eq!(*t as usize, i);
            assert_eq!(Toggle::from_id(t.id()), Some(*t));
            assert!(t.info().short.chars().count() <= 12, "{t}: short label too long");
        }
    }

    #[test]
    fn serde_keeps_the_record_shape() {
        let mut t = Toggles::default();
        t.set(Toggle::A1, true);
        t.batch = 3;
        let v = serde_json::to_value(t).unwrap_or_default();
        assert_eq!(v["a1"], serde_json::json!(true));
        assert_eq!(v["b1"], serde_json::json!(false));
        assert_eq!(v["batch"], serde_json::json!(3));
        let back: Toggles = serde_json::from_value(v).unwrap_or_default();
        assert_eq!(back, t);
        let partial: Toggles = serde_json::from_str(r#"{"d4": false}"#).unwrap_or_default();
        assert!(!partial.on(Toggle::D4) && partial.on(Toggle::A4));
        // A record written before `pce` existed loads with pce off.
        let old = r#"{"a1":false,"a2":false,"a4":true,"b1":false,"d4":true,"pipeline":true,"srs_resident":true,"verify":true,"batch":1}"#;
        let old: Toggles = serde_json::from_str(old).unwrap_or_default();
        assert!(!old.on(Toggle::Pce) && old.on(Toggle::A4) && old.on(Toggle::Verify));
        // A sample file's partial table keeps today's default.
        let partial: Toggles = serde_json::from_str(r#"{"a1": true}"#).unwrap_or_default();
        assert!(partial.on(Toggle::Pce) && partial.on(Toggle::A1));
        let bad = serde_json::from_str::<Toggles>(r#"{"zz": true}"#).map(|_| ()).unwrap_err().to_string();
        assert!(bad.contains("unknown field `zz`"), "{bad}");
    }

    #[test]
    fn apply_set() {
        let mut t = Toggles::default();
        t.apply_set("a1=on, d4=off,batch=2,b1").unwrap_or_default();
        assert!(t.on(Toggle::A1) && !t.on(Toggle::D4) && t.on(Toggle::B1));
        assert_eq!(t.batch, 2);
        assert_eq!(t.apply_set("nope=on"), Err(ToggleError::Unknown("nope".into())));
        assert!(matches!(t.apply_set("a1=maybe"), Err(ToggleError::BadValue { .. })));
        assert!(matches!(t.apply_set("batch=0"), Err(ToggleError::BadValue { .. })));
    }

    #[test]
    fn changed_lists_every_difference_from_the_defaults() {
        assert_eq!(Toggles::default().changed(), "defaults");
        let mut t = Toggles::default();
        t.apply_set("a1=on,verify=off,batch=2").unwrap_or_default();
        assert_eq!(t.changed(), "a1=on verify=off batch=2");
        t.apply_set("pce=off").unwrap_or_default();
        assert_eq!(t.changed(), "a1=on verify=off pce=off batch=2");
        assert!(!t.compact().contains("pce"), "{}", t.compact());
        t.apply_set("pce").unwrap_or_default();
        assert!(
            t.compact().contains(" pce b2 g2d dpool streams msm2s hpipe tailseq batch=2"),
            "{}",
            t.compact()
        );
        assert!(Toggle::ablated_on(false).any(|t| t == Toggle::Pce), "pce applies on the CPU and is ablated");
        let cpu: Vec<Toggle> = Toggle::ablated_on(false).collect();
        assert!(!cpu.contains(&Toggle::B1) && !cpu.contains(&Toggle::B2) && cpu.contains(&Toggle::A1));
        assert!(
            Toggle::ablated_on(true).any(|t| t == Toggle::B1)
                && Toggle::ablated_on(true).any(|t| t == Toggle::B2)
        );
        // g2d: device-only, on by default, ablated on the GPU, console key `!`.
        assert!(!cpu.contains(&Toggle::G2d) && Toggle::ablated_on(true).any(|t| t == Toggle::G2d));
        assert!(Toggles::default().on(Toggle::G2d));
        assert_eq!((Toggle::G2d.key(), Toggle::for_key('!')), (Some('!'), Some(Toggle::G2d)));
        assert_eq!((Toggle::A1.key(), Toggle::for_key('0')), (Some('1'), Some(Toggle::B2)));
        assert_eq!((Toggle::Dpool.key(), Toggle::for_key('@')), (Some('@'), Some(Toggle::Dpool)));
        assert!(Toggles::default().on(Toggle::Dpool) && !cpu.contains(&Toggle::Dpool));
        assert_eq!((Toggle::Streams.key(), Toggle::for_key('#')), (Some('#'), Some(Toggle::Streams)));
        assert_eq!((Toggle::Msm2s.key(), Toggle::for_key('$')), (Some('$'), Some(Toggle::Msm2s)));
        assert!(Toggles::default().on(Toggle::Streams) && !cpu.contains(&Toggle::Streams));
        t.apply_set("g2d=off").unwrap_or_default();
        assert!(t.changed().contains("g2d=off"), "{}", t.changed());
    }
}
