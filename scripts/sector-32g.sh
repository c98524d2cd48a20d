#!/usr/bin/env bash
# sector-32g.sh — on the H200 host: the real-shape 32 GiB PoRep (samples/porep-32g.toml, 10 partitions of
# ~131 M constraints on 2^27) end to end within one device call: the params made on the GPU unless the cache
# already holds them, then whole sectors proved in a fresh process, with host and device memory sampled.
#
#   scripts/sector-32g.sh            env: SECTORS (1), CALL_S (seconds for the whole call, 570),
#                                         SETUP_S (limit for the setup, 420), SETUP (0: skip it, for a
#                                         second run in one call: a cached entry's check reads all 48 GB,
#                                         38–45 s), BUDGET (--mem-budget, 110G),
#                                         SET (--set, e.g. a2=on; none by default), CUZK_SYNTH_WORKERS (2),
#                                         SAMPLE (samples/porep-32g.toml), CUZK (dev/cuzk), TESTS (a
#                                         tests/gpu.rs binary: its setup tests run first), FIL_TESTS (a
#                                         tests/filecoin.rs binary: bellperson's verifier checks the
#                                         proofs), INTERRUPT_AT (seconds into a second prove to send it
#                                         SIGINT, as Ctrl-C, and time its stop; when that much time is left)
#
# A sector's ten partitions do not fit the 128 GiB host at once: the memory plan proves them in calls of as
# many as fit (one partition per call, two calls in flight under the default limit); the run's notes say so. A run
# that reaches CALL_S is interrupted (SIGINT, as Ctrl-C) and its record saved; the CUZK_TIMING lines say how
# far it got.
#
# What each step costs and what it printed go to $OUT (default dev/sector-out) as r.tgz: setup.txt,
# prove.txt (the phase table), prove.err (the CUZK_TIMING lines), mem.txt (every 5 s), exp/ (the run's
# Chrome trace, CSV, JSON and SVG). The params (48.4 GB) and the PCE record stay in $CUZK_CACHE.
set -u
cd "$(dirname "$0")/.." || exit 2
cuzk=$(readlink -f "${CUZK:-dev/cuzk}")
sample=${SAMPLE:-samples/porep-32g.toml}
out=${OUT:-dev/sector-out}; mkdir -p "$out"
o=$(mktemp -d); t0=$(date +%s)
. scripts/cuda-env.sh
left() { echo $(( ${CALL_S:-570} - ($(date +%s) - t0) )); }

(while sleep 5; do
  echo "$(date +%T) host_used_mib $(free -m | awk 'NR==2{print $3}') gpu_mib $(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | tr -d ' ') cuzk_rss_kib $(ps -o rss= -C cuzk | sort -n | tail -1) disk_used_mib $(df -m --output=used / | tail -1)"
done) > "$o/mem.txt" 2>&1 &
sampler=$!

if [ -n "${TESTS:-}" ]; then
  CUZK_BIN="$cuzk" CUZK_REQUIRE_GPU=1 timeout 240 "$TESTS" --test-threads=1 setup:: > "$o/tests.txt" 2>&1
  echo "gpu setup tests: rc=$? $(grep '^test result' "$o/tests.txt" | tail -1) at $(( $(date +%s) - t0 )) s"
  grep -E 'FAILED|panicked' "$o/tests.txt" | head
fi

ts=$(date +%s)
if [ "${SETUP:-1}" = 0 ]; then
  echo "setup skipped (SETUP=0: the params are in the cache already)" | tee "$o/setup.txt"
else
  timeout "${SETUP_S:-420}" "$cuzk" setup --sample "$sample" --backend gpu > "$o/setup.txt" 2>&1
  echo "setup rc=$? in $(( $(date +%s) - ts )) s (at $(( $(date +%s) - t0 )) s); the kernel still writing back:" \
    "$(awk '/^(Dirty|Writeback):/{s+=$2} END{printf "%.1f GiB", s/1048576}' /proc/meminfo)"
  tr '\r' '\n' < "$o/setup.txt" | grep -E 'done in|generated|cached|error' | tail -12
fi

if [ "$(left)" -gt 60 ]; then
  tp=$(date +%s)
  CUZK_SYNTH_WORKERS=${CUZK_SYNTH_WORKERS:-2} timeout -s INT -k 20 "$(( $(left) - 25 ))" "$cuzk" prove \
    --sample "$sample" --backend gpu --sectors "${SECTORS:-1}" ${SET:+--set "$SET"} \
    --mem-budget "${BUDGET:-110G}" --timing-log --export "$o/exp" --out "$o/proofs" > "$o/prove.txt" 2> "$o/prove.err"
  rc=$?; te=$(date +%s)
  echo "prove rc=$rc in $(( te - tp )) s (at $(( te - t0 )) s); exit $(( te - $(stat -c %Y "$o/prove.txt") )) s after its last output"
  tail -32 "$o/prove.txt"
  tr '\r' '\n' < "$o/prove.err" | grep -v CUZK_TIMING | grep -v '^$' | tail -6
  if [ -n "${FIL_TESTS:-}" ] && [ -f "$o/proofs/proofs.bin" ]; then
    CUZK_BELLPERSON_VERIFY="$o/proofs" timeout 120 "$FIL_TESTS" bellperson_verifies_an_out_dir --exact --nocapture > "$o/bellperson.txt" 2>&1
    echo "bellperson verify rc=$?: $(grep -E '^bellperson:|panicked' "$o/bellperson.txt" | head -3)"
  fi
else
  echo "prove: skipped, $(left) s left"
fi

# Ctrl-C within one phase: a second process proving a sector, SIGINT at INTERRUPT_AT s, its stop timed.
if [ -n "${INTERRUPT_AT:-}" ] && [ "$(left)" -gt $(( INTERRUPT_AT + 60 )) ]; then
  ti=$(date +%s)
  CUZK_SYNTH_WORKERS=${CUZK_SYNTH_WORKERS:-2} "$cuzk" prove --sample "$sample" --backend gpu --sectors 1 \
    ${SET:+--set "$SET"} --mem-budget "${BUDGET:-110G}" --timing-log > "$o/interrupt.txt" 2> "$o/interrupt.err" &
  pid=$!
  sleep "$INTERRUPT_AT"; kill -INT "$pid"; ts=$(date +%s%N)
  ( sleep $(( $(left) - 15 )); kill -9 "$pid" 2>/dev/null ) & guard=$!
  wait "$pid"; rc=$?; kill "$guard" 2>/dev/null
  echo "interrupt: SIGINT at $(( ts / 1000000000 - ti )) s, rc=$rc, stopped $(( ($(date +%s%N) - ts) / 1000000 )) ms after it"
  tr '\r' '\n' < "$o/interrupt.err" | grep -v CUZK_TIMING | grep -v '^$' | tail -4
fi
kill "$sampler" 2>/dev/null
echo "peak host_used_mib: $(sort -k3 -n "$o/mem.txt" | tail -1)"
echo "peak gpu_mib:       $(sort -k5 -n "$o/mem.txt" | tail -1)"
ls -la "$CUZK_CACHE"/params "$CUZK_CACHE"/pce 2>/dev/null | tail -4
tar czf "$out/r.tgz" -C "$o" .
