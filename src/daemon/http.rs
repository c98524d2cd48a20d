//! `GET /status` (a JSON snapshot) and `GET /metrics` (Prometheus text) over plain HTTP/1.1 on the daemon's
//! runtime: one request per connection, its head read within a bound in size and time, then closed.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::engine::service::{Service, ServiceStatus};

/// The largest request head read (a GET with ordinary headers is well under it).
const MAX_HEAD: usize = 8 << 10;
/// How long a client may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(5);

/// The JSON `GET /status` answers.
pub fn status_json(s: &ServiceStatus) -> serde_json::Value {
    serde_json::json!({
        "uptime_seconds": s.uptime_s,
        "backend": s.backend,
        "draining": s.draining,
        "proofs_completed": s.completed,
        "proofs_failed": s.failed,
        "memory": {"budget_bytes": s.mem_budget, "in_use_bytes": s.mem_in_use, "pinned_bytes": s.pinned_bytes,
                   "host_rss_bytes": crate::engine::host::rss_bytes()},
        "queues": s.queues.iter().map(|q| serde_json::json!({
            "kind": q.kind.map_or("unknown", |k| k.name()), "pending": q.pending, "running": q.running,
        })).collect::<Vec<_>>(),
        "gpus": s.devices.iter().map(|d| serde_json::json!({
            "ordinal": d.ordinal, "name": d.name, "mem_total_bytes": d.mem_total, "mem_free_bytes": d.mem_free,
            "current_job_id": d.current_job, "current_kind": d.current_kind.map(|k| k.name()),
        })).collect::<Vec<_>>(),
        "srs": s.srs.iter().map(|e| serde_json::json!({
            "circuit_id": e.circuit_id, "tier": e.tier.name(), "size_bytes": e.size_bytes, "ref_count": e.refs,
            "file": e.file.as_ref().map(|f| f.display().to_string()),
        })).collect::<Vec<_>>(),
        "toggles": s.toggles.compact(),
    })
}

async fn reply(mut sock: TcpStream, code: &str, ctype: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 {code}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = sock.write_all(head.as_bytes()).await;
    let _ = sock.write_all(body).await;
    let _ = sock.shutdown().await;
}

async fn serve_one(mut sock: TcpStream, service: Service) {
    let mut buf = Vec::with_capacity(1024);
    let read = async {
        let mut chunk = [0u8; 1024];
        while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < MAX_HEAD {
            match sock.read(&mut chunk).await {
                Ok(0) | Err(_) => return false,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        true
    };
    if !matches!(tokio::time::timeout(HEAD_TIMEOUT, read).await, Ok(true)) {
        return;
    }
    let line = String::from_utf8_lossy(&buf[..buf.iter().position(|b| *b == b'\r').unwrap_or(buf.len())])
        .into_owned();
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = path.split('?').next().unwrap_or("");
    if method != "GET" {
        return reply(sock, "405 Method Not Allowed", "text/plain", b"only GET\n").await;
    }
    match path {
        "/status" => {
            let svc = service.clone();
            let body = tokio::task::spawn_blocking(move || status_json(&svc.status()).to_string()).await;
            let body = body.unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
            reply(sock, "200 OK", "application/json", body.as_bytes()).await
        }
        "/metrics" => {
            let body = tokio::task::spawn_blocking(move || super::prometheus::render(&service)).await;
            let body = body.unwrap_or_default();
            reply(sock, "200 OK", "text/plain; version=0.0.4", body.as_bytes()).await
        }
        _ => reply(sock, "404 Not Found", "text/plain", b"try /status or /metrics\n").await,
    }
}

/// Serves `listener` until the daemon stops.
pub async fn serve(listener: TcpListener, service: Service, stopping: tokio::sync::watch::Receiver<bool>) {
    let stop = super::stop::until_stopped(stopping);
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = &mut stop => return,
            r = listener.accept() => match r {
                Ok((sock, _)) => { tokio::spawn(serve_one(sock, service.clone())); }
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            },
        }
    }
}
