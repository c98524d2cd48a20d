//! Exports of a run record: Chrome trace rules, CSV quoting, SVG well-formedness and content,
//! format names, atomic writes; records of runs that did not complete, and records older than the outcome.

use std::collections::{BTreeMap, HashMap, HashSet};

use cuzk::engine::store::parse_record;
use cuzk::timeline::export::{render, write, Format};
use cuzk::timeline::record::{
    CounterSeries, HostInfo, RecordEvent, RunOutcome, RunRecord, SampleInfo, SCHEMA,
};
use cuzk::vocab::Toggles;
use serde_json::Value;

fn ev(phase: &str, lane: &str, circuit: Option<u64>, repeat: u32, start: u64, dur: u64) -> RecordEvent {
    RecordEvent {
        phase: phase.into(),
        lane: lane.into(),
        circuit,
        device: lane.strip_prefix("gpu").and_then(|d| d.parse().ok()),
        batch: Some(0),
        repeat,
        start_us: start,
        dur_us: dur,
        args: BTreeMap::new(),
    }
}

fn record(events: Vec<RecordEvent>) -> RunRecord {
    RunRecord {
        schema: SCHEMA.into(),
        id: "20250101T000000-abcd".into(),
        started: "2025-01-01T00:00:00Z".into(),
        sample: SampleInfo {
            name: "tiny <porep> & co".into(),
            path: "samples/tiny.toml".into(),
            ..Default::default()
        },
        toggles: Toggles::default(),
        backend: "gpu".into(),
        devices: vec!["gpu0: test".into()],
        host: HostInfo::default(),
        wall_us: events.iter().map(|e| e.start_us + e.dur_us).max().unwrap_or(0),
        events,
        repeats: Vec::new(),
        peak_rss_bytes: 0,
        dropped_events: 0,
        proofs: Vec::new(),
        outcome: Default::default(),
        error: String::new(),
        counters: Vec::new(),
        version: "0.1.0".into(),
    }
}

/// Two repeats of a two-circuit run on one GPU, with a nested sub-phase and awkward args.
fn sample_record() -> RunRecord {
    let mut events = Vec::new();
    events.push(ev("srs_load", "srs", None, 0, 0, 5_000));
    for r in 0..2u32 {
        let t = 10_000 + r as u64 * 200_000;
        for c in 0..2 {
            events.push(ev("synthesis", &format!("synthesis c{c}"), Some(c), r, t, 40_000 + c * 1_000));
        }
        events.push(ev("prep_msm", "prep_msm", None, r, t + 41_000, 20_000));
        for c in 0..2 {
            let s = t + 41_000 + c * 30_000;
            events.push(ev("ntt_msm_h", "gpu0", Some(c), r, s, 30_000));
            events.push(ev("ntt_h", "gpu0", Some(c), r, s, 12_000));
            events.push(ev("msm_h", "gpu0", Some(c), r, s + 12_000, 18_000));
        }
        events.push(ev("batch_add", "gpu0", None, r, t + 101_000, 3_000));
        events.push(ev("tail_msm", "gpu0", None, r, t + 104_000, 20_000));
        events.push(ev("b_g2_msm", "b_g2_msm", None, r, t + 62_000, 50_000));
        events.push(ev("assemble", "assemble", None, r, t + 124_000, 0));
        events.push(ev("verify", "verify", None, r, t + 125_000, 9_000));
    }
    events[1].args.insert("note".into(), "a,b \"quoted\"\nnext".into());
    events[1].args.insert("constraints".into(), "1024".into());
    events[1].args.insert("circuit".into(), "clash".into());
    let mut rec = record(events);
    let rss = vec![(0, 100 << 20), (5_000, 180 << 20), (9_000, 150 << 20)];
    rec.counters = vec![
        CounterSeries { name: "host_rss".into(), capacity: 8 << 30, samples: rss },
        CounterSeries {
            name: "gpu0_mem".into(),
            capacity: 80 << 30,
            samples: vec![(0, 1 << 30), (7_000, 3 << 30)],
        },
    ];
    rec
}

/// A record with overlapping, non-nested work on one lane and a lane name needing escapes.
fn odd_record() -> RunRecord {
    record(vec![
        ev("tail_msm", "gpu0", None, 0, 0, 100),
        ev("tail_msm", "gpu0", None, 0, 50, 100),
        ev("msm_h", "gpu0", None, 0, 60, 10),
        ev("batch_add", "gpu0", None, 0, 120, 100),
        ev("custom & <odd>", "lane \"x\" & <y>", None, 0, 10, 20),
    ])
}

