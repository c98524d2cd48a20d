//! `cuzk ablate`: the engine's ablation with a line per configuration on stderr and the matrix on stdout.

use super::error::CliError;
use super::job::{warn_params, EngineOpts, JobArgs, Session};
use super::tables::{ablation_json, render_ablation};
use crate::engine::ablate::AblateEvent;
use crate::vocab::Toggle;

/// Options of `cuzk ablate`.
pub struct AblateArgs {
    /// What to prove (its toggles are the baseline).
    pub job: JobArgs,
    /// Repeats per configuration.
    pub repeat: usize,
    /// JSON output.
    pub json: bool,
    /// Engine options.
    pub engine: EngineOpts,
}

/// `cuzk ablate`: baseline and each toggle flipped alone, measured in interleaved rounds (one repeat of every
/// configuration per round, order shuffled per round); a matrix of per-phase deltas.
pub fn ablate(args: AblateArgs) -> Result<(), CliError> {
    let (sample, base_toggles, selected) = args.job.resolve()?;
    let session = Session::open(&args.engine)?;
    let spec = session.spec(&sample, base_toggles, selected.backend.as_ref(), args.repeat);
    // Refused runs (memory, budget) fail before the first line is printed.
    session.engine.plan(&spec)?;
    let has_device = selected.backend.has_device();
    let flipped: Vec<&str> = Toggle::ablated_on(has_device).map(Toggle::id).collect();
    let skipped: Vec<&str> =
        Toggle::ablated().filter(|t| t.not_applicable(has_device).is_some()).map(Toggle::id).collect();
    let skipped = match skipped.is_empty() {
        true => String::new(),
        false => format!(" ({} not flipped: no effect on {})", skipped.join(", "), selected.backend.name()),
    };
    eprintln!(
        "ablate {}: baseline ({}) and {} flipped alone{skipped}; {} interleaved rounds",
        sample.name,
        base_toggles.compact(),
        flipped.join(", "),
        args.repeat
    );
    let mut save_error = None;
    let ablation = session.with_ctl(&sample.name, |ctl| {
        session.engine.ablate(&spec, ctl, Some(&session.store), &mut |ev| match ev {
            AblateEvent::Measured(step, r) => {
                warn_params(r);
                let wall = r.record.wall_median_us() as f64 / 1e3;
                eprintln!("{}: wall {wall:.1} ms", step.label());
            }
            AblateEvent::Finished(step, rec, saved) => {
                if let Some(Err(e)) = saved {
                    save_error.get_or_insert_with(|| e.to_string());
                }
                let what = step.flipped.map_or("baseline".to_string(), |t| t.id().to_string());
                eprintln!("{what}: run {} ({} repeats)", rec.id, rec.repeats.len());
            }
            AblateEvent::Started(_) | AblateEvent::Progress(_) => {}
        })
    })?;
    if let Some(e) = save_error {
        return Err(CliError::Msg(e));
    }
    let base = &ablation.baseline.id;
    if args.json {
        let v = serde_json::json!({"baseline": base, "toggles": ablation_json(&ablation.entries)});
        println!("{}", serde_json::to_string_pretty(&v).map_err(|e| CliError::Msg(e.to_string()))?);
    } else {
        print!("{}", render_ablation(base, &ablation.entries));
    }
    Ok(())
}
