//! The host pools a/b/c reach the device through: the pinned pool synthesis writes into, B2's staging pool.

use super::*;

/// With `pce` and B2, synthesis writes a/b/c into the backend's page-locked pool, the lane copies them
/// straight from there, and the proofs equal the CPU's (three calls, so blocks go back and are lent again).
#[test]
fn pool_written_abc_prove_like_the_cpu() {
    use cuzk::cs::HostPool;
    use cuzk::groth16::prover::{synthesize_with, PceSlot};
    let Some(b) = gpu("pool_written_abc_prove_like_the_cpu") else { return };
    for path in ["samples/porep-tiny.toml", "samples/sha256-chain.toml"] {
        let (params, circuits) = setup_for(path);
        let (shape, digest) = ShapeCounter::count_with_digest(&circuits[0]).expect("count");
        let slot = PceSlot::new(shape, digest);
        let t = Toggles::default();
        assert!(t.on(Toggle::Pce) && t.on(Toggle::B2) && !t.on(Toggle::B1), "the defaults changed");
        let want = prove(&CpuBackend::new(), &params, &circuits, &t);
        let pool: Option<&dyn HostPool> = b.host_pool();
        assert!(pool.is_some(), "the GPU backend lends no pool");
        for call in 0..3 {
            let p = Probe::silent();
            let asgs =
                synthesize_with(&p, &circuits, &t, Some(shape), 0, Some(&slot), pool).expect("synthesis");
            // Circuit 0 of the first call records the shape (its a/b/c come from the recorder).
            let lent = asgs
                .iter()
                .skip(usize::from(call == 0))
                .all(|g| g.a.is_lent() && g.b.is_lent() && g.c.is_lent());
            assert!(lent, "{path} call {call}: a/b/c not written into the pool");
            let cs = CallSpec { params: &params, toggles: &t, seed: 77, first: 0 };
            let got: Vec<[u8; 192]> = prove_assignments(&p, &b, cs, asgs)
                .unwrap_or_else(|e| panic!("{path}: {e}"))
                .iter()
                .map(Proof::to_bytes)
                .collect();
            assert_eq!(got, want, "{path} call {call}: proofs from pool-written a/b/c differ from the CPU's");
        }
        // Every block came back once its copy was done (the release thread waits on the copy's event).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while b.pinned_pool().idle_blocks() < 3 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(b.pinned_pool().idle_blocks() >= 3, "{path}: lent blocks did not come back");
    }
}

/// B2's staging pool: random vectors of 1 word, less than a chunk, exactly two chunks and 2.5 chunks reach
/// the device intact (the double buffer reused, a partial last chunk), the zero padding after them untouched.
#[test]
fn staging_pool_uploads_exactly() {
    use cuzk::backend::gpu::mem::b2_staging::{Staging, CHUNK_BYTES};
    let Some(b) = gpu("staging_pool_uploads_exactly") else { return };
    let g = b.gpu(0).unwrap_or_else(|| panic!("a backend without lane 0"));
    let mut pool = Staging::new(g).unwrap_or_else(|e| panic!("{e}"));
    // Uploads on the side stream the prover uses, read back on the main one: the buffer's events order them.
    let up = &g.streams().unwrap_or_else(|e| panic!("{e}")).upload;
    let words = CHUNK_BYTES / 8;
    let mut r = rng(41);
    for len in [1, words / 3, 2 * words, 5 * words / 2] {
        let src: Vec<u64> = (0..len).map(|_| r.gen()).collect();
        let mut d = g.stream.alloc_zeros::<u64>(len + 7).unwrap_or_else(|e| panic!("{e}"));
        pool.upload(up, &src, &mut d).unwrap_or_else(|e| panic!("{e}"));
        let back = g.stream.clone_dtoh(&d).unwrap_or_else(|e| panic!("{e}"));
        assert!(back[..len] == src[..], "{len} words came back different");
        assert!(back[len..].iter().all(|&w| w == 0), "{len} words: the padding was written");
    }
    let mut small = g.stream.alloc_zeros::<u64>(3).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        pool.upload(up, &[1, 2, 3, 4], &mut small).is_err(),
        "a source longer than the buffer is refused"
    );
}

