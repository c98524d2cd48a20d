//! B2 blocks registered once the SRS is up: a block lent while a params set is being staged on the device is
//! mapped at once (synthesis writes into it) and registered with the driver on a thread of its own after the
//! staging ends; its first upload waits for that.
//!
//! Why: in a fresh process's one-shot the first circuit's three blocks (86 MB each at 2 KiB) were registered
//! while H's 402 MB went up, and H's copy took 50 ms against ~16 for the same bytes alone (L's and A's pace
//! just after; docs/PERF.md, sessions ak and al).

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use cudarc::driver::{sys, CudaContext};

/// The longest a registration waits for a staging to end: a staging that stops half way (an error, a
/// cancel) never says so, and the 2^27 SRS takes ~4.5 s to go up.
const WAIT_MAX: Duration = Duration::from_secs(6);

/// Whether a params set is being staged on the device now ([`Quiet::begin`] … [`Quiet::end`]).
#[derive(Default)]
pub struct Quiet {
    busy: Mutex<bool>,
    cv: Condvar,
}

impl Quiet {
    /// A staging begins: registrations asked for from now on wait for its end.
    pub fn begin(&self) {
        *crate::util::lock(&self.busy) = true;
    }

    /// The staging ended (its last section is up, or it stopped).
    pub fn end(&self) {
        *crate::util::lock(&self.busy) = false;
        self.cv.notify_all();
    }

    fn busy(&self) -> bool {
        *crate::util::lock(&self.busy)
    }

    /// Until no staging runs, or [`WAIT_MAX`] has passed.
    fn wait(&self) {
        let deadline = Instant::now() + WAIT_MAX;
        let mut busy = crate::util::lock(&self.busy);
        while *busy {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            busy = match self.cv.wait_timeout(busy, left) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
    }
}

/// One block's registration: done at once, or on a thread after the staging (module doc).
pub struct Registration {
    /// `None` while pending; then whether the block is registered, or why not.
    state: Mutex<Option<Result<(), String>>>,
    cv: Condvar,
}

/// A block's address, sent to the registering thread.
#[derive(Clone, Copy)]
struct At(usize);

impl Registration {
    /// Registers `bytes` at `ptr` in `ctx` (portable), now when no staging runs, else on a thread once it
    /// ends. The caller keeps the memory mapped until [`Registration::wait`] has returned.
    pub fn start(
        ctx: &Arc<CudaContext>,
        ptr: *mut u8,
        bytes: usize,
        quiet: &Arc<Quiet>,
    ) -> Arc<Registration> {
        let reg = Arc::new(Registration { state: Mutex::new(None), cv: Condvar::new() });
        let at = At(ptr as usize);
        if !quiet.busy() {
            *crate::util::lock(&reg.state) = Some(register(ctx, at, bytes));
            return reg;
        }
        crate::util::marks::mark_with(|| format!("b2_register_deferred bytes={bytes}"));
        let (r, ctx, quiet) = (Arc::clone(&reg), Arc::clone(ctx), Arc::clone(quiet));
        let spawned = std::thread::Builder::new().name("cuzk-b2-register".into()).spawn(move || {
            quiet.wait();
            let done = register(&ctx, at, bytes);
            crate::util::marks::mark("b2_registered_late");
            *crate::util::lock(&r.state) = Some(done);
            r.cv.notify_all();
        });
        if let Err(e) = spawned {
            *crate::util::lock(&reg.state) = Some(Err(format!("no thread to register on: {e}")));
        }
        reg
    }

    /// Waits for the registration; whether the block is registered (an error was warned about once by the
    /// pool when it happened at once; a late one is warned about here).
    pub fn wait(&self) -> bool {
        let mut s = crate::util::lock(&self.state);
        while s.is_none() {
            s = self.cv.wait(s).unwrap_or_else(|p| p.into_inner());
        }
        s.as_ref().is_some_and(|r| r.is_ok())
    }

    /// The registration's error, if it is done and failed.
    pub fn error(&self) -> Option<String> {
        crate::util::lock(&self.state).as_ref().and_then(|r| r.as_ref().err().cloned())
    }
}

fn register(ctx: &Arc<CudaContext>, at: At, bytes: usize) -> Result<(), String> {
    ctx.bind_to_thread().map_err(|e| e.to_string())?;
    // SAFETY: the caller of `Registration::start` keeps `bytes` bytes at `at` mapped until `wait` returns,
    // and unregisters them (only if this succeeded) before unmapping; PORTABLE makes them page-locked for
    // every context.
    let r = unsafe { sys::cuMemHostRegister_v2(at.0 as *mut _, bytes, sys::CU_MEMHOSTREGISTER_PORTABLE) };
    if r != sys::CUresult::CUDA_SUCCESS {
        return Err(format!("cuMemHostRegister of {bytes} bytes: {r:?}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quiet_gate_lets_waiters_through_when_the_staging_ends() {
        let q = Arc::new(Quiet::default());
        q.begin();
        assert!(q.busy());
        let t0 = Instant::now();
        let q2 = Arc::clone(&q);
        let ender = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            q2.end();
        });
        q.wait();
        let waited = t0.elapsed();
        assert!(waited >= Duration::from_millis(45) && waited < WAIT_MAX, "{waited:?}");
        assert!(!q.busy());
        ender.join().expect("ender");
        // Not busy: no wait at all.
        let t1 = Instant::now();
        q.wait();
        assert!(t1.elapsed() < Duration::from_millis(20));
    }
}
