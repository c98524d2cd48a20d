//! Distance from the floor: the machine's peak rates (measured once by `cuzk bench floor`, cached per
//! machine) and a cost model per phase, so a table can say which phase has the most headroom.
//!
//! Cost models (work per instance, from the span's arguments):
//! - MSM (`msm_h`, `tail_msm`): point additions of Pippenger with window c over 255-bit scalars: n·⌈255/c⌉
//!   bucket additions plus 2·2^c·⌈255/c⌉ for the bucket sums; each addition ≈ [`MULS_PER_ADD`] field
//!   multiplications of [`U64_MULS_PER_FP_MUL`] 64-bit multiplies.
//! - `batch_add`: one point addition per base whose scalar is one.
//! - `ntt_h`: six NTTs of the domain: (n/2)·log2 n butterflies each, one Fr multiplication
//!   ([`U64_MULS_PER_FR_MUL`] 64-bit multiplies) per butterfly; bytes moved: 2·32·n per pass with one pass per
//!   [`NTT_RADIX_LOG`] levels. Its floor is the larger of the compute and memory floors.
//! - `srs_upload`: its bytes over the link's measured host-to-device bandwidth.
//!
//! A phase's floor is its work at the machine's peak rate; "% of floor" = floor time / measured time.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::backend::cpu::msm::window_for;
use crate::timeline::record::RecordEvent;
use crate::vocab::Phase;

/// Field multiplications per point addition (mixed Jacobian addition: 7M + 4S).
pub const MULS_PER_ADD: f64 = 11.0;
/// 64-bit multiplies per Fp multiplication (6 limbs, CIOS Montgomery: 2·6² + 6).
pub const U64_MULS_PER_FP_MUL: f64 = 78.0;
/// 64-bit multiplies per Fr multiplication (4 limbs, CIOS Montgomery: 2·4² + 4).
pub const U64_MULS_PER_FR_MUL: f64 = 36.0;
/// NTT levels one pass over memory covers (a cache-sized block of 2^10 elements).
pub const NTT_RADIX_LOG: u32 = 10;
/// NTTs per `ntt_h` (inverse of a, b, c; coset forward of a, b; one coset inverse: backend/cpu/ntt.rs).
pub const NTTS_PER_H: f64 = 6.0;

/// The file the floors are cached in, under the cache root.
pub const FLOOR_FILE: &str = "floor.json";

/// Peak rates of the host, measured by `cuzk bench floor`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuFloor {
    /// 64×64→128-bit multiplies per second, all threads.
    pub mul64_per_s: f64,
    /// Memory bandwidth (read + write) in bytes per second, all threads.
    pub mem_bytes_per_s: f64,
    /// Threads used.
    pub threads: u64,
}

/// Peak rates of one GPU, measured by `cuzk bench floor` on a machine with one.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuFloor {
    /// Device index.
    pub device: u64,
    /// Device name.
    pub name: String,
    /// 64×64→128-bit multiplies per second (as the device runs them: 32-bit multiply-adds).
    pub mul64_per_s: f64,
    /// Device memory bandwidth (read + write) in bytes per second.
    pub mem_bytes_per_s: f64,
    /// Host-to-device copies from page-locked memory, bytes per second.
    pub h2d_pinned_bytes_per_s: f64,
    /// Host-to-device copies from pageable memory, bytes per second.
    pub h2d_pageable_bytes_per_s: f64,
}

/// A machine's floors: what `cuzk bench floor` measured, and on what.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Floors {
    /// The host they belong to (CPU model and threads): a cache from another machine is ignored.
    pub host: String,
    /// When they were measured (RFC 3339).
    pub measured: String,
    /// The host's rates.
    pub cpu: CpuFloor,
    /// Each GPU's rates (empty without a GPU).
    #[serde(default)]
    pub gpus: Vec<GpuFloor>,
    /// Why the GPU part was skipped, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_skipped: Option<String>,
}

/// This host's key: its CPU model and thread count.
pub fn host_key() -> String {
    let h = super::host::host_info();
    format!("{} · {} threads", h.cpu, h.threads)
}

/// Where the floors are cached (`None` without a cache folder).
pub fn floor_path() -> Option<PathBuf> {
    crate::util::dirs::cache_root().map(|d| d.join(FLOOR_FILE))
}

impl Floors {
    /// The cached floors of this machine, if `cuzk bench floor` has run here.
    pub fn load_cached() -> Option<Floors> {
        let text = std::fs::read_to_string(floor_path()?).ok()?;
        let f: Floors = serde_json::from_str(&text).ok()?;
        (f.host == host_key()).then_some(f)
    }

    /// Saves them atomically in the cache; returns the path.
    pub fn save(&self) -> std::io::Result<PathBuf> {
        let path = floor_path().ok_or_else(|| std::io::Error::other("no cache folder (set CUZK_CACHE)"))?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let json = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        crate::util::write_atomic(&path, &json)?;
        Ok(path)
    }

    /// The GPU figures of `device`, if measured.
    pub fn gpu(&self, device: u64) -> Option<&GpuFloor> {
        self.gpus.iter().find(|g| g.device == device)
    }
}

