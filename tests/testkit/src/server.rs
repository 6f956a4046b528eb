//! The loopback HTTP server behind [`FakeProvider`].

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Longest a scripted reply may keep a connection open (hangs, delays): a
/// test that forgets to cancel must still finish, and the server must never
/// outlive the test process by much.
const MAX_CONNECTION_LIFETIME: Duration = Duration::from_secs(60);

/// Largest request head or body accepted; a test client never sends more,
/// and a runaway client must not exhaust memory.
const MAX_REQUEST_BYTES: usize = 64 * 1024 * 1024;

/// One request as the server received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedRequest {
    /// `GET`, `POST`, …
    pub method: String,
    /// Path and query, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Header names lower-cased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The raw body bytes.
    pub body: Vec<u8>,
}

impl RecordedRequest {
    /// The first header with this (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as text (lossy for non-UTF-8 bytes).
    pub fn body_str(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body parsed as JSON, or `Value::Null` when it is not JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// How a scripted streaming reply ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// The terminating zero-length chunk: a clean end of body.
    Clean,
    /// The socket is closed without the terminating chunk: the client sees
    /// a transport error mid-body.
    Cut,
    /// Nothing more is written and the connection stays open until the
    /// client goes away (or [`MAX_CONNECTION_LIFETIME`]).
    Hang,
}

/// One scripted HTTP reply.
#[derive(Debug, Clone)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    /// Body pieces; a streaming reply writes each as its own HTTP chunk.
    chunks: Vec<Vec<u8>>,
    streaming: bool,
    ending: Ending,
    delay_before: Duration,
    delay_between: Duration,
}

impl Reply {
    /// A `200 text/event-stream` reply writing each item (an already formatted
    /// SSE event, see [`crate::sse_event`]) as its own chunk.
    pub fn sse<I, S>(events: I) -> Reply
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Reply {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            chunks: events.into_iter().map(|e| e.into().into_bytes()).collect(),
            streaming: true,
            ending: Ending::Clean,
            delay_before: Duration::ZERO,
            delay_between: Duration::ZERO,
        }
    }

    /// A `200 text/event-stream` reply writing these raw byte pieces as
    /// chunks, split anywhere (even inside a UTF-8 sequence or a CRLF).
    pub fn sse_bytes(chunks: Vec<Vec<u8>>) -> Reply {
        Reply {
            chunks,
            ..Reply::sse(Vec::<String>::new())
        }
    }

    /// A plain (non-streaming) reply with a status and a body.
    pub fn status(status: u16, body: &str) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            chunks: vec![body.as_bytes().to_vec()],
            streaming: false,
            ending: Ending::Clean,
            delay_before: Duration::ZERO,
            delay_between: Duration::ZERO,
        }
    }

    /// A plain `200` JSON reply.
    pub fn json(value: &serde_json::Value) -> Reply {
        Reply::status(200, &value.to_string())
    }

    /// Adds a response header.
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.to_ascii_lowercase(), value.into()));
        self
    }

    /// Waits this long before writing anything (status line included).
    pub fn delay(mut self, d: Duration) -> Reply {
        self.delay_before = d;
        self
    }

    /// Waits this long between chunks (a slow model).
    pub fn chunk_delay(mut self, d: Duration) -> Reply {
        self.delay_between = d;
        self
    }

    /// Keeps only the first `n` chunks and then closes the socket without a
    /// clean end: a stream cut mid-way.
    pub fn cut_after(mut self, n: usize) -> Reply {
        self.chunks.truncate(n);
        self.ending = Ending::Cut;
        self
    }

    /// Closes the socket without a clean end after all chunks.
    pub fn cut(mut self) -> Reply {
        self.ending = Ending::Cut;
        self
    }

    /// Keeps only the first `n` chunks, then writes nothing more and keeps
    /// the connection open: a model that stalls.
    pub fn hang_after(mut self, n: usize) -> Reply {
        self.chunks.truncate(n);
        self.ending = Ending::Hang;
        self
    }

    /// The HTTP status this reply sends.
    pub fn status_code(&self) -> u16 {
        self.status
    }
}