fn chrome(rec: &RunRecord) -> Vec<Value> {
    let v: Value = serde_json::from_str(&render(rec, Format::Chrome)).expect("chrome export is JSON");
    assert!(v.is_object(), "object form");
    assert_eq!(v["displayTimeUnit"], "ms");
    assert_eq!(v["otherData"]["run_id"], rec.id.as_str());
    v["traceEvents"].as_array().expect("traceEvents array").clone()
}

/// Checks the trace rules and returns tid → thread name.
fn check_chrome(rec: &RunRecord, events: &[Value]) -> HashMap<u64, String> {
    let mut names: HashMap<u64, String> = HashMap::new();
    let mut sorts: HashMap<u64, u64> = HashMap::new();
    let mut spans: HashMap<u64, Vec<(u64, u64)>> = HashMap::new();
    let mut x_count = 0;
    let mut counters: Vec<(String, u64)> = Vec::new();
    for e in events {
        assert!(e["ts"].is_u64(), "ts on every event: {e}");
        let tid = e["tid"].as_u64().expect("tid");
        match e["ph"].as_str() {
            Some("X") => {
                x_count += 1;
                let dur = e["dur"].as_u64().expect("dur");
                assert!(dur > 0, "{e}");
                assert!(!e["name"].as_str().expect("name").is_empty());
                assert_eq!(e["cat"], "phase");
                assert_eq!(e["pid"], 1);
                let data = e["args"]["data"].as_object().expect("args.data");
                let mut flat = e["args"].as_object().expect("args").clone();
                flat.remove("data");
                assert_eq!(&flat, data, "args.data repeats the flat args");
                let ts = e["ts"].as_u64().unwrap_or(0);
                spans.entry(tid).or_default().push((ts, ts + dur));
            }
            Some("M") => match e["name"].as_str() {
                Some("thread_name") => {
                    let n = e["args"]["name"].as_str().expect("name").to_string();
                    assert!(names.insert(tid, n).is_none(), "one thread_name per tid");
                }
                Some("thread_sort_index") => {
                    let i = e["args"]["sort_index"].as_u64().expect("sort_index");
                    assert!(sorts.insert(tid, i).is_none(), "one thread_sort_index per tid");
                }
                Some("process_name") => {
                    let n = e["args"]["name"].as_str().expect("name");
                    assert_eq!(n, format!("cuzk {} {}", rec.sample.name, rec.id));
                }
                other => panic!("unexpected metadata {other:?}"),
            },
            Some("C") => {
                // Counter events: a known counter name, the process, a timestamp, numeric args only.
                let name = e["name"].as_str().expect("counter name");
                let series = rec.counters.iter().find(|c| c.name == name).expect("a counter of the record");
                assert!(cuzk::vocab::Counter::from_name(name).is_some(), "{name}");
                assert_eq!((e["pid"].as_u64(), e["cat"].as_str()), (Some(1), Some("memory")), "{e}");
                let args = e["args"].as_object().expect("counter args");
                assert!(!args.is_empty() && args.values().all(Value::is_u64), "{e}");
                let at = (e["ts"].as_u64().unwrap_or(0), args["bytes"].as_u64().unwrap_or(0));
                assert!(series.samples.contains(&at), "{e} is one of the record's samples");
                counters.push((name.to_string(), at.0));
            }
            other => panic!("unexpected phase type {other:?}"),
        }
    }
    assert_eq!(x_count, rec.events.len());
    let samples: usize = rec.counters.iter().map(|c| c.samples.len()).sum();
    assert_eq!(counters.len(), samples, "one C event per sample");
    for c in &rec.counters {
        let ts: Vec<u64> = counters.iter().filter(|(n, _)| *n == c.name).map(|x| x.1).collect();
        assert!(ts.windows(2).all(|w| w[0] <= w[1]), "{}: samples in time order", c.name);
    }
    for (i, lane) in rec.lanes().iter().enumerate() {
        let tid = i as u64 + 1;
        assert_eq!(names.get(&tid), Some(lane), "lane {lane} is tid {tid}");
        assert_eq!(sorts.get(&tid), Some(&(i as u64)));
    }
    assert_eq!(names.keys().collect::<HashSet<_>>(), sorts.keys().collect::<HashSet<_>>());
    for (tid, s) in &spans {
        for (i, a) in s.iter().enumerate() {
            for b in &s[i + 1..] {
                let overlap = a.0 < b.1 && b.0 < a.1;
                let nested = (a.0 <= b.0 && b.1 <= a.1) || (b.0 <= a.0 && a.1 <= b.1);
                assert!(!overlap || nested, "tid {tid}: {a:?} and {b:?} overlap without nesting");
            }
        }
    }
    names
}