/// Measures this machine's floors: the host always, every GPU where one is usable (else the reason it was
/// skipped). `report` hears a line as each part starts, since the whole takes seconds.
pub fn measure(report: &mut dyn FnMut(String)) -> Floors {
    report(format!(
        "cpu: {} threads: 64-bit multiplies, then memory bandwidth",
        rayon::current_num_threads()
    ));
    let h = crate::backend::cpu::floor::measure();
    let cpu = CpuFloor {
        mul64_per_s: h.mul64_per_s,
        mem_bytes_per_s: h.mem_bytes_per_s,
        threads: h.threads as u64,
    };
    let (mut gpus, mut gpu_skipped) = (Vec::new(), None);
    match crate::backend::gpu::device::gpus() {
        Err(e) => gpu_skipped = Some(e.to_string()),
        Ok(devices) => {
            for g in devices {
                report(format!(
                    "gpu{}: {}: multiplies, memory and host-to-device bandwidth",
                    g.ordinal, g.name
                ));
                match crate::backend::gpu::kernels::floor::measure(g) {
                    Ok(f) => gpus.push(GpuFloor {
                        device: g.ordinal as u64,
                        name: g.name.clone(),
                        mul64_per_s: f.mul64_per_s,
                        mem_bytes_per_s: f.mem_bytes_per_s,
                        h2d_pinned_bytes_per_s: f.h2d_pinned_bytes_per_s,
                        h2d_pageable_bytes_per_s: f.h2d_pageable_bytes_per_s,
                    }),
                    Err(e) => gpu_skipped = Some(format!("gpu{}: {e}", g.ordinal)),
                }
            }
        }
    }
    Floors {
        host: host_key(),
        measured: super::host::rfc3339(std::time::SystemTime::now()),
        cpu,
        gpus,
        gpu_skipped,
    }
}

/// What an instance's work is, and how long the machine's floor says it needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cost {
    /// Amount of work in `unit`s.
    pub work: f64,
    /// The unit: `adds`, `butterflies`, `bytes`.
    pub unit: &'static str,
    /// Time at the machine's peak, µs.
    pub floor_us: f64,
}

/// An argument of the event as a number.
fn arg(e: &RecordEvent, k: &str) -> Option<f64> {
    e.args.get(k).and_then(|v| v.parse::<f64>().ok())
}

/// Point additions of a Pippenger MSM of `n` points (window `c`, or the CPU's choice for `n` when 0).
pub fn msm_adds(n: f64, c: usize) -> f64 {
    if n < 1.0 {
        return 0.0;
    }
    let c = if c == 0 { window_for(n as usize) } else { c }.max(1) as f64;
    let windows = (255.0 / c).ceil();
    n * windows + 2.0 * c.exp2() * windows
}

/// The instance's work and floor on this machine (`None` for phases without a cost model, or when the floor
/// of the unit that ran it was not measured).
pub fn cost(e: &RecordEvent, floors: &Floors) -> Option<Cost> {
    let (mul_rate, mem_rate, h2d) = match e.device {
        Some(d) => {
            let g = floors.gpu(d)?;
            (g.mul64_per_s, g.mem_bytes_per_s, g.h2d_pinned_bytes_per_s)
        }
        None => (floors.cpu.mul64_per_s, floors.cpu.mem_bytes_per_s, 0.0),
    };
    let add_cost = MULS_PER_ADD * U64_MULS_PER_FP_MUL;
    let at = |work: f64, per: f64, rate: f64| (rate > 0.0).then(|| work * per / rate * 1e6);
    let adds = |work: f64, unit| Some(Cost { work, unit, floor_us: at(work, add_cost, mul_rate)? });
    match e.known_phase()? {
        Phase::MsmH => adds(msm_adds(arg(e, "n")?, 0), "adds"),
        Phase::TailMsm => {
            let c = arg(e, "window").unwrap_or(0.0) as usize;
            let n = ["tail_l", "tail_a", "tail_b"].iter().filter_map(|k| arg(e, k)).map(|n| msm_adds(n, c));
            adds(n.sum(), "adds")
        }
        Phase::BatchAdd => adds(arg(e, "ones")?, "adds"),
        Phase::NttH => {
            let n = arg(e, "n")?;
            let log = n.max(2.0).log2();
            let butterflies = NTTS_PER_H * n / 2.0 * log;
            let bytes = NTTS_PER_H * 2.0 * 32.0 * n * (log / f64::from(NTT_RADIX_LOG)).ceil();
            let floor = at(butterflies, U64_MULS_PER_FR_MUL, mul_rate)?.max(at(bytes, 1.0, mem_rate)?);
            Some(Cost { work: butterflies, unit: "butterflies", floor_us: floor })
        }
        Phase::SrsUpload => {
            let bytes = arg(e, "bytes")?;
            Some(Cost { work: bytes, unit: "bytes", floor_us: at(bytes, 1.0, h2d)? })
        }
        _ => None,
    }
}

