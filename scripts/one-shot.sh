#!/usr/bin/env bash
# one-shot.sh — a fresh process's proof of one C1 file (issue 34.4's figure), timed from outside and inside:
# the process's wall, its `CUZK_TIMING` milestones (from `main`: device started, each params section decoded
# or read from its native copy and on the device, run ended) and its phases. Params and the PCE record must be cached for the figure to
# mean anything, so each binary proves once first (a warm-up, not printed); then ROUNDS rounds, the binaries
# interleaved within each round.
#
#   scripts/one-shot.sh [BINARY…]        env: C1 (samples/filecoin/c1-2kib.json), BACKEND (gpu), SEED (42),
#                                             ROUNDS (4), OUT (dev/one-shot-out: each process's stderr)
#
# Several binaries (e.g. a base build and a candidate) each get their own cache root under $OUT, so builds
# that write different cache formats never rebuild each other's entries; one binary uses $CUZK_CACHE (or the
# default cache). Default binary: target/release/cuzk. Needs python3.
set -u
cd "$(dirname "$0")/.." || exit 2
[ -f scripts/cuda-env.sh ] && . scripts/cuda-env.sh
c1=${C1:-samples/filecoin/c1-2kib.json}
out=${OUT:-dev/one-shot-out}; mkdir -p "$out"
bins=("$@"); [ ${#bins[@]} -eq 0 ] && bins=(target/release/cuzk)
for b in "${bins[@]}"; do [ -x "$b" ] || { echo "one-shot.sh: $b: not an executable" >&2; exit 2; }; done
[ -f "$c1" ] || { echo "one-shot.sh: C1 file $c1: not found" >&2; exit 2; }

cache_of() { if [ ${#bins[@]} -gt 1 ]; then echo "$out/cache-$1"; else echo "${CUZK_CACHE:-}"; fi; }

one() { # index, tag
  local b=${bins[$1]} tag=$2 cache s e rc
  cache=$(cache_of "$1")
  s=$(date +%s%N)
  CUZK_CACHE=$cache CUZK_TIMING=1 "$b" prove --c1 "$c1" --backend "${BACKEND:-gpu}" --seed "${SEED:-42}" \
    > "$out/$tag.out" 2> "$out/$tag.err"
  rc=$?; e=$(date +%s%N)
  [ "$rc" -ne 0 ] && { echo "$tag: rc=$rc: $(grep -v CUZK_TIMING "$out/$tag.err" | tail -1)"; return; }
  python3 - "$out/$tag.err" "$(( (e - s) / 1000000 ))" "$tag" <<'PY'
import sys
path, wall, tag = sys.argv[1], sys.argv[2], sys.argv[3]
marks, phases = {}, {}
for line in open(path):
    if not line.startswith("CUZK_TIMING: "):
        continue
    w = line[13:].split()
    kv = dict(x.split("=", 1) for x in w if "=" in x)
    try:
        if w[0] == "process":
            marks.setdefault(w[1], float(kv["at_ms"]))
        else:
            phases.setdefault(w[0], []).append(float(kv["dur_ms"]))
    except (IndexError, KeyError, ValueError):
        continue  # a mark of another shape (e.g. an experiment's) is not the table's
keys = ["cuda_initialised", "run_begins", "gpu_contexts_open", "device_started", "params_h_decoded",
        "params_b_g2_decoded", "params_h_read", "params_b_g2_read", "params_h_staged", "params_b_g2_staged", "gpu_h_staged", "gpu_b_g2_staged",
        "run_ended", "command_done"]
shown = " ".join(f"{k.replace('params_', '')}={marks[k]:.0f}" for k in keys if k in marks)
print(f"{tag:<12} process {wall} ms | {shown}")
names = ["pce_record", "synthesis", "srs_upload", "srs_load", "ntt_msm_h", "b_g2_msm", "verify"]
print(" " * 13 + " ".join(f"{n}=" + "+".join(f"{x:.0f}" for x in phases[n]) for n in names if n in phases))
PY
}

# The host's facts that move a fresh process's figure: hosts of one kind differ by up to ~80 ms on one binary
# (docs/PERF.md, session aq), and where freed huge pages go back to a hypervisor at once (free page reporting)
# a fresh huge page costs a fault on the host too (session ar).
thp() { cat "/sys/kernel/mm/transparent_hugepage/$1" 2>/dev/null | grep -o '\[[a-z+]*\]' | tr -d '[]'; }
rep=/sys/module/page_reporting/parameters
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; THP $(thp enabled)," \
  "defrag $(thp defrag); free page reporting: $([ -d $rep ] && echo "order $(cat $rep/page_reporting_order)," \
  "min_free_ms $(cat $rep/min_free_ms 2>/dev/null || echo -)" || echo none)"
for i in "${!bins[@]}"; do
  c=$(cache_of "$i"); [ -n "$c" ] && mkdir -p "$c"
  CUZK_CACHE=$c "${bins[$i]}" prove --c1 "$c1" --backend "${BACKEND:-gpu}" --seed "${SEED:-42}" \
    > "$out/warm-$i.out" 2> "$out/warm-$i.err" ||
    { echo "warm-up of ${bins[$i]} failed:"; tail -3 "$out/warm-$i.err"; exit 1; }
done
for r in $(seq "${ROUNDS:-4}"); do
  for i in "${!bins[@]}"; do one "$i" "b$i-r$r"; done
done
echo "binaries: $(for i in "${!bins[@]}"; do printf 'b%s=%s ' "$i" "${bins[$i]}"; done); logs in $out"
