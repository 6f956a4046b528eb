//! One configured server's life: started in the background, restarted on
//! the next use after a crash or a hang, given up after a few failures in
//! a row so a broken server costs each call only an error line.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use ai_tools::{CancelToken, McpHints};
use parking_lot::{Condvar, Mutex};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::config::{ServerConfig, Transport};
use crate::error::McpError;
use crate::peer::{Peer, Progress};
use crate::HubEnv;

/// The revision koi asks for first.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// Revisions koi speaks (all with Streamable HTTP, tool annotations and
/// structured results or a subset it handles).
pub const SUPPORTED_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// Failed starts or crashes in a row after which a server is left alone
/// until koi restarts: enough to ride out a flaky start, few enough that a
/// broken server does not cost every call a full startup timeout.
pub const MAX_FAILURES: u32 = 3;

/// How much longer than the startup limit a caller waits for a start, so
/// it reads the start's own error rather than racing it.
const START_WAIT_GRACE: Duration = Duration::from_millis(500);

/// How long a start waits for an HTTP server to answer the GET for
/// unprompted messages before listing tools: one round trip on a working
/// server; one that never answers it only costs this once.
const LISTEN_WAIT: Duration = Duration::from_secs(2);

/// How long a call waits for a tool-list refresh it triggered: a list is
/// one quick request, and the answer is already in hand.
const REFRESH_WAIT: Duration = Duration::from_secs(5);

/// Pages of `tools/list` read at most: a server that keeps handing out
/// cursors cannot keep a start going forever.
const MAX_PAGES: usize = 100;

/// Tools kept per server at most.
const MAX_TOOLS: usize = 2000;

/// One tool as the server describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteTool {
    /// Its name on the server.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON schema of its arguments.
    pub input_schema: Value,
    /// The server's hints about its effects.
    pub hints: McpHints,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireTool {
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    input_schema: Option<Value>,
    #[serde(default)]
    annotations: Option<McpHints>,
}

impl WireTool {
    fn into_remote(self) -> RemoteTool {
        let description = self
            .description
            .or(self.title)
            .unwrap_or_else(|| format!("the {} tool", self.name));
        let input_schema = match self.input_schema {
            Some(Value::Object(o)) => Value::Object(o),
            _ => json!({"type": "object"}),
        };
        RemoteTool {
            name: self.name,
            description,
            input_schema,
            hints: self.annotations.unwrap_or_default(),
        }
    }
}

/// A live connection.
pub(crate) struct Session {
    peer: Arc<Peer>,
    /// The server's own name and version, from `initialize`.
    pub server_info: String,
    /// The protocol revision agreed on.
    pub protocol: String,
}

/// Where a server is.
#[derive(Debug, Clone, PartialEq)]
pub enum Health {
    /// `enabled = false`.
    Disabled,
    /// Not started yet.
    Idle,
    /// Starting in the background.
    Starting,
    /// Connected.
    Ready {
        /// The server's name and version.
        server_info: String,
        /// The protocol revision.
        protocol: String,
    },
    /// The last start failed or the server stopped; the next use retries.
    Failed {
        /// Why.
        error: String,
        /// Failures in a row.
        failures: u32,
    },
    /// Failed [`MAX_FAILURES`] times in a row: not retried until koi
    /// restarts.
    GaveUp {
        /// The last error.
        error: String,
    },
}

enum State {
    Idle,
    Starting,
    Ready(Arc<Session>),
    Failed(McpError),
}

/// One configured server.
pub struct Server {
    /// Its name in the config.
    pub name: String,
    /// Its config.
    pub config: ServerConfig,
    env: Arc<HubEnv>,
    state: Mutex<State>,
    changed_state: Condvar,
    failures: AtomicU32,
    /// Tool-list refreshes running (after `tools/list_changed`).
    refreshing: Mutex<u32>,
    refreshed: Condvar,
    /// The tools of the last successful list, kept across crashes so a
    /// call by name still reaches the restart.
    known: Mutex<Option<Arc<Vec<RemoteTool>>>>,
    /// How long the last start took, from spawn (or first POST) to the
    /// end of `tools/list` or its failure.
    start_time: Mutex<Option<Duration>>,
    on_change: Arc<dyn Fn() + Send + Sync>,
    me: Weak<Server>,
}

