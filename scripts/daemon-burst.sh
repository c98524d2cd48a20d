#!/bin/bash
# daemon-burst.sh — on the GPU machine: params made (cuzk's, default seed), a daemon started with 2 workers,
# three mixed bursts (PoRep C2 2 KiB + 8 MiB, WindowPoSt, WinningPoSt 2 KiB, 8 each) through `cuzk client burst`,
# GetStatus, HTTP /status and /metrics, SIGTERM drain. Needs dev/cuzk (a release build) and $OUT for logs.
set -u
cd "$(dirname "$0")/.."
B=$PWD/dev/cuzk
export CUZK_HOME=/tmp/cz-home CUZK_CACHE=/tmp/cz-cache
L=${OUT:-dev/burst-out}/burst; mkdir -p $L $CUZK_HOME $CUZK_CACHE
nvidia-smi --query-gpu=timestamp,memory.used --format=csv,noheader -lms 500 > $L/gpu-mem.csv 2>&1 &
SMI=$!
t0=$(date +%s.%N)
for f in c1-2kib c1-8mib; do /usr/bin/time -f "setup $f %e s maxrss %M KB" $B setup --c1 samples/filecoin/$f.json > $L/setup-$f.txt 2>&1; tail -2 $L/setup-$f.txt; done
for f in winning-post-2kib window-post-2kib; do /usr/bin/time -f "setup $f %e s maxrss %M KB" $B setup --post samples/filecoin/$f.json > $L/setup-$f.txt 2>&1; tail -1 $L/setup-$f.txt; done
printf 'preload = ["porep-2k", "porep-8m", "winning-2k", "wpost-2k"]\n' > /tmp/d.toml
$B daemon --config /tmp/d.toml --listen 127.0.0.1:9820 --http-listen 127.0.0.1:9821 --workers 2 --backend gpu > $L/daemon.log 2>&1 &
DP=$!
( while kill -0 $DP 2>/dev/null; do echo "$(date +%s.%N) $(ps -o rss= -p $DP)"; sleep 0.5; done ) > $L/rss.txt &
for i in $(seq 240); do grep -q "preloaded wpost-2k\|preload wpost-2k" $L/daemon.log && break; sleep 0.5; done
$B client status > $L/status-before.txt 2>&1; cat $L/status-before.txt
for r in 1 2 3; do
  echo "== burst $r"; $B client burst --c1 samples/filecoin/c1-2kib.json --c1 samples/filecoin/c1-8mib.json \
    --post samples/filecoin/winning-post-2kib.json --post samples/filecoin/window-post-2kib.json --each 8 2>&1 | tee $L/burst-$r.txt
done
$B client status > $L/status-after.txt 2>&1; cat $L/status-after.txt
curl -s 127.0.0.1:9821/status > $L/http-status.json; curl -s 127.0.0.1:9821/metrics > $L/metrics.txt
head -c 600 $L/http-status.json; echo; grep -c . $L/metrics.txt
kill -TERM $DP; wait $DP; echo "daemon exit $?"; tail -5 $L/daemon.log
$B runs 2>&1 | tail -5 > $L/runs.txt; cat $L/runs.txt
kill $SMI
awk '{print $2}' $L/rss.txt | sort -n | sed -n '1p;$p' | tr '\n' ' '; echo "(rss KB min max)"
cut -d, -f2 $L/gpu-mem.csv | sort -n | sed -n '1p;$p' | tr '\n' ' '; echo "(gpu mem min max)"
echo "elapsed $(( $(date +%s) - ${t0%.*} )) s"
