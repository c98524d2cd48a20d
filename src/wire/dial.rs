//! Connecting to a daemon as Curio does: `host:port` (or `http://host:port`) over TCP, or `unix:///path`,
//! plaintext, 256 MiB messages. What `cuzk client`, the console's attach and the tests dial with.

use tonic::transport::{Channel, Endpoint, Uri};

/// A channel to the daemon at `addr` (lazy: the first call connects, so a daemon still starting is fine).
pub fn channel(addr: &str) -> Result<Channel, String> {
    let a = addr.trim();
    if let Some(path) = a.strip_prefix("unix://").or_else(|| a.strip_prefix("unix:")) {
        let path = std::path::PathBuf::from(path);
        // The URI is not dialed: the connector opens the socket.
        let ep = Endpoint::from_static("http://cuzk.sock");
        let connector = tower::service_fn(move |_: Uri| {
            let path = path.clone();
            async move {
                let s = tokio::net::UnixStream::connect(path).await?;
                Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(s))
            }
        });
        return Ok(ep.connect_with_connector_lazy(connector));
    }
    let uri = if a.starts_with("http://") { a.to_string() } else { format!("http://{a}") };
    let ep =
        Endpoint::from_shared(uri).map_err(|e| format!("{addr:?}: not host:port or unix:///path: {e}"))?;
    Ok(ep.connect_lazy())
}

/// A `cuzk.v1.ProvingEngine` client with the message limits Curio uses.
pub fn proving(addr: &str) -> Result<super::v1::proving_engine_client::ProvingEngineClient<Channel>, String> {
    Ok(super::v1::proving_engine_client::ProvingEngineClient::new(channel(addr)?)
        .max_decoding_message_size(super::MAX_MESSAGE_BYTES)
        .max_encoding_message_size(super::MAX_MESSAGE_BYTES))
}

/// A `cuzk.console.v1.Watch` client.
pub fn watch(addr: &str) -> Result<super::console::watch_client::WatchClient<Channel>, String> {
    Ok(super::console::watch_client::WatchClient::new(channel(addr)?)
        .max_decoding_message_size(super::MAX_MESSAGE_BYTES)
        .max_encoding_message_size(super::MAX_MESSAGE_BYTES))
}
