//! `cuzk ablate`: the engine's ablation with a line per configuration on stderr and the matrix on stdout.

use super::job::{warn_params, EngineOpts, JobArgs, Session};
use super::tables::{ablation_json, render_ablation};
use super::CliError;
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

/// `cuzk ablate`: baseline, then each toggle flipped alone, each repeated; a matrix of per-phase deltas.
pub fn ablate(args: AblateArgs) -> Result<(), CliError> {
    let (sample, base_toggles, selected) = args.job.resolve()?;
    let session = Session::open(&args.engine)?;
    let spec = session.spec(&sample, base_toggles, selected.backend.as_ref(), args.repeat);
    // Refused runs (memory, budget) fail before the first line is printed.
    session.engine.plan(&spec)?;
    let flipped: Vec<&str> = Toggle::ablated().map(Toggle::id).collect();
    eprintln!(
        "ablate {}: baseline ({}) then {} flipped alone, {} repeats each",
        sample.name,
        base_toggles.compact(),
        flipped.join(", "),
        args.repeat
    );
    let mut save_error = None;
    let ablation = session.with_ctl(&sample.name, |ctl| {
        session.engine.ablate(&spec, ctl, Some(&session.store), &mut |ev| {
            if let AblateEvent::Finished(step, r, saved) = ev {
                warn_params(r);
                match saved {
                    Some(Err(e)) if save_error.is_none() => save_error = Some(e.to_string()),
                    _ => {}
                }
                eprintln!("{}: run {}", step.label(), r.record.id);
            }
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
