//! JSON-RPC over any transport: requests matched to answers by id, the
//! server's notifications and requests dispatched, cancellation and
//! timeouts that tell the server to stop.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ai_tools::CancelToken;
use crossbeam_channel::{bounded, Sender};
use parking_lot::Mutex;
use serde_json::{json, Value};

use crate::error::McpError;

/// How often a waiting request looks at its cancel token: well inside the
/// engine's promise that cancel is prompt (~100 ms).
const CANCEL_POLL: Duration = Duration::from_millis(20);

/// JSON-RPC "method not found": the answer to server requests koi does not
/// serve (sampling, elicitation, roots).
const METHOD_NOT_FOUND: i64 = -32601;

/// How a transport hands messages to the server.
pub(crate) trait Outbound: Send + Sync {
    /// Sends one JSON-RPC message. A transport that answers a request
    /// out of band (HTTP) reports failures through [`Peer::fail`].
    fn send(&self, message: &Value) -> Result<(), McpError>;
    /// Ends the connection (kills a child, ends an HTTP session).
    fn close(&self);
}

/// One progress update for a running request.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// How far along.
    pub progress: f64,
    /// Of how much, when known.
    pub total: Option<f64>,
    /// The server's words, when it sent any.
    pub message: Option<String>,
}

impl std::fmt::Display for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.total {
            Some(t) => write!(f, "{}/{}", self.progress, t)?,
            None => write!(f, "{}", self.progress)?,
        }
        if let Some(m) = &self.message {
            write!(f, " {m}")?;
        }
        Ok(())
    }
}

type ProgressFn = Box<dyn Fn(Progress) + Send + Sync>;
type NotifyFn = Box<dyn Fn(&str, &Value) + Send + Sync>;

/// One connection's request table.
pub(crate) struct Peer {
    next_id: AtomicU64,
    pending: Mutex<HashMap<u64, Sender<Result<Value, McpError>>>>,
    progress: Mutex<HashMap<String, ProgressFn>>,
    on_notification: NotifyFn,
    outbound: Mutex<Option<Arc<dyn Outbound>>>,
    closed: Mutex<Option<String>>,
}

impl Peer {
    /// A peer whose server notifications go to `on_notification`; the
    /// transport is attached once it exists.
    pub fn new(on_notification: NotifyFn) -> Arc<Peer> {
        Arc::new(Peer {
            next_id: AtomicU64::new(1),
            pending: Mutex::new(HashMap::new()),
            progress: Mutex::new(HashMap::new()),
            on_notification,
            outbound: Mutex::new(None),
            closed: Mutex::new(None),
        })
    }

    /// Attaches the transport that sends.
    pub fn attach(&self, outbound: Arc<dyn Outbound>) {
        *self.outbound.lock() = Some(outbound);
    }

    fn send(&self, message: &Value) -> Result<(), McpError> {
        let out = self.outbound.lock().clone();
        match out {
            Some(o) => o.send(message),
            None => Err(McpError::Gone("not connected".into())),
        }
    }

    /// Why the connection ended, once it has.
    pub fn closed(&self) -> Option<String> {
        self.closed.lock().clone()
    }

    /// The connection ended: every waiting request fails with `why`.
    pub fn close(&self, why: String) {
        {
            let mut closed = self.closed.lock();
            if closed.is_none() {
                *closed = Some(why.clone());
            }
        }
        let waiting: Vec<_> = self.pending.lock().drain().collect();
        for (_, tx) in waiting {
            let _ = tx.send(Err(McpError::Gone(why.clone())));
        }
    }

    /// Ends the connection from koi's side.
    pub fn shutdown(&self) {
        let out = self.outbound.lock().take();
        if let Some(o) = out {
            o.close();
        }
        self.close("koi closed the connection".into());
    }

    /// Whether request `id` still waits for its answer.
    pub fn is_pending(&self, id: u64) -> bool {
        self.pending.lock().contains_key(&id)
    }

    /// A request the transport could not deliver or get answered.
    pub fn fail(&self, id: u64, error: McpError) {
        if let Some(tx) = self.pending.lock().remove(&id) {
            let _ = tx.send(Err(error));
        }
    }

