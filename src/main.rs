//! The `cuzk` binary: see `cuzk --help`.

fn main() -> std::process::ExitCode {
    cuzk::cli::main()
}