/// The pinned pool never holds more than its cap: within it blocks are lent and reused; past it `lend`
/// says no (a/b/c then go through the heap), and idle blocks are freed to make room for a larger one. A
/// run's window widens the cap up to the ceiling, no further.
#[test]
fn pinned_pool_keeps_to_its_cap() {
    use cuzk::backend::gpu::mem::b2_pool::{Caps, PinnedPool};
    use cuzk::cs::HostPool;
    let Some(b) = gpu("pinned_pool_keeps_to_its_cap") else { return };
    let g = b.gpu(0).unwrap_or_else(|| panic!("a backend without lane 0"));
    let caps = Caps { cap: 3 * 32 * 1000, ceiling: 5 * 32 * 1000 };
    let pool = PinnedPool::new(g.ctx.clone(), caps);
    let a = pool.lend(1000).unwrap_or_else(|| panic!("one block within the cap"));
    let b2 = pool.lend(2000).unwrap_or_else(|| panic!("two blocks within the cap"));
    assert_eq!(pool.held_bytes(), 3 * 32 * 1000);
    assert!(pool.lend(1).is_none(), "a block past the cap was lent");
    let ptr = a.ptr();
    drop(a);
    let again = pool.lend(900).unwrap_or_else(|| panic!("an idle block is reused"));
    assert_eq!(again.ptr(), ptr, "the idle block was not reused");
    drop((again, b2));
    assert_eq!(pool.idle_blocks(), 2);
    // 2500 scalars fit only once the idle blocks are freed.
    let big = pool.lend(2500).unwrap_or_else(|| panic!("idle blocks were not freed for a larger block"));
    assert_eq!((pool.idle_blocks(), pool.held_bytes()), (0, 2500 * 32));
    // A window widens the cap to the ceiling (5 000 scalars): one more block of 2 500 fits, and no more.
    assert!(pool.lend(1000).is_none(), "a block past the cap was lent without a window");
    let w = pool.lend_within(2500, 99 * 32 * 1000).unwrap_or_else(|| panic!("a block within the window"));
    assert_eq!(pool.held_bytes(), 5000 * 32);
    assert!(pool.lend_within(1, u64::MAX).is_none(), "a block past the ceiling was lent");
    drop((big, w));
}

/// The device pool kept between calls changes nothing but speed: MSMs give the CPU's result call after call,
/// and asking for more than the device has is still a clear out-of-memory error (after the pool is trimmed).
#[test]
fn device_pool_keeps_results_and_reports_shortage() {
    let Some(b) = gpu("device_pool_keeps_results_and_reports_shortage") else { return };
    let g = b.gpu(0).unwrap_or_else(|| panic!("a backend without lane 0"));
    eprintln!("device pool keeps {:?} bytes", g.pool.as_ref().map(|p| p.keep));
    let n = 1 << 14;
    let bases = g1_points(n, 5);
    let s = scalars(n, &mut rng(6), true);
    let want = CpuBackend::new().msm_g1(Bases::host(&bases), &s, None).unwrap_or_else(|e| panic!("{e}"));
    for call in 0..3 {
        let got = b.msm_g1(Bases::host(&bases), &s, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got, want, "call {call}");
    }
    let err = g.check_mem("a test's impossible request", g.mem_total + 1).err();
    assert!(matches!(err, Some(GpuError::OutOfMemory { .. })), "got {err:?}");
}

/// Proves the small SHA chain with `toggle` off, on, off, on and asserts each proof equals the CPU's; `after`
/// runs after each call with the toggle's state (to check the device followed it).
fn flips_like_the_cpu(b: &GpuBackend, toggle: Toggle, after: impl Fn(&GpuBackend, bool)) {
    let (params, circuits) = setup_for("samples/sha256-chain.toml");
    let want = prove(&CpuBackend::new(), &params, &circuits, &Toggles::default());
    for on in [false, true, false, true] {
        let mut t = Toggles::default();
        t.set(toggle, on);
        assert_eq!(prove(b, &params, &circuits, &t), want, "toggles {}", t.compact());
        after(b, on);
    }
}