impl Server {
    pub(crate) fn new(
        name: String,
        config: ServerConfig,
        env: Arc<HubEnv>,
        on_change: Arc<dyn Fn() + Send + Sync>,
    ) -> Arc<Server> {
        Arc::new_cyclic(|me| Server {
            name,
            config,
            env,
            state: Mutex::new(State::Idle),
            changed_state: Condvar::new(),
            failures: AtomicU32::new(0),
            refreshing: Mutex::new(0),
            refreshed: Condvar::new(),
            known: Mutex::new(None),
            start_time: Mutex::new(None),
            on_change,
            me: me.clone(),
        })
    }

    /// Where the server is now.
    pub fn health(&self) -> Health {
        if !self.config.enabled {
            return Health::Disabled;
        }
        let failures = self.failures.load(Ordering::Relaxed);
        match &*self.state.lock() {
            State::Idle => Health::Idle,
            State::Starting => Health::Starting,
            State::Ready(s) => match s.peer.closed() {
                None => Health::Ready {
                    server_info: s.server_info.clone(),
                    protocol: s.protocol.clone(),
                },
                Some(why) => Health::Failed {
                    error: McpError::Gone(why).to_string(),
                    failures,
                },
            },
            State::Failed(e) if failures >= MAX_FAILURES => Health::GaveUp {
                error: e.to_string(),
            },
            State::Failed(e) => Health::Failed {
                error: e.to_string(),
                failures,
            },
        }
    }

    /// The tools of the live connection, if there is one.
    pub fn ready_tools(&self) -> Option<Arc<Vec<RemoteTool>>> {
        matches!(self.health(), Health::Ready { .. })
            .then(|| self.known.lock().clone())
            .flatten()
    }

    /// The tools last listed, live or not.
    pub fn known_tools(&self) -> Option<Arc<Vec<RemoteTool>>> {
        self.known.lock().clone()
    }

    /// Starts the server in the background if it is not running and may
    /// be (re)started. Never waits.
    pub fn start(&self) {
        if !self.config.enabled {
            return;
        }
        {
            let mut st = self.state.lock();
            let may = match &*st {
                State::Idle => true,
                State::Starting => false,
                State::Ready(s) => s.peer.closed().is_some(),
                State::Failed(_) => self.failures.load(Ordering::Relaxed) < MAX_FAILURES,
            };
            if !may {
                return;
            }
            *st = State::Starting;
        }
        let Some(me) = self.me.upgrade() else { return };
        let spawned = std::thread::Builder::new()
            .name(format!("koi-mcp-{}", self.name))
            .spawn(move || {
                let began = Instant::now();
                let outcome = me.connect();
                *me.start_time.lock() = Some(began.elapsed());
                {
                    let mut st = me.state.lock();
                    *st = match outcome {
                        Ok(s) => State::Ready(s),
                        Err(e) => {
                            me.failures.fetch_add(1, Ordering::Relaxed);
                            State::Failed(e)
                        }
                    };
                }
                me.changed_state.notify_all();
                (me.on_change)();
            });
        if let Err(e) = spawned {
            *self.state.lock() = State::Failed(McpError::Start(e.to_string()));
        }
    }

    /// How long the last finished start took (ready or failed).
    pub fn start_time(&self) -> Option<Duration> {
        *self.start_time.lock()
    }

    /// Whether a start is under way now.
    pub fn is_starting(&self) -> bool {
        matches!(*self.state.lock(), State::Starting)
    }

