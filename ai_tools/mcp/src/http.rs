//! The Streamable HTTP transport (MCP 2025-06-18 and later): every message
//! is a POST; the answer is one JSON body or an SSE stream that carries
//! progress and then the answer; a GET stream carries what the server
//! says unprompted (`tools/list_changed`). The session id the server
//! hands out at `initialize` goes on every later request.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock, Weak};

use parking_lot::Mutex;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use serde_json::Value;

use crate::error::McpError;
use crate::peer::{Outbound, Peer};
use crate::stdio::MAX_MESSAGE_BYTES;

const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";

/// One small runtime for every HTTP server of this process: requests are
/// I/O-bound, and tools run on plain threads that must not own one.
fn runtime() -> Result<&'static tokio::runtime::Runtime, McpError> {
    static RT: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("koi-mcp-http")
            .enable_all()
            .build()
            .map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(|e| McpError::Start(format!("no I/O runtime: {e}")))
}

/// What is needed to reach one HTTP server.
pub(crate) struct Endpoint<'a> {
    pub url: &'a str,
    pub headers: &'a BTreeMap<String, String>,
    pub bearer_token_env_var: Option<&'a str>,
}

struct Http {
    client: reqwest::Client,
    url: String,
    headers: HeaderMap,
    session: Mutex<Option<String>>,
    protocol: Mutex<Option<String>>,
    peer: Weak<Peer>,
    me: Weak<Http>,
}

/// Connects `peer` to the endpoint (nothing is sent until the first
/// message).
pub(crate) fn connect(
    endpoint: &Endpoint<'_>,
    peer: &Arc<Peer>,
) -> Result<Arc<dyn ProtocolAware>, McpError> {
    let mut headers = HeaderMap::new();
    for (k, v) in endpoint.headers {
        let name = HeaderName::from_bytes(k.as_bytes())
            .map_err(|_| McpError::Config(format!("header name {k:?} is not valid")))?;
        let value = HeaderValue::from_str(v)
            .map_err(|_| McpError::Config(format!("the value of header {k} is not valid")))?;
        headers.insert(name, value);
    }
    if let Some(var) = endpoint.bearer_token_env_var {
        let token = std::env::var(var)
            .map_err(|_| McpError::Config(format!("{var} (bearer_token_env_var) is not set")))?;
        let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|_| McpError::Config(format!("{var} does not hold a usable token")))?;
        value.set_sensitive(true);
        headers.insert(AUTHORIZATION, value);
    }
    let client = reqwest::Client::builder()
        .build()
        .map_err(|e| McpError::Start(e.to_string()))?;
    runtime()?;
    let http = Arc::new_cyclic(|me| Http {
        client,
        url: endpoint.url.to_string(),
        headers,
        session: Mutex::new(None),
        protocol: Mutex::new(None),
        peer: Arc::downgrade(peer),
        me: me.clone(),
    });
    peer.attach(http.clone());
    Ok(http)
}

/// A transport that sends the negotiated protocol version on later
/// requests.
pub(crate) trait ProtocolAware: Send + Sync {
    /// Records the version `initialize` settled on.
    fn set_protocol(&self, version: &str);
}

impl ProtocolAware for Http {
    fn set_protocol(&self, version: &str) {
        *self.protocol.lock() = Some(version.to_string());
    }
}

impl Http {
    fn request(&self, method: reqwest::Method) -> reqwest::RequestBuilder {
        let mut req = self
            .client
            .request(method, &self.url)
            .headers(self.headers.clone())
            .header(ACCEPT, "application/json, text/event-stream");
        if let Some(s) = self.session.lock().clone() {
            req = req.header(SESSION_HEADER, s);
        }
        if let Some(v) = self.protocol.lock().clone() {
            req = req.header(VERSION_HEADER, v);
        }
        req
    }

