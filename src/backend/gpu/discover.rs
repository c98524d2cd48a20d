//! Is a GPU usable here? The driver library, at least one device, and NVRTC — each checked before cudarc
//! is asked to load it (with `dynamic-loading`, cudarc panics when a library is missing), so a machine
//! without CUDA gets a reason, never a panic.

use std::sync::OnceLock;

use cudarc::driver::{result as dr, sys as dsys};

/// Environment variable naming libnvrtc's full path, for toolkits outside the loader's search path.
pub const NVRTC_LIB_ENV: &str = "CUZK_NVRTC_LIB";

/// One visible device.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DeviceInfo {
    /// CUDA ordinal.
    pub ordinal: usize,
    /// Marketing name (`NVIDIA H200`).
    pub name: String,
    /// Compute capability (major, minor): the NVRTC target `sm_XY`.
    pub arch: (u32, u32),
    /// Streaming multiprocessors.
    pub sms: u32,
    /// Device memory, bytes.
    pub mem_total: usize,
}

/// What discovery found: the devices, or why none is usable.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Discovery {
    /// Usable devices (empty when `reason` is set).
    pub devices: Vec<DeviceInfo>,
    /// NVRTC version (major, minor), when NVRTC loaded.
    pub nvrtc: Option<(i32, i32)>,
    /// Driver API version (e.g. 13000), when the driver loaded.
    pub driver: Option<i32>,
    /// Why no GPU is usable (`None` when one is).
    pub reason: Option<String>,
}

impl Discovery {
    /// Whether the GPU backend can run.
    pub fn usable(&self) -> bool {
        self.reason.is_none() && !self.devices.is_empty()
    }

    /// One line for `cuzk info` and headers: devices and NVRTC, or the reason.
    pub fn summary(&self) -> String {
        match &self.reason {
            Some(r) => match self.nvrtc {
                Some((ma, mi)) => format!("no GPU: {r} (NVRTC {ma}.{mi} found)"),
                None => format!("no GPU: {r} (NVRTC not found)"),
            },
            None => {
                let devs: Vec<String> = self
                    .devices
                    .iter()
                    .map(|d| {
                        format!(
                            "GPU{} {} (sm_{}{}, {} SMs, {:.1} GiB)",
                            d.ordinal,
                            d.name,
                            d.arch.0,
                            d.arch.1,
                            d.sms,
                            d.mem_total as f64 / (1u64 << 30) as f64
                        )
                    })
                    .collect();
                let (ma, mi) = self.nvrtc.unwrap_or((0, 0));
                let drv =
                    self.driver.map(|v| format!("{}.{}", v / 1000, (v % 1000) / 10)).unwrap_or_default();
                format!("{}; driver API {drv}; NVRTC {ma}.{mi}", devs.join(", "))
            }
        }
    }
}

/// Whether libcuda can be loaded (no panic when it cannot).
pub fn driver_present() -> bool {
    // SAFETY: only tries `dlopen` on the candidate names; no symbol is called.
    unsafe { dsys::is_culib_present() }
}

/// Whether libnvrtc can be loaded. Honours `CUZK_NVRTC_LIB` (a full path) and `$CUDA_HOME/lib64` by loading
/// that file first and keeping it loaded: cudarc then finds it by its soname (`libnvrtc.so.13`).
pub fn nvrtc_present() -> bool {
    static PRELOADED: OnceLock<bool> = OnceLock::new();
    PRELOADED.get_or_init(|| {
        let mut paths: Vec<std::path::PathBuf> = Vec::new();
        if let Some(p) = std::env::var_os(NVRTC_LIB_ENV).filter(|p| !p.is_empty()) {
            paths.push(p.into());
        }
        if let Some(h) = std::env::var_os("CUDA_HOME").filter(|p| !p.is_empty()) {
            let lib = std::path::PathBuf::from(h).join("lib64");
            paths.push(lib.join("libnvrtc.so.13"));
            paths.push(lib.join("libnvrtc.so"));
        }
        for p in paths.iter().filter(|p| p.exists()) {
            // SAFETY: loading libnvrtc runs only its initialisers; the handle is leaked so it stays loaded.
            if let Ok(lib) = unsafe { libloading::Library::new(p) } {
                std::mem::forget(lib);
                return true;
            }
        }
        false
    });
    // SAFETY: as in `driver_present`.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// NVRTC's version, when it loads.
pub fn nvrtc_version() -> Option<(i32, i32)> {
    if !nvrtc_present() {
        return None;
    }
    let (mut ma, mut mi) = (0, 0);
    // SAFETY: NVRTC is present (checked above); both pointers are valid for writes.
    let r = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut ma, &mut mi) };
    (r == cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS).then_some((ma, mi))
}

