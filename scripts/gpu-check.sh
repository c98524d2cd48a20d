#!/usr/bin/env bash
# gpu-check.sh — on a machine with an NVIDIA GPU: run the GPU tests, then benchmark the GPU against the CPU of
# the same host and print one table (G1 MSM, NTT, batch_add by size, the G2 MSM up to 2^22; a whole porep-1m
# proof by phase, medians of three).
# Needs no Rust and no network: only the release binary and the compiled tests/gpu.rs and tests/filecoin.rs
# test binaries.
#
#   scripts/gpu-check.sh [--quick|--full] [--cuzk PATH] [--tests PATH] [--fil-tests PATH] [--snap-tests PATH]
#
#   --quick   tests (porep-mini proofs skipped) + sizes 2^16 and 2^18 + a 20-proof soak; about 3 minutes
#   --full    (default) every test + sizes 2^16..2^24 + porep-1m on GPU and CPU + a 100-proof soak + the real
#             2 KiB PoRep C2 (CPU and GPU proofs byte for byte, filecoin-proofs' verify_seal); about 10 minutes
#             plus the C2's setup
#   --cuzk    the cuzk binary (default: dev/cuzk, else target/release/cuzk)
#   --tests   the tests/gpu.rs binary (default: dev/gpu, else the newest dev/gpu-*, else target/release/deps/gpu-*)
#   --snap-tests the tests/filecoin_snap.rs binary (default: dev/filecoin_snap, as --fil-tests)
#   --fil-tests  the tests/filecoin.rs binary (default: dev/filecoin, else the newest dev/filecoin-*, else
#             target/release/deps/filecoin-*)
#
# Logs go to $OUT (if set) else dev/gpu-check-out. Kernel and params caches go to $CUZK_CACHE, default
# ~/.cache/cuzk (or /tmp/cuzk-cache when HOME is unset or read-only, e.g. root without a home).
set -u
cd "$(dirname "$0")/.." || exit 2

mode=full cuzk="" tests="" fil_tests="" snap_tests=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode=quick ;;
    --full) mode=full ;;
    --cuzk) cuzk="$2"; shift ;;
    --tests) tests="$2"; shift ;;
    --fil-tests) fil_tests="$2"; shift ;;
    --snap-tests) snap_tests="$2"; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

pick() { for f in "$@"; do [ -n "$f" ] && [ -f "$f" ] && [ -x "$f" ] && { echo "$f"; return; }; done; }
[ -n "$cuzk" ] || cuzk=$(pick dev/cuzk target/release/cuzk)
[ -n "$tests" ] || tests=$(pick dev/gpu $(ls -t dev/gpu-* target/release/deps/gpu-* 2>/dev/null | grep -v '\.d$'))
[ -n "$cuzk" ] && [ -x "$cuzk" ] || { echo "gpu-check: no cuzk binary (copy target/release/cuzk to dev/ or pass --cuzk)" >&2; exit 2; }
cuzk=$(readlink -f "$cuzk")
[ -n "$tests" ] && tests=$(readlink -f "$tests")
[ -n "$fil_tests" ] || fil_tests=$(pick dev/filecoin $(ls -t dev/filecoin-* target/release/deps/filecoin-* 2>/dev/null | grep -v '\.d$'))
[ -n "$fil_tests" ] && fil_tests=$(readlink -f "$fil_tests")
[ -n "$snap_tests" ] || snap_tests=$(pick dev/filecoin_snap $(ls -t dev/filecoin_snap-* target/release/deps/filecoin_snap-* 2>/dev/null | grep -v '\.d$'))
[ -n "$snap_tests" ] && snap_tests=$(readlink -f "$snap_tests")

out="${OUT:-dev/gpu-check-out}"
mkdir -p "$out" || exit 2
out=$(readlink -f "$out")