    /// Waits until the server is not starting, up to `limit`.
    pub fn wait_started(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        let mut st = self.state.lock();
        while matches!(*st, State::Starting) {
            if self.changed_state.wait_until(&mut st, deadline).timed_out() {
                return;
            }
        }
    }

    /// The live session: started (or restarted after a crash) if need be,
    /// waiting at most the startup timeout.
    fn session(&self) -> Result<Arc<Session>, McpError> {
        self.start();
        // The start enforces the startup limit itself; the grace lets its
        // own verdict (a timeout, a crash) be the answer.
        self.wait_started(self.config.startup_timeout + START_WAIT_GRACE);
        let failures = self.failures.load(Ordering::Relaxed);
        match &*self.state.lock() {
            State::Ready(s) if s.peer.closed().is_none() => Ok(Arc::clone(s)),
            State::Ready(s) => Err(McpError::Gone(s.peer.closed().unwrap_or_default())),
            State::Starting => Err(McpError::StartTimeout {
                secs: self.config.startup_timeout.as_secs(),
            }),
            State::Failed(e) if failures >= MAX_FAILURES => Err(McpError::Start(format!(
                "{e}; after {failures} failures in a row koi stopped trying until it restarts"
            ))),
            State::Failed(e) => Err(e.clone()),
            State::Idle => Err(McpError::Start("disabled in the config".into())),
        }
    }

    /// Calls `tool`. A crash or a hang ends the connection, so the next
    /// use restarts the server; the call itself is never repeated (its
    /// effect is unknown).
    pub fn call(
        &self,
        tool: &str,
        arguments: Value,
        cancel: &CancelToken,
        on_progress: Option<Box<dyn Fn(Progress) + Send + Sync>>,
    ) -> Result<Value, McpError> {
        let session = self.session()?;
        let outcome = session.peer.request(
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
            self.config.tool_timeout,
            cancel,
            on_progress,
        );
        match &outcome {
            Ok(_) | Err(McpError::Rpc { .. }) | Err(McpError::Cancelled) => {
                self.failures.store(0, Ordering::Relaxed);
            }
            Err(McpError::Timeout { .. } | McpError::Gone(_)) => {
                // A server that does not answer in time is taken as hung;
                // one that went away (an HTTP endpoint refusing, a dead
                // child) is left for good. Either way the next use starts
                // a new connection.
                session.peer.shutdown();
                self.failures.fetch_add(1, Ordering::Relaxed);
            }
            Err(_) => {
                self.failures.fetch_add(1, Ordering::Relaxed);
            }
        }
        if outcome.is_err() {
            (self.on_change)();
        }
        // A call that changed the tool list (the notice came before the
        // answer) returns once the new list is read, so the very next
        // request can announce it.
        self.wait_refreshed(REFRESH_WAIT);
        outcome
    }

    fn wait_refreshed(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        let mut n = self.refreshing.lock();
        while *n > 0 {
            if self.refreshed.wait_until(&mut n, deadline).timed_out() {
                return;
            }
        }
    }

    /// Ends the connection (koi is closing).
    pub fn shutdown(&self) {
        if let State::Ready(s) = &*self.state.lock() {
            s.peer.shutdown();
        }
    }

