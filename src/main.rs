//! The `cuzk` binary: see `cuzk --help`. Parses the command line and hands it to its front-end: the console
//! (`cuzk tui`, bare `cuzk` on a terminal), the daemon (`cuzk daemon`), or the CLI (everything else). The
//! three front-ends never call one another.

use std::process::ExitCode;

use cuzk::cli::job::DEFAULT_SAMPLE;
use cuzk::cli::{Cli, Command};
use cuzk::vocab::BackendKind;

/// The C library's malloc unless `CUZK_ALLOC=mimalloc` (util::alloc says why).
#[global_allocator]
static ALLOC: cuzk::util::alloc::CuzkAlloc = cuzk::util::alloc::CuzkAlloc;

/// Whether a write to a closed pipe ends the process quietly (`cuzk runs | head`), as it does for other
/// command-line tools, or fails that write. Rust's runtime ignores SIGPIPE, so every `println!` into a
/// closed pipe panicked. The daemon, the client commands and the console keep it ignored: they write to
/// sockets (unix sockets with `write`, which raises SIGPIPE too), where a closed peer is an error to report.
fn sigpipe(quiet_end: bool) {
    let action = if quiet_end { libc::SIG_DFL } else { libc::SIG_IGN };
    // SAFETY: installs one of the two predefined dispositions; no handler code runs.
    unsafe {
        libc::signal(libc::SIGPIPE, action);
    }
}

fn main() -> ExitCode {
    cuzk::util::marks::start();
    sigpipe(true);
    for check in [cuzk::util::alloc::check_env, cuzk::util::alloc::check_malloc_tune_env] {
        if let Err(e) = check() {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    }
    cuzk::util::alloc::cap_malloc_arenas();
    cuzk::util::alloc::tune_malloc();
    let cli: Cli = match cuzk::cli::parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let tui = |opts: cuzk::tui::TuiOptions| match cuzk::tui::run(opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    };
    let console = match &cli.command {
        None => cuzk::tui::stdout_is_terminal(),
        Some(Command::Tui { .. }) => true,
        Some(_) => false,
    };
    if console || matches!(cli.command, Some(Command::Daemon(_) | Command::Client(_))) {
        sigpipe(false);
    }
    if !console {
        // The console's screen would be torn by stderr lines; everywhere else `tracing` events go to stderr.
        cuzk::util::log::init_stderr();
    }
    match cli.command {
        None if console => tui(cuzk::tui::TuiOptions {
            sample: DEFAULT_SAMPLE.into(),
            backend: BackendKind::Auto,
            theme: cli.theme,
            attach: None,
            once: false,
        }),
        Some(Command::Tui { sample, backend, theme, attach, once }) => {
            tui(cuzk::tui::TuiOptions { sample, backend, theme: theme.or(cli.theme), attach, once })
        }
        Some(Command::Daemon(a)) => cuzk::daemon::main(cuzk::daemon::DaemonOptions {
            config: a.config,
            listen: a.listen,
            http_listen: a.http_listen,
            data_dir: a.data_dir,
            memory_budget: a.memory_budget,
            workers: a.workers,
            backend: a.backend,
            seed: a.seed,
            print_config: a.print_config,
        }),
        _ => cuzk::cli::main(cli),
    }
}
