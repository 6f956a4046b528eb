//! Every configured server of one koi process, as one [`ToolSource`]: the
//! registry finds `mcp__SERVER__TOOL` and `mcp_call` here, and the engine
//! reads which tools are ready to declare or announce.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use ai_tools::{McpTrust, ToolSpec};

use crate::config::McpConfig;
use crate::naming::exposed_name;
use crate::server::{Health, RemoteTool, Server};
use crate::HubEnv;

/// How often [`Hub::wait_ready`] asks whether to stop waiting: a cancel
/// is seen within this.
const WAIT_SLICE: Duration = Duration::from_millis(25);

/// One tool of one server, under the name the model calls it by.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// `mcp__SERVER__TOOL`.
    pub exposed: String,
    /// The server's name in the config.
    pub server: String,
    /// What the user trusts of it.
    pub trust: McpTrust,
    /// The tool as the server lists it.
    pub tool: RemoteTool,
}

impl Entry {
    /// The spec the model sees.
    pub fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.exposed.clone(),
            description: format!("[MCP server {}] {}", self.server, self.tool.description),
            input_schema: self.tool.input_schema.clone(),
        }
    }
}

/// One line of `k mcp list`.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerStatus {
    /// The server's name.
    pub name: String,
    /// The command line or URL.
    pub target: String,
    /// Where it is.
    pub health: Health,
    /// What the user trusts of it.
    pub trust: McpTrust,
    /// Its tools' names on the server, when known.
    pub tools: Vec<String>,
    /// How long its last start took (ready or failed), when one finished.
    pub start_time: Option<Duration>,
}

/// The MCP servers of one process.
pub struct Hub {
    servers: BTreeMap<String, Arc<Server>>,
    startup_wait: Duration,
    generation: Arc<AtomicU64>,
    me: Weak<Hub>,
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub")
            .field("servers", &self.servers.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Hub {
    /// A hub for these servers. Nothing starts until [`Hub::start_all`]
    /// or a first call.
    pub fn new(config: &McpConfig, env: HubEnv) -> Arc<Hub> {
        let env = Arc::new(env);
        let generation = Arc::new(AtomicU64::new(0));
        let servers = config
            .servers
            .iter()
            .map(|(name, cfg)| {
                let g = Arc::clone(&generation);
                let bump: Arc<dyn Fn() + Send + Sync> = Arc::new(move || {
                    g.fetch_add(1, Ordering::Relaxed);
                });
                (
                    name.clone(),
                    Server::new(name.clone(), cfg.clone(), Arc::clone(&env), bump),
                )
            })
            .collect();
        Arc::new_cyclic(|me| Hub {
            servers,
            startup_wait: config.startup_wait,
            generation,
            me: me.clone(),
        })
    }

    /// Starts every enabled server in the background, in parallel. Never
    /// waits (see [`Hub::wait_ready`]). Idempotent: a server starting or
    /// ready is left alone.
    pub fn start_all(&self) {
        self.servers.values().for_each(|s| s.start());
    }

    /// `[mcp] startup_wait_s`: how long a conversation's first request
    /// waits for servers still starting.
    pub fn startup_wait(&self) -> Duration {
        self.startup_wait
    }

    /// The enabled servers whose start is under way, by name.
    pub fn starting(&self) -> Vec<String> {
        self.servers
            .iter()
            .filter(|(_, s)| s.config.enabled && s.is_starting())
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// Waits until no server is starting, up to `limit`, or until
    /// `stop()` says so (it is asked every [`WAIT_SLICE`]). Returns the
    /// servers still starting. Servers not started yet are started first.
    pub fn wait_ready(&self, limit: Duration, stop: &dyn Fn() -> bool) -> Vec<String> {
        self.start_all();
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some(slow) = self
                .servers
                .values()
                .find(|s| s.config.enabled && s.is_starting())
            else {
                return Vec::new();
            };
            if left.is_zero() || stop() {
                return self.starting();
            }
            slow.wait_started(left.min(WAIT_SLICE));
        }
    }

    /// Waits until no server is starting, up to `limit` (for `k mcp list`
    /// and tests; the engine never waits).
    pub fn wait_started(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        for s in self.servers.values() {
            s.wait_started(deadline.saturating_duration_since(Instant::now()));
        }
    }

    /// Whether any server is enabled (then `mcp_call` is declared).
    pub fn is_configured(&self) -> bool {
        self.servers.values().any(|s| s.config.enabled)
    }

    /// Grows whenever a server starts, fails or changes its tools.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Relaxed)
    }

    /// A server by name.
    pub fn server(&self, name: &str) -> Option<&Arc<Server>> {
        self.servers.get(name)
    }

    fn entries(&self, tools: impl Fn(&Server) -> Option<Arc<Vec<RemoteTool>>>) -> Vec<Entry> {
        let mut out: Vec<Entry> = Vec::new();
        for (name, server) in &self.servers {
            if !server.config.enabled {
                continue;
            }
            for tool in tools(server).iter().flat_map(|t| t.iter()) {
                out.push(Entry {
                    exposed: exposed_name(name, &tool.name),
                    server: name.clone(),
                    trust: server.config.trust,
                    tool: tool.clone(),
                });
            }
        }
        // Sorted by name; of two tools that got the same name (a hash
        // collision), the first in (server, tool) order keeps it.
        out.sort_by(|a, b| {
            (&a.exposed, &a.server, &a.tool.name).cmp(&(&b.exposed, &b.server, &b.tool.name))
        });
        out.dedup_by(|a, b| a.exposed == b.exposed);
        out
    }

    /// The tools of servers connected now, sorted by exposed name.
    pub fn ready(&self) -> Vec<Entry> {
        self.entries(Server::ready_tools)
    }

    /// The tools last listed by each server, connected or not: a call by
    /// name still reaches a server that crashed (and restarts it).
    pub fn known(&self) -> Vec<Entry> {
        self.entries(Server::known_tools)
    }

    /// One line per configured server.
    pub fn status(&self) -> Vec<ServerStatus> {
        self.servers
            .iter()
            .map(|(name, s)| ServerStatus {
                name: name.clone(),
                target: s.config.target(),
                health: s.health(),
                trust: s.config.trust,
                tools: s
                    .known_tools()
                    .map(|t| t.iter().map(|t| t.name.clone()).collect())
                    .unwrap_or_default(),
                start_time: s.start_time(),
            })
            .collect()
    }

    /// Ends every connection.
    pub fn shutdown(&self) {
        self.servers.values().for_each(|s| s.shutdown());
    }

    /// The hub itself, while anyone holds it (for the tools it lends).
    pub(crate) fn strong(&self) -> Option<Arc<Hub>> {
        self.me.upgrade()
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.shutdown();
    }
}
