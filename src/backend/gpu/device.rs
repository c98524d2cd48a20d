//! One visible GPU: its context and stream, its loaded kernel modules and a per-device memo; opened once per
//! process so modules, twiddle tables and resident bases survive across proving calls.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream};

use super::compile;
use super::discover::{discovery, DeviceInfo};
use super::error::{GResult, GpuError};
use super::kernels::Module;
use super::mem::dpool::{keep_bytes, DevicePool};
use super::streams::{LaneStreams, StageStreams};

/// A device with everything the ops need; every op of this device enqueues on `stream`.
pub struct Gpu {
    /// CUDA ordinal (the `gpu<d>` lane).
    pub ordinal: usize,
    /// Marketing name.
    pub name: String,
    /// Compute capability (major, minor).
    pub arch: (u32, u32),
    /// Streaming multiprocessors (for launch sizing).
    pub sms: u32,
    /// Device memory, bytes.
    pub mem_total: usize,
    /// The device's primary context.
    pub ctx: Arc<CudaContext>,
    /// The one stream of this device.
    pub stream: Arc<CudaStream>,
    /// The stream-ordered pool kept warm between calls (`None`: the driver's default, nothing kept).
    pub pool: Option<DevicePool>,
    /// The streams beside `stream` by role (made on first use).
    lane_streams: OnceLock<LaneStreams>,
    /// `hpipe`'s streams (made on first use).
    stage_streams: OnceLock<StageStreams>,
    modules: Mutex<HashMap<Module, Arc<CudaModule>>>,
    memo: Mutex<HashMap<String, Arc<dyn Any + Send + Sync>>>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GPU{} {} (sm_{}{})", self.ordinal, self.name, self.arch.0, self.arch.1)
    }
}

impl Gpu {
    fn open(info: &DeviceInfo) -> GResult<Gpu> {
        let ctx = CudaContext::new(info.ordinal)?;
        let stream = ctx.new_stream()?;
        let pool = DevicePool::open(&ctx, keep_bytes(info.mem_total));
        Ok(Gpu {
            pool,
            ordinal: info.ordinal,
            name: info.name.clone(),
            arch: info.arch,
            sms: info.sms,
            mem_total: info.mem_total,
            ctx,
            stream,
            lane_streams: OnceLock::new(),
            stage_streams: OnceLock::new(),
            modules: Mutex::new(HashMap::new()),
            memo: Mutex::new(HashMap::new()),
        })
    }

    /// Function `name` of `module`, compiling (NVRTC, cubin cache on disk) and loading on first use. A cached
    /// cubin the driver rejects is evicted and rebuilt once.
    pub fn kernel(&self, module: Module, name: &str) -> GResult<CudaFunction> {
        let m = self.module(module)?;
        m.load_function(name)
            .map_err(|e| GpuError::Driver(format!("kernel {name} of cuda/{}: {e}", module.file())))
    }

    fn module(&self, module: Module) -> GResult<Arc<CudaModule>> {
        let mut map = crate::util::lock(&self.modules);
        if let Some(m) = map.get(&module) {
            return Ok(m.clone());
        }
        let loaded = self.load(module, compile::cubin(module, self.arch)?)?;
        map.insert(module, loaded.clone());
        Ok(loaded)
    }

    /// Loads a cubin; one the driver rejects is evicted from the cache and rebuilt once.
    fn load(
        &self,
        module: Module,
        (bin, path): (Vec<u8>, Option<std::path::PathBuf>),
    ) -> GResult<Arc<CudaModule>> {
        match self.ctx.load_module(cudarc::nvrtc::Ptx::from_binary(bin)) {
            Ok(m) => Ok(m),
            Err(first) => {
                let Some(p) = path else { return Err(first.into()) };
                tracing::warn!("cached cubin {} rejected ({first}); rebuilding", p.display());
                let _ = std::fs::remove_file(&p);
                let (bin, _) = compile::cubin(module, self.arch)?;
                Ok(self.ctx.load_module(cudarc::nvrtc::Ptx::from_binary(bin))?)
            }
        }
    }