#[test]
fn chrome_trace_follows_the_rules() {
    let rec = sample_record();
    let events = chrome(&rec);
    let names = check_chrome(&rec, &events);
    assert_eq!(names.len(), rec.lanes().len(), "no extra tids when work nests");
    let note = events.iter().find(|e| e["args"]["note"].is_string()).expect("event with args");
    assert_eq!(note["args"]["data"]["note"], "a,b \"quoted\"\nnext");
    assert_eq!(note["args"]["circuit"], 0, "record field wins; clashing arg is renamed");
    assert_eq!(note["args"]["arg.circuit"], "clash");
    assert_eq!(note["args"]["repeat"], 0);
}

#[test]
fn chrome_splits_overlapping_work_to_a_new_tid() {
    let rec = odd_record();
    let events = chrome(&rec);
    let names = check_chrome(&rec, &events);
    let extra: Vec<_> = names.iter().filter(|(_, n)| n.as_str() == "gpu0 (2)").collect();
    assert_eq!(extra.len(), 1, "{names:?}");
    let extra_tid = *extra[0].0;
    let on_extra: Vec<_> = events.iter().filter(|e| e["ph"] == "X" && e["tid"] == extra_tid).collect();
    assert_eq!(on_extra.len(), 1);
    assert_eq!(on_extra[0]["ts"], 50, "the later one moves");
}

#[test]
fn chrome_of_an_empty_record() {
    let rec = record(Vec::new());
    let events = chrome(&rec);
    check_chrome(&rec, &events);
    assert_eq!(events.len(), 1, "process_name only");
}

/// RFC 4180 reader: quoted fields, doubled quotes, line breaks inside quotes, LF or CRLF rows.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let (mut rows, mut row, mut cell) = (Vec::new(), Vec::new(), String::new());
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => cell.push(c),
            (false, '"') => {
                assert!(cell.is_empty(), "quote inside an unquoted field");
                quoted = true;
            }
            (false, ',') => row.push(std::mem::take(&mut cell)),
            (false, '\r') => assert_eq!(chars.next(), Some('\n')),
            (false, '\n') => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => cell.push(c),
        }
    }
    assert!(!quoted && cell.is_empty() && row.is_empty(), "ends with a complete row");
    rows
}

#[test]
fn csv_has_a_row_per_event_and_quotes_round_trip() {
    let rec = sample_record();
    let rows = parse_csv(&render(&rec, Format::Csv));
    assert_eq!(rows[0].join(","), "run_id,repeat,batch,lane,phase,circuit,device,start_us,dur_us,args");
    let samples: usize = rec.counters.iter().map(|c| c.samples.len()).sum();
    assert_eq!(rows.len(), rec.events.len() + samples + 1);
    // Counter rows after the events: lane `mem`, the counter as phase, the device for device memory.
    let counter_rows = &rows[1 + rec.events.len()..];
    assert!(counter_rows.iter().all(|r| r[3] == "mem" && r[8] == "0" && r[9].starts_with("bytes=")));
    let gpu: Vec<&Vec<String>> = counter_rows.iter().filter(|r| r[4] == "gpu0_mem").collect();
    assert_eq!((gpu.len(), gpu[1][6].as_str(), gpu[1][7].as_str()), (2, "0", "7000"));
    assert_eq!(gpu[1][9], format!("bytes={}", 3u64 << 30));
    for (row, e) in rows[1..].iter().zip(&rec.events) {
        assert_eq!(row.len(), 10);
        assert_eq!(row[0], rec.id);
        assert_eq!(row[3], e.lane);
        assert_eq!(row[4], e.phase);
        assert_eq!(row[5], e.circuit.map(|c| c.to_string()).unwrap_or_default());
        assert_eq!(row[6], e.device.map(|c| c.to_string()).unwrap_or_default());
        assert_eq!(row[7], e.start_us.to_string());
        assert_eq!(row[8], e.dur_us.to_string());
    }
    assert_eq!(rows[2][9], "circuit=clash;constraints=1024;note=a,b \"quoted\"\nnext");
}

