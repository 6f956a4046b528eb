//! Finding a local OpenAI-compatible server when nothing is configured.

use std::time::Duration;

use serde::Deserialize;

use crate::budgets::LOCAL_PROBE_TIMEOUT;

/// Loopback ports where local OpenAI-compatible servers usually listen:
/// Ollama, LM Studio, llama.cpp's server, vLLM.
pub const LOCAL_SERVER_PORTS: [u16; 4] = [11434, 1234, 8080, 8000];

/// A local server a probe found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalServer {
    /// Its OpenAI-compatible base URL (`http://127.0.0.1:PORT/v1`).
    pub base_url: String,
    /// The first model it lists.
    pub model: Option<String>,
}

/// The local-server step of building an engine with nothing configured:
/// the first of [`LOCAL_SERVER_PORTS`] that answers.
pub fn find_local_server() -> Option<LocalServer> {
    probe_local_servers(&LOCAL_SERVER_PORTS, LOCAL_PROBE_TIMEOUT)
        .map(|(base_url, model)| LocalServer { base_url, model })
}

/// Looks for an OpenAI-compatible server on loopback: the first port that
/// accepts a connection and answers `GET /v1/models` with JSON wins.
/// Returns the base URL and the first model it lists.
pub fn probe_local_servers(ports: &[u16], timeout: Duration) -> Option<(String, Option<String>)> {
    ports.iter().find_map(|&port| probe_one(port, timeout))
}

fn probe_one(port: u16, timeout: Duration) -> Option<(String, Option<String>)> {
    use std::io::{Read, Write};
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let mut s = std::net::TcpStream::connect_timeout(&addr, timeout).ok()?;
    s.set_read_timeout(Some(timeout)).ok()?;
    s.set_write_timeout(Some(timeout)).ok()?;
    let req =
        format!("GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nconnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).ok()?;
    let mut buf = Vec::new();
    // Bounded: a models list is small; more than 1 MiB is not what we want.
    let _ = s.take(1024 * 1024).read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf);
    let (head, body) = text.split_once("\r\n\r\n")?;
    if !head.starts_with("HTTP/1.1 200") && !head.starts_with("HTTP/1.0 200") {
        return None;
    }
    #[derive(Deserialize)]
    struct Models {
        data: Vec<ModelEntry>,
    }
    #[derive(Deserialize)]
    struct ModelEntry {
        id: String,
    }
    // Chunked bodies put a size line first; find the JSON object itself.
    let start = body.find('{')?;
    let end = body.rfind('}').filter(|&e| e > start)?;
    let json = &body[start..=end];
    let models: Models = serde_json::from_str(json).ok()?;
    Some((
        format!("http://127.0.0.1:{port}/v1"),
        models.data.into_iter().next().map(|m| m.id),
    ))
}
