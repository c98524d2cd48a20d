//! CSV: one row per event, then one per memory counter sample (lane `mem`, the counter in the phase column,
//! `dur_us` 0, `bytes=N` in args), fields quoted per RFC 4180 only when they need it. Lines end in LF, which
//! every RFC 4180 reader accepts and line tools (grep, awk) prefer.

use super::layout::args_compact;
use crate::timeline::record::RunRecord;

/// The header row; column order is part of the export's contract.
const HEADER: &str = "run_id,repeat,batch,lane,phase,circuit,device,start_us,dur_us,args";

/// Renders the header and one row per event, in the record's event order.
pub(super) fn render(record: &RunRecord) -> String {
    let mut out = String::with_capacity(64 * (record.events.len() + 1));
    out.push_str(HEADER);
    out.push('\n');
    let opt = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
    for e in &record.events {
        let row = [
            field(&record.id),
            e.repeat.to_string(),
            opt(e.batch),
            field(&e.lane),
            field(&e.phase),
            opt(e.circuit),
            opt(e.device),
            e.start_us.to_string(),
            e.dur_us.to_string(),
            field(&args_compact(e)),
        ];
        out.push_str(&row.join(","));
        out.push('\n');
    }
    // Counter samples: lane `mem`, the counter as the phase, the sample time as start, no duration.
    for c in &record.counters {
        let device = crate::vocab::Counter::from_name(&c.name).and_then(|k| match k {
            crate::vocab::Counter::DeviceMem(d) => Some(d),
            _ => None,
        });
        for &(t, bytes) in &c.samples {
            let row = [
                field(&record.id),
                String::new(),
                String::new(),
                COUNTER_LANE.to_string(),
                field(&c.name),
                String::new(),
                opt(device),
                t.to_string(),
                "0".to_string(),
                format!("bytes={bytes}"),
            ];
            out.push_str(&row.join(","));
            out.push('\n');
        }
    }
    out
}

/// The lane column of counter rows.
pub const COUNTER_LANE: &str = "mem";

/// A cell: quoted, with quotes doubled, when it holds a comma, quote or line break (or edge spaces, which
/// some readers would trim); as is otherwise.
fn field(s: &str) -> String {
    let needs = s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ');
    if needs {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