    /// Compiles (or reads from the cache) every module not loaded yet, the modules in parallel, and loads
    /// them: NVRTC takes tens of seconds per module, so one after another at first use would add up.
    pub fn preload(&self) -> GResult<()> {
        let missing: Vec<Module> = {
            let map = crate::util::lock(&self.modules);
            Module::ALL.into_iter().filter(|m| !map.contains_key(m)).collect()
        };
        let arch = self.arch;
        let bins: Vec<(Module, GResult<_>)> = std::thread::scope(|s| {
            let hs: Vec<_> = missing.iter().map(|&m| (m, s.spawn(move || compile::cubin(m, arch)))).collect();
            hs.into_iter()
                .map(|(m, h)| {
                    (
                        m,
                        h.join().unwrap_or_else(|_| {
                            Err(GpuError::Compile { module: m.file(), log: "NVRTC thread panicked".into() })
                        }),
                    )
                })
                .collect()
        });
        for (m, bin) in bins {
            let loaded = self.load(m, bin?)?;
            crate::util::lock(&self.modules).entry(m).or_insert(loaded);
        }
        Ok(())
    }

    /// The lane's streams beside `stream`, by role.
    pub fn streams(&self) -> GResult<&LaneStreams> {
        once(&self.lane_streams, || LaneStreams::new(&self.ctx))
    }

    /// `hpipe`'s staging streams.
    pub fn stage_streams(&self) -> GResult<&StageStreams> {
        once(&self.stage_streams, || StageStreams::new(&self.ctx))
    }

    /// Device memory free now, bytes.
    pub fn free_mem(&self) -> GResult<usize> {
        Ok(self.ctx.mem_get_info()?.0)
    }

    /// Per-device memo (twiddle tables, plans): built once by `make`, shared afterwards.
    pub fn cached<T: Any + Send + Sync>(
        &self,
        key: &str,
        make: impl FnOnce() -> GResult<T>,
    ) -> GResult<Arc<T>> {
        let mut map = crate::util::lock(&self.memo);
        if let Some(v) = map.get(key) {
            if let Ok(t) = v.clone().downcast::<T>() {
                return Ok(t);
            }
        }
        let v = Arc::new(make()?);
        map.insert(key.to_string(), v.clone());
        Ok(v)
    }

    /// Fails with `GpuError::OutOfMemory{what, need, free}` when `need` bytes would not fit, after handing
    /// the kept pool's unused bytes back to the driver.
    pub fn check_mem(&self, what: &str, need: usize) -> GResult<()> {
        let mut free = self.free_mem()?;
        if need > free {
            if let Some(p) = &self.pool {
                p.trim(&self.ctx);
                free = self.free_mem()?;
            }
        }
        if need > free {
            return Err(GpuError::OutOfMemory { device: self.ordinal, what: what.to_string(), need, free });
        }
        Ok(())
    }
}

/// The value of `cell`, made by `make` on first use (a racing thread's value is as good as ours).
fn once<T>(cell: &OnceLock<T>, make: impl FnOnce() -> GResult<T>) -> GResult<&T> {
    if let Some(v) = cell.get() {
        return Ok(v);
    }
    let _ = cell.set(make()?);
    cell.get().ok_or_else(|| GpuError::Invalid("streams not set".into()))
}

/// Every visible device, opened once per process (a device's primary context is per process by CUDA's
/// design, so this is the one place the backend keeps process state); an error (with the reason) when none is usable.
pub fn gpus() -> GResult<&'static [Arc<Gpu>]> {
    static GPUS: OnceLock<Result<Vec<Arc<Gpu>>, String>> = OnceLock::new();
    let r = GPUS.get_or_init(|| {
        let d = discovery();
        crate::util::marks::mark("cuda_discovered");
        if let Some(r) = &d.reason {
            return Err(r.clone());
        }
        d.devices.iter().map(|i| Gpu::open(i).map(Arc::new).map_err(|e| e.to_string())).collect()
    });
    match r {
        Ok(v) => Ok(v),
        Err(e) => Err(GpuError::Unavailable(e.clone())),
    }
}
