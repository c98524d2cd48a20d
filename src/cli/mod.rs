//! The command line: argument parsing, one-line error reporting, and the text/JSON presentation of what the
//! engine returns.

pub mod ablate;
pub mod bench;
mod bench_data;
mod bench_gpu;
pub mod info;
mod interrupt;
pub mod job;
pub mod outputs;
pub mod progress;
pub mod prove;
pub mod runs;
pub mod soak;
pub mod tables;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::circuits::Sample;
use crate::vocab::BackendKind;

/// The default sample the console and bare `cuzk` open.
pub const DEFAULT_SAMPLE: &str = "samples/porep-mini.toml";

/// Every error the CLI reports: one line, then a non-zero exit.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A sample file problem.
    #[error(transparent)]
    Sample(#[from] crate::circuits::SampleError),
    /// A params, proof, vk or inputs file problem.
    #[error(transparent)]
    Groth16(#[from] crate::groth16::Error),
    /// A job failure.
    #[error(transparent)]
    Engine(#[from] crate::engine::EngineError),
    /// A sample file or `--set` problem.
    #[error(transparent)]
    SampleLoad(#[from] crate::engine::sample::SampleLoadError),
    /// No such backend here.
    #[error(transparent)]
    Backend(#[from] crate::backend::select::SelectError),
    /// Anything else, already phrased.
    #[error("{0}")]
    Msg(String),
}

/// cuzk: a Groth16 prover for BLS12-381 and a console to profile it.
#[derive(Parser, Debug)]
#[command(name = "cuzk", version, about)]
pub struct Cli {
    /// What to do; without a command, opens the console on the default sample (on a terminal; elsewhere
    /// prints `cuzk info` of it).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The console's theme when bare `cuzk` opens it (the same as `cuzk tui --theme`).
    #[arg(long)]
    pub theme: Option<String>,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print a sample's circuit shape beside the 32 GiB PoRep partition.
    Info {
        /// The sample file.
        #[arg(long, default_value = DEFAULT_SAMPLE)]
        sample: PathBuf,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Generate (or load from the cache) a sample's params; prints the params file path last.
    Setup {
        /// The sample file.
        #[arg(long, default_value = DEFAULT_SAMPLE)]
        sample: PathBuf,
        /// Setup seed (default: the sample's).
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Prove a sample's circuits, print the per-phase table and save the run.
    Prove {
        /// What to prove.
        #[command(flatten)]
        job: job::JobArgs,
        /// Repeat the whole job N times, 1..=1000 (statistics use every repeat).
        #[arg(long, default_value = "1", value_parser = job::repeat_arg)]
        repeat: usize,
        /// Print a JSON summary instead of the table.
        #[arg(long)]
        json: bool,
        /// Write the run's Chrome trace, CSV, JSON and SVG into this folder.
        #[arg(long)]
        export: Option<PathBuf>,
        /// Write vk.bin, proofs.bin and inputs.bin here, as one set (checked before the run: a new or empty
        /// folder, or one holding only such a set).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Write the --out set even when some proofs failed verification.
        #[arg(long)]
        out_failed: bool,
        /// Engine options.
        #[command(flatten)]
        engine: job::EngineOpts,
    },
    /// Baseline and each ablation toggle (a1 a2 a4 b1 d4 pipeline; b1 only on a GPU) flipped alone, in
    /// interleaved rounds (--repeat of them): per-phase deltas.
    Ablate {
        /// What to prove.
        #[command(flatten)]
        job: job::JobArgs,
        /// Rounds: repeats per configuration, 1..=1000 (verdicts need 3 or more).
        #[arg(long, default_value = "3", value_parser = job::repeat_arg)]
        repeat: usize,
        /// JSON: one entry per toggle keyed by its id.
        #[arg(long)]
        json: bool,
        /// Engine options.
        #[command(flatten)]
        engine: job::EngineOpts,
    },
    /// List stored runs.
    Runs {
        /// Data dir (default: $CUZK_HOME, else the user data dir).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// JSON.
        #[arg(long)]
        json: bool,
    },
    /// Compare two runs per phase with a noise verdict (runs by id, id prefix, last, last~N or path).
    Compare {
        /// Baseline run.
        a: String,
        /// Candidate run.
        b: String,
        /// Data dir.
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// JSON.
        #[arg(long)]
        json: bool,
    },
    /// Export a run's timeline: chrome (Perfetto / chrome://tracing), csv, json (the record) or svg.
    Export {
        /// The run (id, id prefix, last, last~N or path).
        run: String,
        /// chrome | csv | json | svg.
        #[arg(long)]
        format: String,
        /// Output file (default: <data dir>/exports/<run id>.<ext>).
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
        /// Data dir.
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Check every proof in a file against a vk and public inputs.
    Verify {
        /// Verifying key (bellperson `VerifyingKey::write` layout).
        #[arg(long)]
        vk: PathBuf,
        /// Concatenated 192-byte proofs.
        #[arg(long)]
        proof: PathBuf,
        /// Concatenated 32-byte little-endian public inputs, proof after proof.
        #[arg(long)]
        inputs: PathBuf,
    },
    /// Time one building block (and, for MSM, blst on the same data).
    Bench(bench::BenchArgs),
    /// Many proofs in one process with resident bases: host RSS and GPU memory must stay flat.
    Soak(soak::SoakArgs),
    /// Open the console: live timeline, toggles, history, compare, ablation (needs a terminal).
    Tui {
        /// The sample file.
        #[arg(long, default_value = DEFAULT_SAMPLE)]
        sample: PathBuf,
        /// Backend: auto, cpu or gpu.
        #[arg(long, default_value_t = BackendKind::Auto)]
        backend: BackendKind,
        /// Theme: dark, light, high-contrast, or a *.toml in <data dir>/themes.
        #[arg(long)]
        theme: Option<String>,
    },
}

/// Runs the command line and maps errors to one line on stderr and exit code 1 (usage errors included;
/// `--help` and `--version` print and exit 0).
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A clap outcome that is not a command: help and version go to stdout with exit 0; a usage error becomes
/// its first line (clap's `error: invalid value … for '--sectors <SECTORS>': …`) plus where help is, exit 1.
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        print!("{e}");
        return ExitCode::SUCCESS;
    }
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        eprint!("{e}");
        return ExitCode::FAILURE;
    }
    let text = e.render().to_string();
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("error: bad command line");
    let first = if first.starts_with("error:") { first.to_string() } else { format!("error: {first}") };
    eprintln!("{first} (see `cuzk --help`)");
    ExitCode::FAILURE
}

fn run(cli: Cli) -> Result<(), CliError> {
    let json_err = |e: serde_json::Error| CliError::Msg(format!("json: {e}"));
    match cli.command {
        None if crate::tui::stdout_is_terminal() => crate::tui::run(crate::tui::TuiOptions {
            sample: DEFAULT_SAMPLE.into(),
            backend: BackendKind::Auto,
            theme: cli.theme,
        })
        .map_err(CliError::Msg)?,
        None => {
            eprintln!(
                "note: stdout is not a terminal, so no console; this is `cuzk info` (see `cuzk --help`)"
            );
            let sample = Sample::load(DEFAULT_SAMPLE.as_ref())?;
            println!("{} — {}", sample.name, sample.description);
            print!("{}", info::render(&info::shape_info_checked(&sample)?));
        }
        Some(Command::Tui { sample, backend, theme }) => {
            let theme = theme.or(cli.theme);
            crate::tui::run(crate::tui::TuiOptions { sample, backend, theme }).map_err(CliError::Msg)?
        }
        Some(Command::Info { sample, json }) => {
            let sample = Sample::load(&sample)?;
            let i = info::shape_info_checked(&sample)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&i).map_err(json_err)?);
            } else {
                print!("{}", info::render(&i));
            }
        }
        Some(Command::Setup { sample, seed }) => prove::setup(&sample, seed)?,
        Some(Command::Prove { job, repeat, json, export, out, out_failed, engine }) => {
            prove::prove(prove::ProveArgs { job, repeat, out, export, json, engine, out_failed })?
        }
        Some(Command::Ablate { job, repeat, json, engine }) => {
            ablate::ablate(ablate::AblateArgs { job, repeat, json, engine })?
        }
        Some(Command::Runs { data_dir, json }) => runs::runs(data_dir.as_deref(), json)?,
        Some(Command::Compare { a, b, data_dir, json }) => {
            runs::compare_cmd(data_dir.as_deref(), &a, &b, json)?
        }
        Some(Command::Export { run, format, output, data_dir }) => {
            runs::export_cmd(data_dir.as_deref(), &run, &format, output.as_deref())?
        }
        Some(Command::Verify { vk, proof, inputs }) => prove::verify(&vk, &proof, &inputs)?,
        Some(Command::Bench(args)) => bench::run(args)?,
        Some(Command::Soak(args)) => soak::soak(args)?,
    }
    Ok(())
}