#[test]
fn json_is_the_record() {
    let rec = sample_record();
    let back: RunRecord = serde_json::from_str(&render(&rec, Format::Json)).expect("record JSON");
    assert_eq!(back, rec);
}

/// A record written before runs had an outcome (no `outcome`, no `error`) loads as a completed run; a
/// cancelled one keeps its outcome and error line through JSON, and a completed one names its outcome.
#[test]
fn records_without_an_outcome_load_as_completed() {
    let old = br#"{"schema":"cuzk.run/1","id":"20260101-000000-abcd","started":"2026-01-01T00:00:00Z",
        "sample":{"name":"porep-tiny","path":"p","constraints":9981,"circuits":2,"seed":7},
        "toggles":{},"backend":"cpu","devices":["cpu"],"host":{"cpu":"c","threads":2,"memory_bytes":1},
        "events":[],"repeats":[{"wall_us":1500000,"phases":{}}],"wall_us":1500000,"peak_rss_bytes":0,
        "dropped_events":0,"proofs":[{"hex":"00","verified":true}],"version":"0.1.0"}"#;
    let r = parse_record(old, "old.json").expect("an old record loads");
    assert_eq!(r.outcome, RunOutcome::Completed);
    assert!(r.completed() && r.error.is_empty() && r.incomplete_line().is_none());
    let json = serde_json::to_value(&r).expect("json");
    assert_eq!(json["outcome"], "completed");
    assert!(json.get("error").is_none(), "no error line for a completed run");
    let mut cut = sample_record();
    cut.id = "20250101-000000-abcd".into();
    (cut.outcome, cut.error) = (RunOutcome::Cancelled, "cancelled".into());
    let text = render(&cut, Format::Json);
    let back = parse_record(text.as_bytes(), "cut.json").expect("a cancelled record loads");
    assert_eq!(back, cut);
    assert_eq!(back.outcome, RunOutcome::Cancelled);
    let line = back.incomplete_line().expect("not completed");
    assert!(line.contains(&cut.id) && line.contains("cancelled"), "{line}");
}

/// A failed run's partial timeline exports in every format: no repeats and no proofs, the events it has,
/// its outcome and error line in the trace, its end in the SVG title.
#[test]
fn partial_record_exports() {
    let mut rec = sample_record();
    rec.events.retain(|e| e.repeat == 0 && ["srs_load", "synthesis", "prep_msm"].contains(&e.phase.as_str()));
    (rec.outcome, rec.error) = (RunOutcome::Failed, "cpu backend: begin_call: injected".into());
    assert!(rec.repeats.is_empty() && rec.proofs.is_empty());
    let events = chrome(&rec);
    check_chrome(&rec, &events);
    let x = events.iter().filter(|e| e["ph"] == "X").count();
    assert_eq!(x, rec.events.len());
    let v: Value = serde_json::from_str(&render(&rec, Format::Chrome)).expect("json");
    assert_eq!(v["otherData"]["outcome"], "failed");
    assert_eq!(v["otherData"]["error"], rec.error.as_str());
    assert_eq!(v["otherData"]["wall_us"], rec.wall_us.to_string(), "no repeat: the elapsed time");
    let samples: usize = rec.counters.iter().map(|c| c.samples.len()).sum();
    assert_eq!(parse_csv(&render(&rec, Format::Csv)).len(), 1 + rec.events.len() + samples);
    let svg = render(&rec, Format::Svg);
    check_xml(&svg);
    let title = svg.lines().find(|l| l.contains("class=\"title\"")).expect("title");
    assert!(title.contains(" · failed"), "{title}");
    assert!(!render(&sample_record(), Format::Svg).contains(" · completed"), "completed runs say nothing");
}

