//! The daemon's wire types: the prost messages and tonic client/server stubs of `proto/cuzk/v1/proving.proto`
//! (Curio's `cuzk.v1` contract) and `proto/cuzk/console/v1/watch.proto` (cuzk's own watch service). The
//! code is generated once by `scripts/protogen.sh` and checked in, so building needs no protoc and compiles
//! no code generator; `tests/suite/wire_proto.rs` fails when it and the .proto files disagree. Imports nothing from
//! the crate: the daemon maps these types to `engine::service`, and a console or client uses them as they are.

pub mod dial;

/// The largest message either side sends or accepts: a 64 GiB sector's C1 output is about 100 MB, and Curio
/// dials with 256 MiB limits both ways.
pub const MAX_MESSAGE_BYTES: usize = 256 << 20;

/// The default TCP port Curio dials (`127.0.0.1:9820`).
pub const DEFAULT_PORT: u16 = 9820;

/// Curio's proving API, package `cuzk.v1`.
pub mod v1 {
    #![allow(missing_docs, clippy::all, clippy::pedantic)]
    include!("cuzk.v1.rs");
}

/// cuzk's console service, package `cuzk.console.v1`: the watch stream `cuzk tui --attach` reads.
pub mod console {
    #![allow(missing_docs, clippy::all, clippy::pedantic)]
    include!("cuzk.console.v1.rs");
}