    /// One message (or batch) from the server.
    pub fn receive(&self, message: Value) {
        match message {
            Value::Array(batch) => batch.into_iter().for_each(|m| self.receive(m)),
            Value::Object(mut obj) => {
                let method = obj
                    .get("method")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let id = obj.remove("id");
                let params = obj.remove("params").unwrap_or(Value::Null);
                match (method, id) {
                    (Some(method), Some(id)) => self.serve(&method, id),
                    (Some(method), None) => self.notified(&method, &params),
                    (None, Some(id)) => self.answered(id, obj),
                    (None, None) => {}
                }
            }
            _ => {}
        }
    }

    fn answered(&self, id: Value, mut obj: serde_json::Map<String, Value>) {
        let Some(id) = id.as_u64() else { return };
        let Some(tx) = self.pending.lock().remove(&id) else {
            return;
        };
        let outcome = match (obj.remove("result"), obj.remove("error")) {
            (Some(result), None) => Ok(result),
            (_, Some(err)) => Err(McpError::Rpc {
                code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: err
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("no message")
                    .to_string(),
            }),
            (None, None) => Err(McpError::Protocol(
                "an answer with neither result nor error".into(),
            )),
        };
        let _ = tx.send(outcome);
    }

    /// A request from the server: `ping` is answered, the rest refused
    /// (koi declares no client capabilities).
    fn serve(&self, method: &str, id: Value) {
        let reply = if method == "ping" {
            json!({"jsonrpc": "2.0", "id": id, "result": {}})
        } else {
            json!({"jsonrpc": "2.0", "id": id, "error": {
                "code": METHOD_NOT_FOUND,
                "message": format!("koi does not offer {method}"),
            }})
        };
        let _ = self.send(&reply);
    }

    fn notified(&self, method: &str, params: &Value) {
        if method == "notifications/progress" {
            let token = match params.get("progressToken") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => return,
            };
            let update = Progress {
                progress: params
                    .get("progress")
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0),
                total: params.get("total").and_then(Value::as_f64),
                message: params
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            };
            if let Some(f) = self.progress.lock().get(&token) {
                f(update);
            }
            return;
        }
        (self.on_notification)(method, params);
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Value) -> Result<(), McpError> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// Sends a request and waits for its answer. On cancel or timeout the
    /// server is told (`notifications/cancelled`) and the answer, if it
    /// still comes, is dropped.
    pub fn request(
        &self,
        method: &str,
        params: Value,
        limit: Duration,
        cancel: &CancelToken,
        on_progress: Option<ProgressFn>,
    ) -> Result<Value, McpError> {
        if let Some(why) = self.closed() {
            return Err(McpError::Gone(why));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut params = params;
        let token = on_progress.map(|f| {
            let token = format!("koi-{id}");
            self.progress.lock().insert(token.clone(), f);
            if let Value::Object(map) = &mut params {
                map.insert("_meta".into(), json!({"progressToken": token}));
            }
            token
        });
        let (tx, rx) = bounded(1);
        self.pending.lock().insert(id, tx);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let outcome = match self.send(&message) {
            Err(e) => {
                self.pending.lock().remove(&id);
                Err(e)
            }
            Ok(()) => self.wait(id, &rx, limit, cancel),
        };
        if let Some(token) = token {
            self.progress.lock().remove(&token);
        }
        outcome
    }

    fn wait(
        &self,
        id: u64,
        rx: &crossbeam_channel::Receiver<Result<Value, McpError>>,
        limit: Duration,
        cancel: &CancelToken,
    ) -> Result<Value, McpError> {
        let deadline = Instant::now() + limit;
        loop {
            match rx.recv_timeout(CANCEL_POLL) {
                Ok(outcome) => return outcome,
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                    return Err(McpError::Gone(
                        self.closed()
                            .unwrap_or_else(|| "the connection ended".into()),
                    ))
                }
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
            }
            let why = if cancel.is_cancelled() {
                Some(("cancelled by the user", McpError::Cancelled))
            } else if Instant::now() >= deadline {
                Some((
                    "timed out",
                    McpError::Timeout {
                        secs: limit.as_secs(),
                    },
                ))
            } else {
                None
            };
            if let Some((reason, error)) = why {
                self.pending.lock().remove(&id);
                let _ = self.notify(
                    "notifications/cancelled",
                    json!({"requestId": id, "reason": reason}),
                );
                return Err(error);
            }
        }
    }
}