export CUZK_BIN="$cuzk"
# tests/filecoin.rs's daemon test proves its C2 through a daemon on the GPU.
export CUZK_DAEMON_BACKEND=gpu
# Caches and NVRTC (shared with sector-32g.sh).
. scripts/cuda-env.sh
# The tests must not pass by skipping here: a missing GPU, device or NVRTC fails them (tests/support/require.rs).
export CUZK_REQUIRE_GPU=1

log() { echo "$@" | tee -a "$out/summary.txt"; }
: > "$out/summary.txt"
log "gpu-check ($mode) $(date -u +%FT%TZ) cuzk=$cuzk tests=${tests:-none} fil-tests=${fil_tests:-none} cache=$CUZK_CACHE"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a "$out/summary.txt"
"$cuzk" info --sample samples/porep-tiny.toml > "$out/info.txt" 2>&1
grep '^backend' "$out/info.txt" | tee -a "$out/summary.txt"
status=0
if ! grep -q '^backend auto *→ gpu' "$out/info.txt"; then
  log "gpu-check: NO USABLE GPU on this machine (see the backend line above): device tests will fail (CUZK_REQUIRE_GPU=1), GPU columns read err"
  status=1
fi

# 1. Tests (one thread: one GPU, and failures stay readable).
if [ "${GPU_CHECK_TESTS:-1}" = 0 ]; then
  log "tests: skipped (GPU_CHECK_TESTS=0)"
elif [ -n "$tests" ]; then
  skip=()
  [ "$mode" = quick ] && skip=(--skip porep_mini)
  t0=$(date +%s)
  timeout 420 "$tests" --test-threads=1 --nocapture "${skip[@]}" > "$out/tests.txt" 2>&1
  rc=$?
  log "tests: rc=$rc in $(( $(date +%s) - t0 )) s: $(grep '^test result' "$out/tests.txt" | tail -1) (log tests.txt)"
  grep -E 'FAILED|panicked|skipped|SKIPPED|^NVRTC' "$out/tests.txt" | head -40 | tee -a "$out/summary.txt"
  [ $rc -eq 0 ] || status=1
else
  log "tests: SKIPPED (no tests/gpu.rs binary; pass --tests)"
fi

# 1b. The real 2 KiB PoRep C2 (full mode, or GPU_CHECK_FIL=1): the fixture's C1 proved on the CPU and on the GPU
# with one seed must give identical proofs.bin; then tests/filecoin.rs with --include-ignored, whose PoRep test
# (ignored in CI: its setup alone takes ~7 minutes on 2 cores) has filecoin-proofs' verify_seal accept cuzk's
# proof (and every other filecoin test). The first prove builds the
# 2^22 params into $CUZK_CACHE (seed 42), which the test binary then reuses.
fil_default=1; [ "$mode" = quick ] && fil_default=0
if [ "${GPU_CHECK_FIL:-$fil_default}" = 0 ]; then
  log "filecoin: skipped (quick mode or GPU_CHECK_FIL=0)"