/// `streams` changes speed only: proofs with a/b/c's uploads and transforms on side streams and with all on
/// the lane's one stream equal the CPU's, call after call in either order.
#[test]
fn streams_on_and_off_prove_like_the_cpu() {
    let Some(b) = gpu("streams_on_and_off_prove_like_the_cpu") else { return };
    flips_like_the_cpu(&b, Toggle::Streams, |_, _| {});
}

/// `dpool` changes speed only: proofs with the device pool kept warm and with the driver's default (freed at
/// every synchronisation) equal the CPU's, and the pool's threshold follows the toggle call by call.
#[test]
fn dpool_on_and_off_prove_like_the_cpu() {
    let Some(b) = gpu("dpool_on_and_off_prove_like_the_cpu") else { return };
    flips_like_the_cpu(&b, Toggle::Dpool, |b, on| {
        let warm = b.gpu(0).and_then(|g| g.pool.as_ref()).map(|p| p.is_warm());
        // No pool at all (CUZK_DEVICE_POOL_KEEP=0 or no stream-ordered pools) reads None: nothing to follow.
        assert!(warm.is_none_or(|w| w == on), "dpool={on} but the pool's warm state is {warm:?}");
    });
}

/// `hpipe` changes speed only: three circuits in one call (the third reuses the first's buffer set), staged
/// beside the previous one's msm_h with it on and one after another with it off, with `streams` and B1 each
/// on and off, prove like the CPU; on, the lane staged every circuit, off none (the lane's own count).
#[test]
fn hpipe_on_and_off_prove_like_the_cpu() {
    let Some(b) = gpu("hpipe_on_and_off_prove_like_the_cpu") else { return };
    let (params, one) = setup_for("samples/sha256-chain.toml");
    let circuits: Vec<SampleCircuit> = one.iter().cycle().take(3 * one.len()).cloned().collect();
    let want = prove(&CpuBackend::new(), &params, &circuits, &Toggles::default());
    for mask in [0u32, 1, 0, 1, 3, 5, 7, 6] {
        let mut t = Toggles::default();
        t.set(Toggle::Hpipe, mask & 1 != 0);
        t.set(Toggle::Streams, mask & 2 != 0);
        t.set(Toggle::B1, mask & 4 != 0);
        let before = b.first().counts().hpipe_staged;
        assert_eq!(prove(&b, &params, &circuits, &t), want, "toggles {}", t.compact());
        let staged = b.first().counts().hpipe_staged - before;
        let expect = if t.on(Toggle::Hpipe) { circuits.len() } else { 0 };
        assert_eq!(staged, expect, "toggles {}: circuits staged", t.compact());
    }
}

/// `tailseq` changes speed only: three circuits' batch additions and tail MSMs queued as one sequence with it
/// on and one by one with it off, with `srs_resident` and D4 each on and off (gathered, host-uploaded and
/// resident bases; one window and per-MSM windows), prove like the CPU; on, the lane ran one sequence per call.
#[test]
fn tailseq_on_and_off_prove_like_the_cpu() {
    let Some(b) = gpu("tailseq_on_and_off_prove_like_the_cpu") else { return };
    for path in ["samples/sha256-chain.toml", "samples/porep-tiny.toml"] {
        let (params, one) = setup_for(path);
        let circuits: Vec<SampleCircuit> = one.iter().cycle().take(3 * one.len()).cloned().collect();
        let want = prove(&CpuBackend::new(), &params, &circuits, &Toggles::default());
        for mask in [0u32, 1, 0, 1, 3, 5, 7] {
            let mut t = Toggles::default();
            t.set(Toggle::Tailseq, mask & 1 != 0);
            t.set(Toggle::SrsResident, mask & 2 == 0);
            t.set(Toggle::D4, mask & 4 == 0);
            let before = b.first().counts().tailseq_runs;
            assert_eq!(prove(&b, &params, &circuits, &t), want, "{path}: toggles {}", t.compact());
            let ran = b.first().counts().tailseq_runs - before;
            let expect = usize::from(t.on(Toggle::Tailseq));
            assert_eq!(ran, expect, "{path}: toggles {}: sequences run", t.compact());
        }
    }
}
