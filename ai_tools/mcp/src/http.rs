//! The Streamable HTTP transport (MCP 2025-06-18 and later): every message
//! is a POST; the answer is one JSON body or an SSE stream that carries
//! progress and then the answer; a GET stream carries what the server
//! says unprompted (`tools/list_changed`). The session id the server
//! hands out at `initialize` goes on every later request.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use parking_lot::{Condvar, Mutex};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use serde_json::Value;

use crate::error::McpError;
use crate::peer::{Outbound, Peer};
use crate::stdio::MAX_MESSAGE_BYTES;

const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";
const LAST_EVENT_ID: &str = "last-event-id";

/// How long to wait before resuming a stream whose server gave no
/// `retry:` (the SSE spec leaves it to the client; a second is what
/// browsers use, give or take).
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// The longest `retry:` honoured: a server asking for more is still
/// retried after this, so a call cannot hang on its say-so alone (the
/// tool timeout bounds the call anyway).
const MAX_RETRY: Duration = Duration::from_secs(30);

/// Resumptions of one answer's stream at most: enough for a server that
/// closes streams on purpose to hand the answer over, few enough that
/// one that keeps closing without answering is given up on.
const MAX_RESUMES: usize = 10;

/// Resumptions of the unprompted-message stream in a row that bring
/// nothing, after which koi stops listening (it only carries
/// `tools/list_changed`).
const MAX_IDLE_RESUMES: usize = 3;

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
    /// Whether the first GET for unprompted messages has been answered
    /// (or given up on).
    listening: Mutex<bool>,
    listened: Condvar,
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
        listening: Mutex::new(false),
        listened: Condvar::new(),
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

    /// Waits, up to `limit`, until the server has answered the GET for
    /// unprompted messages (sent after `notifications/initialized`), so
    /// the server knows that stream before any request: a server that
    /// hands an answer to whichever GET stream is open then cannot give
    /// it to this one in place of the resumed one the request expects.
    fn wait_listening(&self, limit: Duration);
}

impl ProtocolAware for Http {
    fn set_protocol(&self, version: &str) {
        *self.protocol.lock() = Some(version.to_string());
    }

    fn wait_listening(&self, limit: Duration) {
        let deadline = std::time::Instant::now() + limit;
        let mut ready = self.listening.lock();
        while !*ready {
            if self.listened.wait_until(&mut ready, deadline).timed_out() {
                return;
            }
        }
    }
}

