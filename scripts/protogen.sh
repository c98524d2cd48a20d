#!/usr/bin/env bash
# Regenerates the checked-in gRPC code (src/wire/cuzk.*.rs) from proto/: run after editing a .proto.
# Builds scripts/protogen (protox + tonic-prost-build, its own workspace and target folder), so neither the
# crate's build nor CI compiles a protobuf compiler.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p src/wire
cargo run --quiet --release --manifest-path scripts/protogen/Cargo.toml --target-dir target/protogen
