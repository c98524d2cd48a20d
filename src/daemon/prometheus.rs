//! The service's metrics in Prometheus text exposition format (`GetMetrics`, `GET /metrics`).

use std::fmt::Write;

use crate::engine::service::{Histogram, Service, BUCKETS_S};

fn header(out: &mut String, name: &str, typ: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {typ}");
}

/// A label value with `\`, `"` and newlines escaped.
fn esc(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

fn histogram(out: &mut String, name: &str, label: &str, value: &str, h: &Histogram) {
    let l = format!("{label}=\"{}\"", esc(value));
    for (le, n) in BUCKETS_S.iter().zip(h.buckets) {
        let _ = writeln!(out, "{name}_bucket{{{l},le=\"{le}\"}} {n}");
    }
    let _ = writeln!(out, "{name}_bucket{{{l},le=\"+Inf\"}} {}", h.count);
    let _ = writeln!(out, "{name}_sum{{{l}}} {}", h.sum_s);
    let _ = writeln!(out, "{name}_count{{{l}}} {}", h.count);
}

/// Queue depth per kind, proofs completed and failed, latency, queue wait and per-phase histograms, memory
/// in use, SRS tiers.
pub fn render(service: &Service) -> String {
    let s = service.status();
    let m = service.metrics();
    let mut o = String::with_capacity(8192);
    header(&mut o, "cuzk_uptime_seconds", "gauge", "Seconds since the daemon started.");
    let _ = writeln!(o, "cuzk_uptime_seconds {}", s.uptime_s);
    header(&mut o, "cuzk_draining", "gauge", "1 once SIGTERM was received (new jobs are refused).");
    let _ = writeln!(o, "cuzk_draining {}", u8::from(s.draining));
    header(&mut o, "cuzk_queue_pending", "gauge", "Jobs waiting, per proof kind.");
    for q in &s.queues {
        let k = q.kind.map_or("unknown", |k| k.name());
        let _ = writeln!(o, "cuzk_queue_pending{{proof_kind=\"{k}\"}} {}", q.pending);
    }
    header(&mut o, "cuzk_queue_running", "gauge", "Jobs running, per proof kind.");
    for q in &s.queues {
        let k = q.kind.map_or("unknown", |k| k.name());
        let _ = writeln!(o, "cuzk_queue_running{{proof_kind=\"{k}\"}} {}", q.running);
    }
    for (name, help, map) in [
        ("cuzk_proofs_completed_total", "Proofs completed, per proof kind.", &m.completed),
        ("cuzk_proofs_failed_total", "Proofs failed, per proof kind.", &m.failed),
        ("cuzk_jobs_cancelled_total", "Jobs cancelled, per proof kind.", &m.cancelled),
    ] {
        header(&mut o, name, "counter", help);
        for (k, n) in map {
            let _ = writeln!(o, "{name}{{proof_kind=\"{}\"}} {n}", k.name());
        }
    }
    header(&mut o, "cuzk_job_duration_seconds", "histogram", "Submitted to finished, completed jobs.");
    for (k, h) in &m.latency {
        histogram(&mut o, "cuzk_job_duration_seconds", "proof_kind", k.name(), h);
    }
    header(&mut o, "cuzk_queue_wait_seconds", "histogram", "Submitted to admitted.");
    for (k, h) in &m.queue_wait {
        histogram(&mut o, "cuzk_queue_wait_seconds", "proof_kind", k.name(), h);
    }
    header(&mut o, "cuzk_phase_duration_seconds", "histogram", "A phase's summed time in one completed job.");
    for (p, h) in &m.phases {
        histogram(&mut o, "cuzk_phase_duration_seconds", "phase", p, h);
    }
    header(&mut o, "cuzk_memory_budget_bytes", "gauge", "What admitted jobs and resident SRS may hold.");
    let _ = writeln!(o, "cuzk_memory_budget_bytes {}", s.mem_budget);
    header(&mut o, "cuzk_memory_in_use_bytes", "gauge", "Admitted jobs' estimates plus resident SRS.");
    let _ = writeln!(o, "cuzk_memory_in_use_bytes {}", s.mem_in_use);
    header(&mut o, "cuzk_host_rss_bytes", "gauge", "The daemon's resident set.");
    let _ = writeln!(o, "cuzk_host_rss_bytes {}", crate::engine::host::rss_bytes());
    header(&mut o, "cuzk_pinned_memory_bytes", "gauge", "Page-locked host memory the backend holds.");
    let _ = writeln!(o, "cuzk_pinned_memory_bytes {}", s.pinned_bytes);
    header(&mut o, "cuzk_gpu_memory_used_bytes", "gauge", "Device memory in use, per GPU.");
    for d in s.devices.iter().filter(|d| d.mem_total > 0) {
        let _ =
            writeln!(o, "cuzk_gpu_memory_used_bytes{{gpu=\"{}\"}} {}", d.ordinal, d.mem_total - d.mem_free);
    }
    header(&mut o, "cuzk_gpu_memory_total_bytes", "gauge", "Device memory, per GPU.");
    for d in s.devices.iter().filter(|d| d.mem_total > 0) {
        let _ = writeln!(o, "cuzk_gpu_memory_total_bytes{{gpu=\"{}\"}} {}", d.ordinal, d.mem_total);
    }
    header(&mut o, "cuzk_srs_tier", "gauge", "1 for each SRS's tier now (hot, warm, cold).");
    for e in &s.srs {
        for t in ["hot", "warm", "cold"] {
            let on = u8::from(e.tier.name() == t);
            let _ = writeln!(o, "cuzk_srs_tier{{circuit_id=\"{}\",tier=\"{t}\"}} {on}", esc(&e.circuit_id));
        }
    }
    header(&mut o, "cuzk_srs_bytes", "gauge", "Each SRS's size in memory.");
    for e in &s.srs {
        let _ = writeln!(o, "cuzk_srs_bytes{{circuit_id=\"{}\"}} {}", esc(&e.circuit_id), e.size_bytes);
    }
    header(&mut o, "cuzk_srs_ref_count", "gauge", "Running jobs holding each SRS.");
    for e in &s.srs {
        let _ = writeln!(o, "cuzk_srs_ref_count{{circuit_id=\"{}\"}} {}", esc(&e.circuit_id), e.refs);
    }
    o
}