fn probe() -> Discovery {
    // NVRTC (a ~100 MB library to map) loads beside the driver's start: a one-shot proof waits for both.
    std::thread::scope(|s| {
        let nvrtc = s.spawn(|| {
            let v = nvrtc_version();
            crate::util::marks::mark("nvrtc_loaded");
            v
        });
        let mut d = probe_driver();
        d.nvrtc = nvrtc.join().unwrap_or(None);
        if d.nvrtc.is_none() && d.reason.is_none() {
            d.devices.clear();
            d.reason = Some(format!("NVRTC not found (libnvrtc.so; set LD_LIBRARY_PATH or {NVRTC_LIB_ENV})"));
        }
        d
    })
}

/// The driver's half of [`probe`]: the devices, or why none is usable (`nvrtc` left for the caller).
fn probe_driver() -> Discovery {
    let mut d = Discovery { devices: Vec::new(), nvrtc: None, driver: None, reason: None };
    if !driver_present() {
        d.reason = Some("no CUDA driver (libcuda.so not found)".into());
        return d;
    }
    if let Err(e) = dr::init() {
        d.reason = Some(format!("CUDA driver failed to initialise: {e}"));
        return d;
    }
    crate::util::marks::mark("cuda_initialised");
    let mut v = 0;
    // SAFETY: the driver is loaded and initialised; the pointer is valid for a write.
    if unsafe { dsys::cuDriverGetVersion(&mut v) } == dsys::CUresult::CUDA_SUCCESS {
        d.driver = Some(v);
    }
    let count = match dr::device::get_count() {
        Ok(n) => n.max(0) as usize,
        Err(e) => {
            d.reason = Some(format!("no CUDA device ({e})"));
            return d;
        }
    };
    if count == 0 {
        d.reason = Some("the CUDA driver sees no device".into());
        return d;
    }
    for ordinal in 0..count {
        match device_info(ordinal) {
            Ok(info) => d.devices.push(info),
            Err(e) => {
                d.reason = Some(format!("GPU{ordinal}: {e}"));
                d.devices.clear();
                return d;
            }
        }
    }
    d
}

fn device_info(ordinal: usize) -> Result<DeviceInfo, dr::DriverError> {
    use dsys::CUdevice_attribute as A;
    let dev = dr::device::get(ordinal as i32)?;
    // SAFETY: `dev` is a valid device handle from the initialised driver.
    let attr = |a: A| unsafe { dr::device::get_attribute(dev, a) };
    Ok(DeviceInfo {
        ordinal,
        name: dr::device::get_name(dev)?,
        arch: (
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)? as u32,
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)? as u32,
        ),
        sms: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
        // SAFETY: as above.
        mem_total: unsafe { dr::device::total_mem(dev)? },
    })
}

/// The process-wide discovery, probed once (cuInit is called at most once).
pub fn discovery() -> &'static Discovery {
    static D: OnceLock<Discovery> = OnceLock::new();
    D.get_or_init(|| {
        std::panic::catch_unwind(probe).unwrap_or_else(|_| Discovery {
            devices: Vec::new(),
            nvrtc: None,
            driver: None,
            reason: Some("probing the CUDA driver failed (a symbol is missing: driver too old?)".into()),
        })
    })
}