    fn connect(&self) -> Result<Arc<Session>, McpError> {
        let weak = self.me.clone();
        let peer = Peer::new(Box::new(move |method, _params| {
            if method == "notifications/tools/list_changed" {
                if let Some(me) = weak.upgrade() {
                    me.refresh_later();
                }
            }
        }));
        let limit = self.config.startup_timeout;
        let started = Instant::now();
        let aware = match &self.config.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let launch = crate::stdio::Launch {
                    command,
                    args,
                    env,
                    cwd: cwd.as_deref(),
                    workspace: &self.env.workspace,
                    secret_env_vars: &self.env.secret_env_vars,
                };
                crate::stdio::connect(&launch, &peer)?;
                None
            }
            Transport::Http {
                url,
                headers,
                bearer_token_env_var,
            } => Some(crate::http::connect(
                &crate::http::Endpoint {
                    url,
                    headers,
                    bearer_token_env_var: bearer_token_env_var.as_deref(),
                },
                &peer,
            )?),
        };
        let fail = |e: McpError| {
            peer.shutdown();
            match e {
                McpError::Timeout { .. } => McpError::StartTimeout {
                    secs: limit.as_secs(),
                },
                other => other,
            }
        };
        let never = CancelToken::new();
        let init = peer
            .request(
                "initialize",
                json!({
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "koi", "version": env!("CARGO_PKG_VERSION")},
                }),
                limit,
                &never,
                None,
            )
            .map_err(fail)?;
        let protocol = init
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if !SUPPORTED_VERSIONS.contains(&protocol.as_str()) {
            return Err(fail(McpError::Protocol(format!(
                "the server speaks MCP {protocol:?}; koi speaks {}",
                SUPPORTED_VERSIONS.join(", ")
            ))));
        }
        if let Some(aware) = &aware {
            aware.set_protocol(&protocol);
        }
        let info = init.get("serverInfo");
        let server_info = format!(
            "{} {}",
            info.and_then(|i| i.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("?"),
            info.and_then(|i| i.get("version"))
                .and_then(Value::as_str)
                .unwrap_or("")
        )
        .trim()
        .to_string();
        peer.notify("notifications/initialized", json!({}))
            .map_err(fail)?;
        if let Some(aware) = &aware {
            aware.wait_listening(LISTEN_WAIT.min(limit.saturating_sub(started.elapsed())));
        }
        let left = limit
            .saturating_sub(started.elapsed())
            .max(Duration::from_secs(1));
        let tools = list_tools(&peer, left).map_err(fail)?;
        *self.known.lock() = Some(Arc::new(tools));
        Ok(Arc::new(Session {
            peer,
            server_info,
            protocol,
        }))
    }

    /// Re-reads the tool list after `tools/list_changed`, off the reader
    /// thread (which must keep reading the answer).
    fn refresh_later(&self) {
        let Some(me) = self.me.upgrade() else { return };
        *self.refreshing.lock() += 1;
        let spawned = std::thread::Builder::new()
            .name("koi-mcp-list".into())
            .spawn(move || {
                me.refresh();
                *me.refreshing.lock() -= 1;
                me.refreshed.notify_all();
            });
        if spawned.is_err() {
            *self.refreshing.lock() -= 1;
        }
    }

    fn refresh(&self) {
        let session = match &*self.state.lock() {
            State::Ready(s) => Arc::clone(s),
            _ => return,
        };
        if let Ok(tools) = list_tools(&session.peer, self.config.startup_timeout) {
            *self.known.lock() = Some(Arc::new(tools));
            (self.on_change)();
        }
    }
}

/// Every page of `tools/list`.
fn list_tools(peer: &Peer, limit: Duration) -> Result<Vec<RemoteTool>, McpError> {
    let deadline = Instant::now() + limit;
    let never = CancelToken::new();
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let left = deadline.saturating_duration_since(Instant::now());
        let page = peer.request("tools/list", params, left, &never, None)?;
        let list = page
            .get("tools")
            .and_then(Value::as_array)
            .ok_or_else(|| McpError::Protocol("tools/list answered without tools".into()))?;
        for t in list {
            if tools.len() >= MAX_TOOLS {
                break;
            }
            if let Ok(w) = serde_json::from_value::<WireTool>(t.clone()) {
                tools.push(w.into_remote());
            }
        }
        cursor = page
            .get("nextCursor")
            .and_then(Value::as_str)
            .map(str::to_string);
        if cursor.is_none() {
            break;
        }
    }
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    tools.dedup_by(|a, b| a.name == b.name);
    Ok(tools)
}