else
  t0=$(date +%s)
  for b in cpu gpu; do
    rm -rf "$out/c2-2kib-$b"
    timeout 1500 "$cuzk" prove --c1 samples/filecoin/c1-2kib.json --backend "$b" --seed 42 --out "$out/c2-2kib-$b" \
      > "$out/c2-2kib-$b.txt" 2>&1 || { log "c2-2kib on $b failed: $(tail -1 "$out/c2-2kib-$b.txt")"; status=1; }
  done
  if cmp "$out/c2-2kib-cpu/proofs.bin" "$out/c2-2kib-gpu/proofs.bin" >> "$out/summary.txt" 2>&1; then
    log "c2-2kib: CPU and GPU proofs identical ($(stat -c %s "$out/c2-2kib-gpu/proofs.bin") bytes) in $(( $(date +%s) - t0 )) s"
  else
    log "c2-2kib: CPU and GPU proofs DIFFER (or one is missing): see c2-2kib-*.txt"; status=1
  fi
  grep -E '^(wall|synthesis|ntt_msm_h|tail_msm|b_g2_msm) ' "$out/c2-2kib-gpu.txt" | sed 's/^/c2-2kib gpu: /' | tee -a "$out/summary.txt"
  if [ -n "$fil_tests" ]; then
    t0=$(date +%s)
    timeout 1500 "$fil_tests" --include-ignored --test-threads=1 --nocapture > "$out/filecoin-tests.txt" 2>&1
    rc=$?
    log "filecoin tests: rc=$rc in $(( $(date +%s) - t0 )) s: $(grep '^test result' "$out/filecoin-tests.txt" | tail -1) (log filecoin-tests.txt)"
    grep -E 'FAILED|panicked|SKIPPED|^child:' "$out/filecoin-tests.txt" | head -40 | tee -a "$out/summary.txt"
    [ $rc -eq 0 ] || status=1
  else
    log "filecoin tests: SKIPPED (no tests/filecoin.rs binary; pass --fil-tests)"; status=1
  fi
  # tests/filecoin_snap.rs, its ignored end-to-end check included: filecoin-proofs accepts cuzk's 2 KiB update proof.
  if [ -n "$snap_tests" ]; then
    t0=$(date +%s)
    timeout 900 "$snap_tests" --include-ignored --test-threads=1 --nocapture > "$out/snap-tests.txt" 2>&1
    rc=$?
    log "snap tests: rc=$rc in $(( $(date +%s) - t0 )) s: $(grep '^test result' "$out/snap-tests.txt" | tail -1) (log snap-tests.txt)"
    grep -E 'FAILED|panicked|SKIPPED|^child:' "$out/snap-tests.txt" | head -20 | tee -a "$out/summary.txt"
    [ $rc -eq 0 ] || status=1
  else
    log "snap tests: SKIPPED (no tests/filecoin_snap.rs binary; pass --snap-tests)"; status=1
  fi
fi

# 2. Benchmarks: GPU and CPU of this host, median of the repeats.
if [ "$mode" = quick ]; then sizes="16 18"; reps=3; else sizes="16 18 20 22 24"; reps=3; fi
# Overrides for splitting a run across device calls: GPU_CHECK_SIZES (log sizes), GPU_CHECK_CPU_MAX (largest
# log size also timed on the CPU; the CPU MSM at 2^24 with blst beside it takes about a minute),
# GPU_CHECK_PROVE=0 skips the porep-1m proofs, GPU_CHECK_TESTS=0 skips the tests.
sizes="${GPU_CHECK_SIZES:-$sizes}"; cpu_max="${GPU_CHECK_CPU_MAX:-99}"
ms() { sed -n 's/^ *"ms": *\([0-9.eE+-]*\),*$/\1/p' "$1" | head -1 | awk '{ printf "%.2f", $1 }'; }
bench() { # op backend k [extra args] → ms or "err"
  local op=$1 b=$2 k=$3; shift 3
  local f="$out/bench-$op-$b-$k$(printf '%s' "$*" | tr -cd 'a-z0-9').json"
  if timeout 240 "$cuzk" bench "$op" --backend "$b" --log-size "$k" --repeat "$reps" --json "$@" > "$f" 2> "$f.err"; then ms "$f"; else echo err; fi
}
# Rows are also appended to rows.txt as they come, so a run cut short by a call's time limit still says what it
# measured.
rows=() prows=()
row() { rows+=("$1"); echo "$1" >> "$out/rows.txt"; }
prow() { prows+=("$1"); echo "$1" >> "$out/rows.txt"; }
: > "$out/rows.txt"
for op in msm ntt batch_add; do
  for k in $sizes; do
    g=$(bench $op gpu $k); c=—; [ "$k" -le "$cpu_max" ] && c=$(bench $op cpu $k)
    x=$(awk -v g="$g" -v c="$c" 'BEGIN { if (g+0 > 0 && c+0 > 0) printf "%.1f×", c/g; else print "—" }')
    row "$(printf '%-10s 2^%-4s %12s %12s %9s' "$op" "$k" "$g" "$c" "$x")"
  done