type Handler = dyn Fn(&RecordedRequest, usize) -> Reply + Send + Sync;

enum Script {
    Queue(Mutex<VecDeque<Reply>>),
    Handler(Box<Handler>),
}

struct Shared {
    script: Script,
    requests: Mutex<Vec<RecordedRequest>>,
    arrived: Condvar,
    stop: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking test thread must not hide the recorded requests.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A scripted fake model provider on `127.0.0.1`; stops when dropped.
pub struct FakeProvider {
    addr: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

impl FakeProvider {
    /// Serves `replies` in order, one per request. A request arriving after
    /// the script ran out gets a `500` whose body says so.
    pub fn start<I: IntoIterator<Item = Reply>>(replies: I) -> FakeProvider {
        Self::spawn(Script::Queue(Mutex::new(replies.into_iter().collect())))
    }

    /// Computes each reply from the request and its 0-based index; for
    /// sessions too long or too dynamic to script up front.
    pub fn start_with<F>(handler: F) -> FakeProvider
    where
        F: Fn(&RecordedRequest, usize) -> Reply + Send + Sync + 'static,
    {
        Self::spawn(Script::Handler(Box::new(handler)))
    }

    fn spawn(script: Script) -> FakeProvider {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let shared = Arc::new(Shared {
            script,
            requests: Mutex::new(Vec::new()),
            arrived: Condvar::new(),
            stop: AtomicBool::new(false),
        });
        let for_thread = Arc::clone(&shared);
        let acceptor = std::thread::Builder::new()
            .name("fake-provider".into())
            .spawn(move || accept_loop(listener, for_thread))
            .expect("spawn acceptor");
        FakeProvider {
            addr,
            shared,
            acceptor: Some(acceptor),
        }
    }

    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:PORT/v1`, the usual OpenAI-style base URL.
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.url())
    }

    /// The socket address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Appends a reply to a queue script (ignored for handler scripts).
    pub fn push(&self, reply: Reply) {
        if let Script::Queue(q) = &self.shared.script {
            lock(q).push_back(reply);
        }
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// How many requests have arrived.
    pub fn request_count(&self) -> usize {
        lock(&self.shared.requests).len()
    }

    /// Blocks until at least `n` requests arrived or `timeout` passed;
    /// returns whether they did.
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut guard = lock(&self.shared.requests);
        while guard.len() < n {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            guard = match self.shared.arrived.wait_timeout(guard, left) {
                Ok((g, _)) => g,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        true
    }
}

impl Drop for FakeProvider {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the blocking accept() so the thread sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
        if let Some(handle) = self.acceptor.take() {
            let _ = handle.join();
        }
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let shared = Arc::clone(&shared);
        let _ = std::thread::Builder::new()
            .name("fake-provider-conn".into())
            .spawn(move || serve_connection(stream, &shared));
    }
}

fn serve_connection(stream: TcpStream, shared: &Shared) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = stream.set_nodelay(true);
    let Ok(reader_stream) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(reader_stream);
    let mut writer = stream;
    // Every reply says `connection: close`, so one request per connection.
    let Some(request) = read_request(&mut reader) else {
        return;
    };
    let reply = {
        let mut requests = lock(&shared.requests);
        let index = requests.len();
        requests.push(request.clone());
        shared.arrived.notify_all();
        drop(requests);
        match &shared.script {
            Script::Queue(q) => lock(q).pop_front().unwrap_or_else(|| {
                Reply::status(
                    500,
                    &format!(r#"{{"error":{{"message":"fake provider: script exhausted at request {index}"}}}}"#),
                )
            }),
            Script::Handler(h) => h(&request, index),
        }
    };
    write_reply(&mut writer, &reply, shared);
}

fn read_request<R: BufRead>(reader: &mut R) -> Option<RecordedRequest> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    let mut head_bytes = line.len();
    loop {
        let mut h = String::new();
        let n = reader.read_line(&mut h).ok()?;
        head_bytes += n;
        if n == 0 || head_bytes > MAX_REQUEST_BYTES {
            return None;
        }
        let h = h.trim_end_matches(['\r', '\n']);
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let find = |name: &str| headers.iter().find(|(k, _)| k == name).map(|(_, v)| v);
    let mut body = Vec::new();
    if let Some(len) = find("content-length").and_then(|v| v.parse::<usize>().ok()) {
        if len > MAX_REQUEST_BYTES {
            return None;
        }
        body.resize(len, 0);
        reader.read_exact(&mut body).ok()?;
    } else if find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        body = read_chunked(reader)?;
    }
    Some(RecordedRequest {
        method,
        path,
        headers,
        body,
    })
}

fn read_chunked<R: BufRead>(reader: &mut R) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size_line = String::new();
        reader.read_line(&mut size_line).ok()?;
        let size_hex = size_line.trim().split(';').next()?;
        let size = usize::from_str_radix(size_hex, 16).ok()?;
        if body.len() + size > MAX_REQUEST_BYTES {
            return None;
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..]).ok()?;
        let mut crlf = String::new();
        reader.read_line(&mut crlf).ok()?;
        if size == 0 {
            return Some(body);
        }
    }
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// Sleeps in small steps so a stopping server does not wait out long delays.
fn sleep_unless_stopped(d: Duration, shared: &Shared) {
    let deadline = Instant::now() + d.min(MAX_CONNECTION_LIFETIME);
    while Instant::now() < deadline && !shared.stop.load(Ordering::SeqCst) {
        let left = deadline.saturating_duration_since(Instant::now());
        std::thread::sleep(left.min(Duration::from_millis(10)));
    }
}

fn write_reply(w: &mut TcpStream, reply: &Reply, shared: &Shared) {
    sleep_unless_stopped(reply.delay_before, shared);
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nconnection: close\r\n",
        reply.status,
        reason_phrase(reply.status)
    );
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if reply.streaming {
        head.push_str("transfer-encoding: chunked\r\n\r\n");
    } else {
        let len: usize = reply.chunks.iter().map(Vec::len).sum();
        head.push_str(&format!("content-length: {len}\r\n\r\n"));
    }
    if w.write_all(head.as_bytes())
        .and_then(|()| w.flush())
        .is_err()
    {
        return;
    }
    if !reply.streaming {
        for c in &reply.chunks {
            let _ = w.write_all(c);
        }
        let _ = w.flush();
        return;
    }
    for (i, chunk) in reply.chunks.iter().enumerate() {
        if i > 0 {
            sleep_unless_stopped(reply.delay_between, shared);
        }
        if chunk.is_empty() {
            continue;
        }
        let framed = [
            format!("{:x}\r\n", chunk.len()).as_bytes(),
            chunk.as_slice(),
            b"\r\n",
        ]
        .concat();
        if w.write_all(&framed).and_then(|()| w.flush()).is_err() {
            return;
        }
    }
    match reply.ending {
        Ending::Clean => {
            let _ = w.write_all(b"0\r\n\r\n");
            let _ = w.flush();
        }
        Ending::Cut => {
            let _ = w.shutdown(std::net::Shutdown::Both);
        }
        Ending::Hang => hang_until_client_leaves(w, shared),
    }
}

fn hang_until_client_leaves(w: &mut TcpStream, shared: &Shared) {
    let _ = w.set_read_timeout(Some(Duration::from_millis(20)));
    let deadline = Instant::now() + MAX_CONNECTION_LIFETIME;
    let mut buf = [0u8; 64];
    while Instant::now() < deadline && !shared.stop.load(Ordering::SeqCst) {
        match w.read(&mut buf) {
            // The client closed its end.
            Ok(0) => return,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return,
        }
    }
}
