//! The loopback HTTP server behind [`FakeProvider`].

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::checks::{Checker, Incoming, RequestKind, Violation, ViolationKind};
use crate::recorded::lock;
use crate::recorded::RecordedRequest;
use crate::reply::{Ending, Reply};
use crate::script::{Answers, Expect, Script};
use crate::wire::Dialect;

/// Longest a scripted reply may keep a connection open (hangs, delays): a
/// test that forgets to cancel must still finish, and the server must never
/// outlive the test process by much.
const MAX_CONNECTION_LIFETIME: Duration = Duration::from_secs(60);

/// Largest request head or body accepted; a test client never sends more,
/// and a runaway client must not exhaust memory.
const MAX_REQUEST_BYTES: usize = 64 * 1024 * 1024;

/// What the server has seen, behind one lock so checks run in arrival order.
struct State {
    requests: Vec<RecordedRequest>,
    checker: Checker,
    violations: Vec<Violation>,
}

struct Shared {
    script: Script,
    state: Mutex<State>,
    arrived: Condvar,
    stop: AtomicBool,
}

/// Settings of a strict fake provider; see [`FakeProvider::builder`].
#[derive(Debug, Default, Clone)]
pub struct Builder {
    dialect: Option<Dialect>,
    secrets: Vec<String>,
    standing: Vec<Reply>,
}

impl Builder {
    /// Every request must be of this dialect. Without it the dialect is the
    /// scripted streams' or, failing that, the first request's.
    pub fn dialect(mut self, dialect: Dialect) -> Builder {
        self.dialect = Some(dialect);
        self
    }

    /// A value that may appear only in the auth header. The key a request
    /// presents there is added by itself.
    pub fn secret(mut self, value: &str) -> Builder {
        self.secrets.push(value.to_string());
        self
    }

    /// Answers every request of `reply`'s kind ([`Reply::for_title`] …)
    /// that no single scripted reply is left for: for side requests a front
    /// end may make any number of times, at any point.
    pub fn always(mut self, reply: Reply) -> Builder {
        self.standing.push(reply);
        self
    }

    /// Serves `replies`, each once: a request gets the first unused reply
    /// scripted for its kind ([`Reply::for_title`] …; unmarked replies
    /// answer turns).
    pub fn start<I: IntoIterator<Item = Reply>>(self, replies: I) -> FakeProvider {
        let answers = Answers::Queue(Mutex::new(replies.into_iter().collect()));
        self.spawn(answers)
    }

    /// Computes each reply from the request and its 0-based index, for
    /// the number of requests `expected` says (`3`, `2..=3`): one more is
    /// refused, and fewer fail the test when the server stops. A reply to a
    /// side request must be marked for its kind.
    pub fn start_with<F>(self, expected: impl Into<Expect>, handler: F) -> FakeProvider
    where
        F: Fn(&RecordedRequest, usize) -> Reply + Send + Sync + 'static,
    {
        self.spawn(Answers::Handler {
            handler: Box::new(handler),
            expected: expected.into(),
            served: Mutex::new(0),
        })
    }

    fn spawn(self, answers: Answers) -> FakeProvider {
        let script = Script {
            answers,
            standing: self.standing,
        };
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let checker = Checker {
            dialect: self.dialect.or_else(|| script.dialect()),
            secrets: self.secrets,
            turns: Vec::new(),
        };
        let shared = Arc::new(Shared {
            script,
            state: Mutex::new(State {
                requests: Vec::new(),
                checker,
                violations: Vec::new(),
            }),
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
            armed: true,
        }
    }
}

/// A scripted fake model provider on `127.0.0.1` that checks every request
/// against its dialect's invariants. It stops when dropped, and then fails
/// the test if a request broke one, a scripted reply went unused, or a side
/// request arrived that the test did not script a reply for.
pub struct FakeProvider {
    addr: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
    /// Whether dropping it checks (off once the violations were taken).
    armed: bool,
}

impl FakeProvider {
    /// Default settings; see [`Builder`].
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// `builder().start(replies)`.
    pub fn start<I: IntoIterator<Item = Reply>>(replies: I) -> FakeProvider {
        Builder::default().start(replies)
    }

    /// `builder().start_with(expected, handler)`.
    pub fn start_with<F>(expected: impl Into<Expect>, handler: F) -> FakeProvider
    where
        F: Fn(&RecordedRequest, usize) -> Reply + Send + Sync + 'static,
    {
        Builder::default().start_with(expected, handler)
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
        self.shared.script.push(reply);
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.state).requests.clone()
    }

    /// How many requests have arrived.
    pub fn request_count(&self) -> usize {
        lock(&self.shared.state).requests.len()
    }

    /// Blocks until at least `n` requests arrived or `timeout` passed;
    /// returns whether they did.
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut guard = lock(&self.shared.state);
        while guard.requests.len() < n {
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

    /// The requests' violations so far (unused replies are judged at the end).
    pub fn violations(&self) -> Vec<Violation> {
        lock(&self.shared.state).violations.clone()
    }

    /// Every violation, unused replies included.
    fn all_violations(&self) -> Vec<Violation> {
        let mut all = self.violations();
        if let Some(detail) = self.shared.script.unused() {
            all.push(Violation {
                request: None,
                kind: ViolationKind::UnusedReplies,
                detail,
            });
        }
        all
    }

    /// Stops the server and returns its violations instead of failing the
    /// test (for tests of the checker itself).
    pub fn into_violations(mut self) -> Vec<Violation> {
        self.stop();
        self.armed = false;
        self.all_violations()
    }

    /// Stops the server and fails the test if anything was violated (what
    /// dropping it does, at a point the test chooses).
    pub fn finish(self) {
        drop(self);
    }

    fn stop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the blocking accept() so the thread sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
        if let Some(handle) = self.acceptor.take() {
            let _ = handle.join();
        }
    }
}

impl Drop for FakeProvider {
    fn drop(&mut self) {
        self.stop();
        // A test already failing keeps its own message (and a second panic
        // would abort the process).
        if !self.armed || std::thread::panicking() {
            return;
        }
        let violations = self.all_violations();
        if !violations.is_empty() {
            let list: Vec<String> = violations.iter().map(ToString::to_string).collect();
            panic!(
                "the fake provider saw {} violation(s):\n  {}",
                list.len(),
                list.join("\n  ")
            );
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
    let Some(mut request) = read_request(&mut reader) else {
        return;
    };
    let index = {
        let mut state = lock(&shared.state);
        let index = state.requests.len();
        let started = Instant::now();
        let (kind, found) = state.checker.check(&Incoming {
            index,
            method: &request.method,
            path: &request.path,
            headers: &request.headers,
            body: &request.body,
        });
        request.kind = kind;
        request.checked_in = started.elapsed();
        state.violations.extend(found);
        state.requests.push(request.clone());
        shared.arrived.notify_all();
        index
    };
    let (reply, violation) = shared.script.answer(&request, index);
    if let Some(v) = violation {
        lock(&shared.state).violations.push(v);
    }
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
        kind: RequestKind::Turn,
        checked_in: Duration::ZERO,
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