done
# The G2 MSM (B_G2 on the device with `g2d`) against the host's (blstrs' G2 on all cores), up to 2^22 points.
for k in $sizes; do
  [ "$k" -le 22 ] || continue
  # The host's G2 MSM only to 2^20: 2^22 takes ~10 s a repeat on 16 cores.
  g=$(bench msm gpu $k --group g2); c=—; [ "$k" -le "$cpu_max" ] && [ "$k" -le 20 ] && c=$(bench msm cpu $k --group g2)
  x=$(awk -v g="$g" -v c="$c" 'BEGIN { if (g+0 > 0 && c+0 > 0) printf "%.1f×", c/g; else print "—" }')
  row "$(printf '%-10s 2^%-4s %12s %12s %9s' msm_g2 "$k" "$g" "$c" "$x")"
done
# The MSM over precomputed shifted bases (toggle `shift`, from 2^21 points; the copies are built before timing).
for k in $sizes; do
  [ "$k" -ge 21 ] && row "$(printf '%-10s 2^%-4s %12s %12s %9s' msm_shift "$k" "$(bench msm gpu $k --shifted)" — —)"
done
# Setup at 2^k rows (a multiplication chain): fixed-base multiplications on the GPU vs the CPU, the QAP evaluation
# on the host in both; sizes up to 2^20 (the CPU's 2^20 takes ~10 s a repeat on 16 cores).
for k in $sizes; do
  [ "$k" -le 20 ] || continue
  g=$(bench setup gpu $k); c=—; [ "$k" -le "$cpu_max" ] && c=$(bench setup cpu $k)
  x=$(awk -v g="$g" -v c="$c" 'BEGIN { if (g+0 > 0 && c+0 > 0) printf "%.1f×", c/g; else print "—" }')
  row "$(printf '%-10s 2^%-4s %12s %12s %9s' setup "$k" "$g" "$c" "$x")"
done
# compute_h (six transforms, data on the device, b and c on side streams): medians of 7 from the ignored `ntt_perf`
# test, for the sizes above among 2^20/22/24.
max_k=$(printf '%s\n' $sizes | sort -n | tail -1)
if [ -z "$tests" ]; then
  log "compute_h: SKIPPED (no tests/gpu.rs binary)"
elif CUZK_PERF_MAX_LOG="$max_k" timeout 240 "$tests" ntt::ntt_perf --exact --ignored --nocapture \
    --test-threads=1 > "$out/compute_h.txt" 2>&1; then
  for k in $sizes; do
    g=$(sed -n "s/^PERF compute_h 2^$k median \([0-9.]*\) ms.*/\1/p" "$out/compute_h.txt" | head -1)
    [ -n "$g" ] && row "$(printf '%-10s 2^%-4s %12s %12s %9s' compute_h "$k" "$g" — —)"
  done
else
  log "compute_h: ntt_perf failed (log compute_h.txt)"; status=1
fi

# 3. A whole porep-1m proof by phase (full mode; params are generated once into the cache). Three repeats,
# medians: the first run of a process records the `pce` cache (0.5 s at porep-1m, charged to synthesis), which
# the later backend's run then reads, so one repeat made the GPU's synthesis look 4× the CPU's.
phase_ms() { # json phase → median ms
  awk -v p="\"$2\": {" 'index($0, p) { f = 1 } f && /"median_ms"/ { gsub(/[^0-9.eE+-]/, "", $2); printf "%.2f\n", $2; exit }' "$1" 2>/dev/null
}
if [ "$mode" = full ] && [ "${GPU_CHECK_PROVE:-1}" != 0 ]; then
  for b in gpu cpu; do
    timeout 600 "$cuzk" prove --sample samples/porep-1m.toml --backend "$b" --repeat 3 --json > "$out/prove-$b.json" 2> "$out/prove-$b.err" \
      || { log "prove porep-1m on $b failed: $(tail -1 "$out/prove-$b.err")"; status=1; }
  done
  for p in synthesis pin_abc srs_upload prep_msm ntt_msm_h ntt_h msm_h batch_add tail_msm b_g2_msm assemble verify; do
    g=$(phase_ms "$out/prove-gpu.json" $p); c=$(phase_ms "$out/prove-cpu.json" $p)
    [ -z "$g$c" ] && continue
    prow "$(printf '%-10s %-6s %12s %12s' porep-1m "$p" "${g:-—}" "${c:-—}")"
  done
  for b in gpu cpu; do
    w=$(sed -n 's/^ *"wall_median_ms": *\([0-9.eE+-]*\).*/\1/p' "$out/prove-$b.json" | head -1)
    eval "wall_$b=\${w:-—}"
  done
  prow "$(printf '%-10s %-6s %12s %12s' porep-1m wall "$wall_gpu" "$wall_cpu")"