    async fn post(self: Arc<Self>, body: Vec<u8>, id: Option<u64>, listen_after: bool) {
        let Some(peer) = self.peer.upgrade() else {
            return;
        };
        let fail = |e: McpError| {
            if let Some(id) = id {
                peer.fail(id, e);
            }
        };
        let sent = self
            .request(reqwest::Method::POST)
            .header(CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .await;
        let resp = match sent {
            Ok(r) => r,
            Err(e) => return fail(McpError::Gone(format!("POST {}: {e}", self.url))),
        };
        let status = resp.status();
        if status == reqwest::StatusCode::NOT_FOUND && self.session.lock().is_some() {
            // The server forgot the session: this connection is over, and
            // the next use starts a new one.
            peer.close("the server ended the session (HTTP 404)".into());
            return;
        }
        if !status.is_success() {
            let text = resp.text().await.unwrap_or_default();
            let text: String = text.chars().take(300).collect();
            return fail(McpError::Gone(format!(
                "HTTP {status} from {}: {text}",
                self.url
            )));
        }
        if let Some(s) = resp
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
        {
            *self.session.lock() = Some(s.to_string());
        }
        if listen_after {
            if let Some(me) = self.me.upgrade() {
                if let Ok(rt) = runtime() {
                    rt.spawn(me.listen());
                }
            }
        }
        if status == reqwest::StatusCode::ACCEPTED {
            return;
        }
        let is_sse = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if is_sse {
            if let Err(e) = read_sse(resp, &peer).await {
                fail(e);
            }
            return;
        }
        match read_capped(resp).await {
            Ok(bytes) if bytes.is_empty() => {}
            Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
                Ok(v) => peer.receive(v),
                Err(e) => fail(McpError::Protocol(format!("the answer is not JSON: {e}"))),
            },
            Err(e) => fail(e),
        }
    }

    /// The GET stream for messages the server sends unprompted. A server
    /// that offers none answers 405, which is fine.
    async fn listen(self: Arc<Self>) {
        let Some(peer) = self.peer.upgrade() else {
            return;
        };
        let Ok(resp) = self.request(reqwest::Method::GET).send().await else {
            return;
        };
        if resp.status().is_success() {
            let _ = read_sse(resp, &peer).await;
        }
    }
}

impl Outbound for Http {
    fn send(&self, message: &Value) -> Result<(), McpError> {
        let body = serde_json::to_vec(message).map_err(|e| McpError::Protocol(e.to_string()))?;
        let is_request = message.get("method").is_some();
        let id = message
            .get("id")
            .and_then(Value::as_u64)
            .filter(|_| is_request);
        let listen_after =
            message.get("method").and_then(Value::as_str) == Some("notifications/initialized");
        let me = self
            .me
            .upgrade()
            .ok_or_else(|| McpError::Gone("the connection is closed".into()))?;
        runtime()?.spawn(me.post(body, id, listen_after));
        Ok(())
    }

    fn close(&self) {
        if self.session.lock().is_none() {
            return;
        }
        if let (Some(me), Ok(rt)) = (self.me.upgrade(), runtime()) {
            rt.spawn(async move {
                let _ = me.request(reqwest::Method::DELETE).send().await;
            });
        }
    }
}

async fn read_capped(mut resp: reqwest::Response) -> Result<Vec<u8>, McpError> {
    let mut out = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| McpError::Gone(format!("reading the answer: {e}")))?
    {
        if out.len() + chunk.len() > MAX_MESSAGE_BYTES {
            return Err(McpError::Protocol(format!(
                "the answer is over {} MiB",
                MAX_MESSAGE_BYTES >> 20
            )));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

/// Reads an SSE stream, handing every event's data to `peer`.
async fn read_sse(mut resp: reqwest::Response, peer: &Peer) -> Result<(), McpError> {
    let mut buf: Vec<u8> = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| McpError::Gone(format!("reading the event stream: {e}")))?
    {
        buf.extend_from_slice(&chunk);
        while let Some((end, gap)) = event_end(&buf) {
            let event: Vec<u8> = buf.drain(..end + gap).take(end).collect();
            if let Some(data) = event_data(&event) {
                if let Ok(v) = serde_json::from_str::<Value>(&data) {
                    peer.receive(v);
                }
            }
        }
        if buf.len() > MAX_MESSAGE_BYTES {
            return Err(McpError::Protocol(format!(
                "an event is over {} MiB",
                MAX_MESSAGE_BYTES >> 20
            )));
        }
    }
    Ok(())
}

/// Where the first complete event ends, and the length of the blank line
/// that ends it.
fn event_end(buf: &[u8]) -> Option<(usize, usize)> {
    let lf = buf.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2));
    let crlf = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, 4));
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

/// The joined `data:` lines of one event.
fn event_data(event: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(event);
    let mut data: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("data:") {
            let rest = rest.strip_prefix(' ').unwrap_or(rest);
            match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(rest);
                }
                None => data = Some(rest.to_string()),
            }
        }
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_events() {
        assert_eq!(event_end(b"data: 1\n\ndata: 2"), Some((7, 2)));
        assert_eq!(event_end(b"data: 1\r\n\r\n"), Some((7, 4)));
        assert_eq!(event_end(b"data: 1\n"), None);
        assert_eq!(
            event_data(b"event: message\nid: 3\ndata: {\"a\":\ndata: 1}").as_deref(),
            Some("{\"a\":\n1}")
        );
        assert_eq!(event_data(b": comment"), None);
    }
}