/// Minimal XML well-formedness: one root, tags closed in order, quoted attributes, `&` only in entities.
fn check_xml(s: &str) {
    fn entity_ok(rest: &str) -> bool {
        let Some(end) = rest.find(';') else { return false };
        let name = &rest[1..end];
        matches!(name, "amp" | "lt" | "gt" | "quot" | "apos")
            || name.strip_prefix('#').is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    }
    let mut stack: Vec<&str> = Vec::new();
    let mut roots = 0;
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        if rest.starts_with('<') {
            let end = rest.find('>').expect("tag ends") + 1;
            let tag = &rest[..end];
            if let Some(name) = tag.strip_prefix("</") {
                let name = name.trim_end_matches('>').trim();
                assert_eq!(stack.pop(), Some(name), "closing tag order at byte {i}");
            } else {
                let body = tag.trim_start_matches('<').trim_end_matches('>');
                let self_closing = body.ends_with('/');
                let name = body.split(|c: char| c.is_whitespace() || c == '/').next().unwrap_or("");
                assert!(!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
                assert_eq!(body.matches('"').count() % 2, 0, "quoted attributes: {tag}");
                for (k, _) in body.match_indices('&') {
                    assert!(entity_ok(&body[k..]), "bare & in {tag}");
                }
                if stack.is_empty() {
                    roots += 1;
                }
                if !self_closing {
                    stack.push(name);
                }
            }
            i += end;
        } else {
            let end = rest.find('<').unwrap_or(rest.len());
            let text = &rest[..end];
            assert!(!stack.is_empty() || text.trim().is_empty(), "text outside the root");
            for (k, _) in text.match_indices('&') {
                assert!(entity_ok(&text[k..]), "bare & in text {text:?}");
            }
            i += end;
        }
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
    assert_eq!(roots, 1);
}

#[test]
fn svg_is_well_formed_and_complete() {
    for rec in [sample_record(), odd_record(), record(Vec::new())] {
        let svg = render(&rec, Format::Svg);
        check_xml(&svg);
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1200\""));
        assert_eq!(svg.matches("class=\"lane\"").count(), rec.lanes().len());
        assert_eq!(svg.matches("<rect class=\"ev\"").count(), rec.events.len());
        assert_eq!(svg.matches("<title>").count(), svg.matches("</title>").count());
        let phases: HashSet<&str> = rec.events.iter().map(|e| e.phase.as_str()).collect();
        assert_eq!(svg.matches("class=\"legend\"").count(), phases.len());
        assert!(svg.contains("tiny &lt;porep&gt; &amp; co"), "escaped title");
        assert!(svg.contains(&rec.id));
    }
    let svg = render(&sample_record(), Format::Svg);
    for phase in ["synthesis", "ntt_msm_h", "ntt_h", "msm_h", "verify", "srs_load"] {
        assert!(svg.contains(&format!(">{phase}</text>")), "legend entry {phase}");
    }
    // 344 ms of run: ticks every 50 ms.
    assert!(svg.contains(">50 ms</text>") && svg.contains(">300 ms</text>"), "round ticks");
    assert!(svg.contains("start 51.00 ms"), "tooltips carry times");
}

#[test]
fn format_names_and_errors() {
    for f in Format::ALL {
        assert_eq!(f.name().parse::<Format>(), Ok(f));
        assert_eq!(f.to_string(), f.name());
    }
    assert_eq!("CSV".parse::<Format>(), Ok(Format::Csv));
    let err = "xml".parse::<Format>().expect_err("unknown");
    let msg = err.to_string();
    assert_eq!(msg, "unknown export format `xml` (expected chrome|csv|json|svg)");
    assert!(!msg.contains('\n'));
    assert_eq!(Format::Chrome.file_name("r1"), "r1.trace.json");
    assert_eq!(Format::Json.file_name("r1"), "r1.json");
    assert_eq!(Format::Csv.extension(), "csv");
    assert_eq!(Format::Svg.extension(), "svg");
}

#[test]
fn write_replaces_atomically_and_leaves_no_temp() {
    let dir = std::env::temp_dir().join(format!("cuzk-exports-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let rec = sample_record();
    let path = dir.join(Format::Svg.file_name(&rec.id));
    std::fs::write(&path, "old contents").expect("seed file");
    write(&rec, Format::Svg, &path).expect("write");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), render(&rec, Format::Svg));
    write(&rec, Format::Csv, &path).expect("rewrite");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), render(&rec, Format::Csv));
    let entries: Vec<_> = std::fs::read_dir(&dir).expect("list").filter_map(|e| e.ok()).collect();
    assert_eq!(entries.len(), 1, "only the export remains: {entries:?}");
    assert!(write(&rec, Format::Csv, &dir.join("missing/x.csv")).is_err());
    assert_eq!(std::fs::read_dir(&dir).expect("list").count(), 1);
    std::fs::remove_dir_all(&dir).expect("cleanup");
}
