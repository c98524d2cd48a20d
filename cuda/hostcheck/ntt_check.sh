#!/usr/bin/env bash
# Host check of cuda/ntt.cu (no GPU needed): kernel bodies vs naive DFT for 2^1..2^12, small cases vs Python.
# Usage: bash cuda/hostcheck/ntt_check.sh [naive_max_log (12)] [spot_max_log (16)]
# NTT_HOST_BIN: where the host binary goes (default /tmp/ntt_host_check; tests/suite/ntt_host.rs picks its own).
set -euo pipefail
cd "$(dirname "$0")"
bin="${NTT_HOST_BIN:-/tmp/ntt_host_check}"
g++ -std=c++17 -O2 -Wall -Wno-unknown-pragmas -o "$bin" ntt_host.cpp
"$bin" "${1:-12}" "${2:-16}" | python3 ntt_check.py