/// A phase's distance from its floor over a run: summed work and floor time against summed measured time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Headroom {
    /// Work per second achieved.
    pub rate: f64,
    /// The unit of the work.
    pub unit: &'static str,
    /// Floor time / measured time, in percent (100 = at the machine's peak).
    pub pct_of_floor: f64,
}

/// The headroom of `phase` over `events` (every instance with a cost model), if any.
pub fn headroom<'a>(
    phase: &str,
    events: impl IntoIterator<Item = &'a RecordEvent>,
    floors: &Floors,
) -> Option<Headroom> {
    let (mut work, mut floor_us, mut us, mut unit) = (0.0, 0.0, 0.0, None);
    for e in events.into_iter().filter(|e| e.phase == phase) {
        let c = cost(e, floors)?;
        work += c.work;
        floor_us += c.floor_us;
        us += e.dur_us.max(1) as f64;
        unit = Some(c.unit);
    }
    let unit = unit?;
    Some(Headroom { rate: work / (us / 1e6), unit, pct_of_floor: 100.0 * floor_us / us })
}

/// `1.23 G`, `456 M`, `7.8 k`: a rate in a few characters.
pub fn si(x: f64) -> String {
    match x.abs() {
        v if v >= 1e12 => format!("{:.2} T", x / 1e12),
        v if v >= 1e9 => format!("{:.2} G", x / 1e9),
        v if v >= 1e6 => format!("{:.1} M", x / 1e6),
        v if v >= 1e3 => format!("{:.1} k", x / 1e3),
        _ => format!("{x:.0} "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(phase: &str, args: &[(&str, &str)], dur_us: u64) -> RecordEvent {
        RecordEvent {
            phase: phase.into(),
            lane: "cpu".into(),
            circuit: Some(0),
            device: None,
            batch: None,
            repeat: 0,
            start_us: 0,
            dur_us,
            args: args.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        }
    }

    fn floors() -> Floors {
        let cpu = CpuFloor { mul64_per_s: 1e10, mem_bytes_per_s: 1e10, threads: 2 };
        Floors { host: "h".into(), cpu, ..Floors::default() }
    }

    #[test]
    fn msm_and_ntt_costs() {
        // 2^16 points with 13-bit windows: 20 windows → 1,310,720 bucket adds + 2·8192·20 for the sums.
        assert_eq!(msm_adds(65536.0, 13), 65536.0 * 20.0 + 2.0 * 8192.0 * 20.0);
        let c = cost(&ev("batch_add", &[("ones", "1000")], 10), &floors()).expect("cost");
        assert_eq!(c.work, 1000.0);
        assert!((c.floor_us - 1000.0 * 11.0 * 78.0 / 1e10 * 1e6).abs() < 1e-9);
        let ntt = cost(&ev("ntt_h", &[("n", "1024")], 10), &floors()).expect("ntt cost");
        assert_eq!(ntt.work, 6.0 * 512.0 * 10.0);
        assert!(cost(&ev("assemble", &[], 10), &floors()).is_none());
        let mut gpu = ev("msm_h", &[("n", "1024")], 10);
        gpu.device = Some(0);
        assert!(cost(&gpu, &floors()).is_none(), "no GPU floor measured: no claim");
        // H2D copies: bytes over the link's measured pinned bandwidth; none on the host.
        let mut f = floors();
        f.gpus.push(GpuFloor { device: 0, h2d_pinned_bytes_per_s: 2e10, ..GpuFloor::default() });
        let mut up = ev("srs_upload", &[("bytes", "1000000000")], 100_000);
        up.device = Some(0);
        let c = cost(&up, &f).expect("upload cost");
        assert_eq!((c.work, c.unit), (1e9, "bytes"));
        assert!((c.floor_us - 50_000.0).abs() < 1e-6, "1 GB at 20 GB/s: 50 ms, got {c:?}");
        assert_eq!(headroom("srs_upload", [&up], &f).map(|h| h.pct_of_floor.round()), Some(50.0));
        assert!(cost(&ev("srs_upload", &[("bytes", "1000")], 1), &f).is_none(), "no link on the host");
        // The tail MSM sums its three MSMs at the window it ran with.
        let tail = ev("tail_msm", &[("window", "8"), ("tail_l", "1000"), ("tail_a", "2000")], 10);
        let c = cost(&tail, &f).expect("tail cost");
        assert_eq!(c.work, msm_adds(1000.0, 8) + msm_adds(2000.0, 8));
        assert_eq!(c.unit, "adds");
    }

    #[test]
    fn headroom_sums_instances() {
        let e = [ev("batch_add", &[("ones", "1000000")], 1_000_000), ev("batch_add", &[("ones", "0")], 1)];
        let h = headroom("batch_add", e.iter(), &floors()).expect("headroom");
        assert!((h.rate - 1e6 / 1.000001).abs() < 1.0);
        assert!((h.pct_of_floor - 100.0 * 85_800.0 / 1_000_001.0).abs() < 1e-6, "{h:?}");
        assert_eq!(si(1.5e9), "1.50 G");
    }
}
