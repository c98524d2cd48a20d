//! The daemon's stop flag, shared by its servers (gRPC, HTTP, the watch stream): each ends when it is set.

/// Resolves once the daemon is stopping (the flag set, or its sender gone).
pub async fn until_stopped(mut rx: tokio::sync::watch::Receiver<bool>) {
    while !*rx.borrow_and_update() {
        if rx.changed().await.is_err() {
            return;
        }
    }
}
