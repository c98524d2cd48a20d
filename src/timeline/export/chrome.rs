//! Chrome trace event JSON in the object form: `X` events per phase instance, `M` events naming the process
//! and one thread per lane (plus `<lane> (2)`, … for work that overlaps without nesting), `C` counter events
//! for the memory counters (`host_rss`, `host_pinned`, `gpu<d>_mem`, in `args.bytes`), run facts in
//! `otherData` (`wall_us` is the proving wall, the median of the repeats', as every table reports it). Opens
//! in Perfetto, chrome://tracing and Firefox Profiler. A run that did not complete says so in `outcome` and
//! `error`; its trace ends where the run stopped.

use serde_json::{json, Map, Value};

use super::layout::{end_us, layout};
use crate::timeline::record::{RecordEvent, RunRecord};

/// The one process all lanes belong to.
const PID: u64 = 1;

/// Keys the exporter sets itself; args with these names are kept under `arg.<name>` instead.
const RESERVED: [&str; 6] = ["lane", "circuit", "device", "batch", "repeat", "data"];

/// Renders the trace; one event per line so the file stays diffable and greppable.
pub(super) fn render(record: &RunRecord) -> String {
    let lay = layout(record);
    // Thread ids: lane i's own row is i + 1; extra tracks follow after every lane, in lane order.
    let mut next_tid = lay.lanes.len() as u64 + 1;
    let mut tids: Vec<Vec<u64>> = Vec::with_capacity(lay.lanes.len());
    for (i, &n) in lay.tracks.iter().enumerate() {
        let mut lane_tids = vec![i as u64 + 1];
        for _ in 1..n {
            lane_tids.push(next_tid);
            next_tid += 1;
        }
        tids.push(lane_tids);
    }

    let mut lines: Vec<String> = Vec::new();
    let process = format!("cuzk {} {}", record.sample.name, record.id);
    lines.push(meta("process_name", 0, json!({ "name": process })).to_string());
    for (i, lane) in lay.lanes.iter().enumerate() {
        for (t, &tid) in tids[i].iter().enumerate() {
            let name = if t == 0 { lane.clone() } else { format!("{lane} ({})", t + 1) };
            lines.push(meta("thread_name", tid, json!({ "name": name })).to_string());
            // Extra tracks share their lane's sort index; viewers then order by name, so they follow the lane.
            lines.push(meta("thread_sort_index", tid, json!({ "sort_index": i })).to_string());
        }
    }

    let mut order: Vec<usize> = (0..record.events.len()).collect();
    order.sort_by_key(|&i| {
        let e = &record.events[i];
        (e.start_us, std::cmp::Reverse(end_us(e)), i)
    });
    for i in order {
        let (e, slot) = (&record.events[i], lay.slots[i]);
        let tid = tids.get(slot.lane).and_then(|t| t.get(slot.track)).copied().unwrap_or(1);
        lines.push(complete(e, tid).to_string());
    }

    // Memory counters: one `C` event per sample, a counter track per series (Perfetto draws each as a graph).
    for c in &record.counters {
        for &(ts, bytes) in &c.samples {
            let ev = json!({ "ph": "C", "name": c.name, "cat": "memory", "ts": ts, "pid": PID, "tid": 0,
                "args": { "bytes": bytes } });
            lines.push(ev.to_string());
        }
    }

    let other = json!({
        "schema": record.schema,
        "run_id": record.id,
        "started": record.started,
        "sample": record.sample.name,
        "sample_path": record.sample.path,
        "constraints": record.sample.constraints.to_string(),
        "circuits": record.sample.circuits.to_string(),
        "toggles": record.toggles.compact(),
        "backend": record.backend,
        "devices": record.devices.join("; "),
        "host_cpu": record.host.cpu,
        "wall_us": record.wall_median_us().to_string(),
        "setup_us": record.setup_us().to_string(),
        "run_elapsed_us": record.wall_us.to_string(),
        "dropped_events": record.dropped_events.to_string(),
        "version": record.version,
        "outcome": record.outcome.name(),
        "error": record.error,
    });
    let mut out = String::from("{\"traceEvents\": [\n");
    out.push_str(&lines.join(",\n"));
    out.push_str("\n],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": ");
    out.push_str(&other.to_string());
    out.push_str("}\n");
    out
}

/// A metadata event; `ts` is set even here because some importers reject events without it.
fn meta(name: &str, tid: u64, args: Value) -> Value {
    json!({ "ph": "M", "name": name, "pid": PID, "tid": tid, "ts": 0, "args": args })
}

/// The complete (`X`) event of one phase instance, args flat and again under `data`.
fn complete(e: &RecordEvent, tid: u64) -> Value {
    let mut args = Map::new();
    args.insert("lane".into(), Value::from(e.lane.as_str()));
    let optional = [("circuit", e.circuit), ("device", e.device), ("batch", e.batch)];
    for (k, v) in optional {
        if let Some(v) = v {
            args.insert(k.into(), Value::from(v));
        }
    }
    args.insert("repeat".into(), Value::from(e.repeat));
    for (k, v) in &e.args {
        let key = if RESERVED.contains(&k.as_str()) { format!("arg.{k}") } else { k.clone() };
        args.insert(key, Value::from(v.as_str()));
    }
    let data = Value::Object(args.clone());
    args.insert("data".into(), data);
    json!({
        "ph": "X",
        "name": e.phase,
        "cat": "phase",
        "ts": e.start_us,
        "dur": e.dur_us.max(1),
        "pid": PID,
        "tid": tid,
        "args": args,
    })
}