impl Http {
    fn request(&self, method: reqwest::Method) -> reqwest::RequestBuilder {
        let accept = if method == reqwest::Method::GET {
            "text/event-stream"
        } else {
            "application/json, text/event-stream"
        };
        let mut req = self
            .client
            .request(method, &self.url)
            .headers(self.headers.clone())
            .header(ACCEPT, accept);
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
        if is_event_stream(&resp) {
            let mut stream = SseState::default();
            let ended = read_sse(resp, &peer, &mut stream, id).await;
            match (ended, id) {
                (Err(e), _) => fail(e),
                (Ok(()), Some(id)) if !stream.answered => self.resume(id, stream).await,
                (Ok(()), _) => {}
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
    /// that offers none answers 405, which is fine. A stream the server
    /// closes after giving an event id is taken up again (GET with
    /// `Last-Event-ID`, after its `retry:`), a few times at most while
    /// nothing arrives.
    async fn listen(self: Arc<Self>) {
        self.listen_loop().await;
        self.mark_listening();
    }

    fn mark_listening(&self) {
        *self.listening.lock() = true;
        self.listened.notify_all();
    }

    async fn listen_loop(&self) {
        let mut stream = SseState::default();
        let mut idle = 0;
        while idle < MAX_IDLE_RESUMES {
            let Some(peer) = self.peer.upgrade().filter(|p| p.closed().is_none()) else {
                return;
            };
            let seen = stream.events;
            let sent = self.get(stream.last_id.as_deref()).send().await;
            self.mark_listening();
            let Ok(resp) = sent else {
                return;
            };
            if !resp.status().is_success() || !is_event_stream(&resp) {
                return;
            }
            if read_sse(resp, &peer, &mut stream, None).await.is_err() || stream.last_id.is_none() {
                return;
            }
            drop(peer);
            idle = if stream.events > seen { 0 } else { idle + 1 };
            tokio::time::sleep(stream.retry.unwrap_or(DEFAULT_RETRY)).await;
        }
    }

    /// A POST's event stream closed before the answer to `id`: the spec's
    /// resumption. Waits the server's `retry:`, then GETs with the last
    /// event id, until the answer arrives on a resumed stream, the stream
    /// cannot be resumed (no event id, an error status), or
    /// [`MAX_RESUMES`] attempts.
    async fn resume(&self, id: u64, mut stream: SseState) {
        let Some(peer) = self.peer.upgrade() else {
            return;
        };
        let gone = |why: String| {
            peer.fail(
                id,
                McpError::Gone(format!("the answer's event stream ended: {why}")),
            )
        };
        for _ in 0..MAX_RESUMES {
            let Some(last) = stream.last_id.clone() else {
                return gone("closed before the answer, with no event id to resume from".into());
            };
            tokio::time::sleep(stream.retry.unwrap_or(DEFAULT_RETRY)).await;
            // Answered some other way (the unprompted stream), given up
            // on (a timeout, a cancel), or the connection is gone.
            if peer.closed().is_some() || !peer.is_pending(id) {
                return;
            }
            let resp = match self.get(Some(&last)).send().await {
                Ok(r) => r,
                Err(e) => return gone(format!("resuming with GET: {e}")),
            };
            if !resp.status().is_success() || !is_event_stream(&resp) {
                return gone(format!("resuming with GET: HTTP {}", resp.status()));
            }
            if let Err(e) = read_sse(resp, &peer, &mut stream, Some(id)).await {
                return peer.fail(id, e);
            }
            if stream.answered {
                return;
            }
        }
        gone(format!("still no answer after {MAX_RESUMES} resumptions"))
    }

    fn get(&self, last_event_id: Option<&str>) -> reqwest::RequestBuilder {
        let mut req = self.request(reqwest::Method::GET);
        if let Some(id) = last_event_id {
            req = req.header(LAST_EVENT_ID, id);
        }
        req
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

/// What a client remembers of an event stream across its reconnections.
#[derive(Debug, Default)]
struct SseState {
    /// The last `id:` the server gave (sent back as `Last-Event-ID`).
    last_id: Option<String>,
    /// The last `retry:` (how long to wait before reconnecting).
    retry: Option<Duration>,
    /// Whether the answer waited for has arrived.
    answered: bool,
    /// Messages received so far.
    events: u64,
}

fn is_event_stream(resp: &reqwest::Response) -> bool {
    resp.headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// Whether `v` is the answer (a result or an error) to request `id`.
fn answers(v: &Value, id: u64) -> bool {
    v.get("id").and_then(Value::as_u64) == Some(id)
        && (v.get("result").is_some() || v.get("error").is_some())
}

/// Reads an SSE stream to its end, handing every event's data to `peer`
/// and keeping its ids and `retry:` in `state` (and whether the answer
/// to `waiting_for` came).
async fn read_sse(
    mut resp: reqwest::Response,
    peer: &Peer,
    state: &mut SseState,
    waiting_for: Option<u64>,
) -> Result<(), McpError> {
    let mut buf: Vec<u8> = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| McpError::Gone(format!("reading the event stream: {e}")))?
    {
        buf.extend_from_slice(&chunk);
        while let Some((end, gap)) = event_end(&buf) {
            let event: Vec<u8> = buf.drain(..end + gap).take(end).collect();
            let fields = event_fields(&event);
            if let Some(id) = fields.id {
                state.last_id = Some(id);
            }
            if let Some(retry) = fields.retry {
                state.retry = Some(retry.min(MAX_RETRY));
            }
            if let Some(data) = fields.data {
                if let Ok(v) = serde_json::from_str::<Value>(&data) {
                    state.events += 1;
                    let answer = waiting_for.is_some_and(|id| answers(&v, id));
                    peer.receive(v);
                    if answer {
                        // Nothing of this request follows its answer; a
                        // resumed stream may stay open for other traffic
                        // the unprompted stream carries anyway.
                        state.answered = true;
                        return Ok(());
                    }
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

/// The fields of one event koi reads.
#[derive(Debug, Default, PartialEq)]
struct EventFields {
    /// The joined `data:` lines.
    data: Option<String>,
    /// `id:` (an id with a NUL is ignored, as the SSE spec says).
    id: Option<String>,
    /// `retry:` in milliseconds (digits only, as the SSE spec says).
    retry: Option<Duration>,
}

fn event_fields(event: &[u8]) -> EventFields {
    let text = String::from_utf8_lossy(event);
    let mut out = EventFields::default();
    for line in text.lines() {
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => match &mut out.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => out.data = Some(value.to_string()),
            },
            "id" if !value.contains('\0') => out.id = Some(value.to_string()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                out.retry = value.parse().ok().map(Duration::from_millis);
            }
            _ => {}
        }
    }
    out
}

/// The joined `data:` lines of one event.
#[cfg(test)]
fn event_data(event: &[u8]) -> Option<String> {
    event_fields(event).data
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
        assert_eq!(
            event_fields(b"id: event-1\nretry: 500\ndata: "),
            EventFields {
                data: Some(String::new()),
                id: Some("event-1".into()),
                retry: Some(Duration::from_millis(500)),
            }
        );
        assert_eq!(event_fields(b"retry: 5s\nid: a\0b").retry, None);
        assert_eq!(event_fields(b"id: a\0b").id, None);
    }
}