fi

# 3b. GPU_CHECK_SETUP_32G=1: params of samples/porep-32g.toml (2^27 domain) made on the GPU into a scratch cache,
# the stage lines (per query) and the wall time kept; needs ~40 GB of disk and ~60 GB of memory, then removed.
if [ "${GPU_CHECK_SETUP_32G:-0}" = 1 ]; then
  mkdir -p "$out/cache-32g" && cp -r "$CUZK_CACHE/kernels" "$out/cache-32g/" 2>/dev/null
  t0=$(date +%s)
  CUZK_CACHE="$out/cache-32g" timeout 1200 "$cuzk" setup --sample samples/porep-32g.toml --backend gpu \
    > "$out/setup-32g.txt" 2>&1
  rc=$?
  log "setup porep-32g on the GPU: rc=$rc in $(( $(date +%s) - t0 )) s (log setup-32g.txt)"
  grep -E 'done in|constraints' "$out/setup-32g.txt" | tee -a "$out/summary.txt"
  rm -rf "$out/cache-32g/params"
  [ $rc -eq 0 ] || status=1
fi

# 4. Soak: many proofs in one process with resident bases (srs_resident on); host RSS, the heap in use and
# each GPU's used memory are printed before, after the warm-up run and along the way; the heap (as a share of
# RSS) and each GPU's memory must stay flat within 1% from the end of the warm-up to their lowest over the
# last half of the runs (cuzk soak exits 1 otherwise). GPU_CHECK_SOAK=0 skips it; GPU_CHECK_SOAK_PROOFS
# sets the count (default 100, 20 in quick mode).
soak_rows=()
if [ "${GPU_CHECK_SOAK:-1}" != 0 ]; then
  n="${GPU_CHECK_SOAK_PROOFS:-$([ "$mode" = quick ] && echo 20 || echo 100)}"
  t0=$(date +%s)
  timeout 900 "$cuzk" soak --sample samples/porep-tiny.toml --backend gpu --set srs_resident=on --proofs "$n" \
    --tolerance-pct 1 > "$out/soak.txt" 2> "$out/soak.err"
  rc=$?
  while IFS= read -r l; do soak_rows+=("$l"); done < "$out/soak.txt"
  if [ $rc -ne 0 ]; then
    soak_rows+=("soak: FAIL (rc=$rc in $(( $(date +%s) - t0 )) s): $(tail -1 "$out/soak.err")")
    status=1
  else
    soak_rows+=("soak: flat within 1% ($n proofs in $(( $(date +%s) - t0 )) s)")
  fi
fi

log ""
log "$(printf '%-10s %-6s %12s %12s %9s' what size 'GPU ms' 'CPU ms' speedup)"
for r in "${rows[@]}"; do log "$r"; done
for r in "${prows[@]}"; do log "$r"; done
if [ ${#soak_rows[@]} -gt 0 ]; then
  log ""
  for r in "${soak_rows[@]}"; do log "$r"; done
fi
log ""
log "gpu-check: $([ $status -eq 0 ] && echo PASS || echo FAIL) — logs in $out"
exit $status
