#!/usr/bin/env bash
# msm-variants.sh — on a machine with an NVIDIA GPU: time the device G1 MSM under every CUZK_MSM_VARIANT
# (src/backend/gpu/msm_variant.rs) with `cuzk bench msm --backend gpu` (random scalars, data on the device,
# result checked once against the CPU by the bench itself) and CUZK_MSM_PROFILE=1, and print one table:
# variant × size → median ms of the repeats, and the median level-1 accumulation ms (the profile's
# accum_points stage) of the profiled runs.
#
#   scripts/msm-variants.sh [--cuzk PATH]
#   env: VARIANTS="base flat ..." (default: the list below), SIZES="20 22 24", REPEAT=5, PROFILE=1
#   PROFILE=0 times without CUZK_MSM_PROFILE: profiling runs every stage on one stream, so it hides what the
#   two-stream schedule (the pN and seq tokens) changes; the accumulation column is then "-".
#   A variant may carry level-1 sizes after '@' (CUZK_MSM_TUNE=accum_threads,kr,reduce_threads of msm.rs),
#   e.g. VARIANTS="flat flat@1048576,16,32768".
#
# Each bench process makes its own random data and checks its result against the CPU MSM once (at 2^24 that
# is most of its wall time): eleven variants × three sizes take several minutes; split VARIANTS or SIZES over
# calls if the device call has a time limit.
# Needs only the release binary (default dev/cuzk, else target/release/cuzk) and awk. Output (table, and each
# run's stdout/stderr) goes to $OUT if set, else dev/msm-variants-out. A variant whose bench fails (e.g. its
# result differs from the CPU's) shows FAIL in the table; its log says why.
set -u
cd "$(dirname "$0")/.." || exit 2

cuzk=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cuzk) cuzk="$2"; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "msm-variants: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
for f in "$cuzk" dev/cuzk target/release/cuzk; do
  [ -n "$f" ] && [ -x "$f" ] && { cuzk="$f"; break; }
done
[ -n "$cuzk" ] && [ -x "$cuzk" ] || { echo "msm-variants: no cuzk binary (pass --cuzk)" >&2; exit 2; }

VARIANTS=${VARIANTS:-"base base+lb3 base+b32 flat nopf flat+lb3 flat+b32 flat+b64 flat@1048576,16,32768 flat+w18 flat+w20"}
SIZES=${SIZES:-"20 22 24"}
REPEAT=${REPEAT:-5}
PROFILE=${PROFILE:-1}
[ "$PROFILE" = 0 ] && PROFILE=""
out=${OUT:-dev/msm-variants-out}
mkdir -p "$out"
table="$out/msm-variants.txt"

# Median of the numbers on stdin.
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "-"; else if (NR % 2) printf "%.2f", v[(NR + 1) / 2]; else printf "%.2f", (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

{
  printf "cuzk bench msm --backend gpu --repeat %s, CUZK_MSM_PROFILE=%s; median ms / level-1 accumulation ms\n" "$REPEAT" "${PROFILE:-unset}"
  printf "%-26s" "variant"
  for s in $SIZES; do printf " %22s" "2^$s"; done
  printf "\n"
} | tee "$table"

for v in $VARIANTS; do
  line=$(printf "%-26s" "$v")
  for s in $SIZES; do
    log="$out/$(echo "$v" | tr '+@,' '___')-2^$s"
    var=${v%%@*} tune=""
    [ "$var" != "$v" ] && tune=${v#*@}
    if CUZK_MSM_VARIANT="$var" CUZK_MSM_TUNE="$tune" CUZK_MSM_PROFILE="$PROFILE" timeout 300 "$cuzk" bench msm --backend gpu --log-size "$s" \
      --repeat "$REPEAT" --json >"$log.json" 2>"$log.err"; then
      ms=$(awk -F'[:,]' '/"ms"/ {gsub(/ /, "", $2); printf "%.2f", $2}' "$log.json")
      acc=$(grep -o 'accum_points [0-9.]*' "$log.err" | awk '{print $2}' | median)
      cfg=$(grep -o 'c=[0-9]* .*kernel=[^ ]*' "$log.err" | head -1 | awk '{print $1}')
      cell="$ms / $acc ($cfg)"
    else
      cell="FAIL (rc $?)"
    fi
    line="$line $(printf "%22s" "$cell")"
  done
  echo "$line" | tee -a "$table"
done
echo "table: $table"
