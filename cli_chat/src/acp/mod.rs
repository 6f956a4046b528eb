//! `k acp`: koi's assistant for editors, over the Agent Client Protocol
//! (JSON-RPC 2.0, one message per line on stdin and stdout).
//!
//! Each ACP session is one koi conversation with its own engine working in
//! the session's directory: its log is written by this process alone and
//! `k --resume ID` continues it. Turns run through the same engine, policy,
//! sandbox and log as `k`'s; an approval the engine asks for goes to the
//! client as `session/request_permission`, and its answer is the approval.
//! stdout carries protocol messages only; notes go to stderr.

mod files;
mod mcp;
pub mod rpc;
mod session;
mod tools;
mod turn;
mod updates;
pub mod wire;

use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::Arc;

use ai_chat_engine::{Engine, EngineBuilder, EngineError, Front};
use ai_tools::Mode;
use anyhow::Result;
use serde_json::{json, Value};

use crate::args::Cli;
use crate::exit::Exit;
use crate::setup::{self, Settings};
use ai_tools::EditorFiles;
use files::ClientFiles;
use rpc::{Incoming, Line, Peer, RpcError, INTERNAL_ERROR, METHOD_NOT_FOUND, PARSE_ERROR};
use session::{Session, SessionFiles};
use wire::{
    AgentCapabilities, AgentInfo, FsCapabilities, InitializeParams, InitializeResult,
    LoadSessionParams, LoadSessionResult, McpCapabilities, McpServer, NewSessionParams,
    NewSessionResult, PromptCapabilities, PromptParams, SessionParams, SetModeParams,
    PROTOCOL_VERSION,
};

/// Runs `k acp` until the client closes stdin.
pub fn run(cli: &Cli) -> Result<Exit> {
    let settings = Settings::load(&cli.common, Front::K)?;
    let mut builder = settings.builder;
    let configured = builder.resolve().approval_mode;
    // The client can always be asked, so the configured mode holds.
    let mode = setup::effective_mode(cli.common.mode, true, configured);
    let mut server = Server {
        builder,
        mode,
        peer: Arc::new(Peer::new(Box::new(io::stdout()))),
        sessions: HashMap::new(),
        fs: FsCapabilities::default(),
    };
    let stdin = io::stdin();
    let mut input = stdin.lock();
    loop {
        match rpc::read_line(&mut input) {
            Ok(Line::Text(line)) => server.handle(&line),
            Ok(Line::TooLong) => server.reply(
                &Value::Null,
                Err(RpcError::new(
                    PARSE_ERROR,
                    format!(
                        "a message longer than {} bytes was skipped",
                        rpc::MAX_LINE_BYTES
                    ),
                )),
            ),
            Ok(Line::End) => break,
            Err(e) => {
                say!("k acp: cannot read stdin: {e}");
                break;
            }
        }
    }
    server.close();
    Ok(Exit::Done)
}

/// The agent side of one connection.
struct Server {
    /// The config as read, resolved once: each session's engine is built
    /// from a copy.
    builder: EngineBuilder,
    /// The mode new sessions start in.
    mode: Mode,
    peer: Arc<Peer>,
    sessions: HashMap<String, Session>,
    /// The file methods the client offered in `initialize`.
    fs: FsCapabilities,
}

impl Server {
    fn reply(&self, id: &Value, answer: Result<Value, RpcError>) {
        if self.peer.respond(id, answer).is_err() {
            say!("k acp: stdout is closed");
        }
    }

    /// Handles one line from the client.
    fn handle(&mut self, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        match rpc::parse(line) {
            Err(rejected) => self.reply(&rejected.id, Err(rejected.error)),
            Ok(Incoming::Response { id, outcome }) => {
                if !self.peer.resolve(&id, outcome) {
                    say!("k acp: a response to no request of ours (id {id})");
                }
            }
            Ok(Incoming::Notification { method, params }) => self.notification(&method, params),
            Ok(Incoming::Request { id, method, params }) => {
                match self.request(&id, &method, params) {
                    Ok(Some(result)) => self.reply(&id, Ok(result)),
                    // Answered when the turn ends.
                    Ok(None) => {}
                    Err(e) => self.reply(&id, Err(e)),
                }
            }
        }
    }

    /// Notifications get no answer; an unknown one is ignored, as JSON-RPC
    /// asks.
    fn notification(&mut self, method: &str, params: Value) {
        if method == "session/cancel" {
            match rpc::params::<SessionParams>(params) {
                Ok(p) => match self.sessions.get(&p.session_id) {
                    Some(s) => s.cancel(),
                    None => say!("k acp: cancel for unknown session {:?}", p.session_id),
                },
                Err(e) => say!("k acp: session/cancel: {}", e.message),
            }
        }
    }

    /// Answers a request now (`Some`), later (`None`: a prompt), or with an
    /// error.
    fn request(
        &mut self,
        id: &Value,
        method: &str,
        params: Value,
    ) -> Result<Option<Value>, RpcError> {
        let done = |v: Result<Value, serde_json::Error>| {
            v.map(Some)
                .map_err(|e| RpcError::new(INTERNAL_ERROR, e.to_string()))
        };
        match method {
            "initialize" => {
                let p: InitializeParams = rpc::params(params)?;
                self.fs = p.client_capabilities.fs;
                done(serde_json::to_value(initialize()))
            }
            // koi reads its key from its own config: nothing to do here.
            "authenticate" => Ok(Some(json!({}))),
            "session/new" => {
                let p: NewSessionParams = rpc::params(params)?;
                let (engine, files) = self.engine_for(&p.cwd, &p.mcp_servers)?;
                let conv = engine.new_conversation();
                let session = Session::new(engine, conv, files);
                let result = NewSessionResult {
                    session_id: session.id().to_string(),
                    modes: session.modes(),
                };
                self.sessions.insert(session.id().to_string(), session);
                done(serde_json::to_value(result))
            }
            "session/load" => {
                let p: LoadSessionParams = rpc::params(params)?;
                if self.sessions.contains_key(&p.session_id) {
                    return Err(RpcError::new(
                        rpc::SERVER_BUSY,
                        format!("session {} is open in this connection", p.session_id),
                    ));
                }
                let (engine, files) = self.engine_for(&p.cwd, &p.mcp_servers)?;
                if !engine.sessions().iter().any(|s| s.id == p.session_id) {
                    return Err(unknown_session(&p.session_id));
                }
                let conv = engine
                    .load_conversation(&p.session_id)
                    .map_err(|e| engine_error(&e))?;
                let session = Session::new(engine, conv, files);
                session.replay(&self.peer);
                let result = LoadSessionResult {
                    modes: session.modes(),
                };
                self.sessions.insert(p.session_id, session);
                done(serde_json::to_value(result))
            }
            "session/prompt" => {
                let p: PromptParams = rpc::params(params)?;
                let peer = self.peer.clone();
                self.session_mut(&p.session_id)?
                    .prompt(&peer, id.clone(), p.prompt)?;
                Ok(None)
            }
            "session/set_mode" => {
                let p: SetModeParams = rpc::params(params)?;
                self.session_mut(&p.session_id)?.set_mode(&p.mode_id)?;
                Ok(Some(json!({})))
            }
            _ => Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!("method {method:?} is not one k acp answers"),
            )),
        }
    }

    fn session_mut(&mut self, id: &str) -> Result<&mut Session, RpcError> {
        self.sessions.get_mut(id).ok_or_else(|| unknown_session(id))
    }

    /// An engine working in `cwd` with the client's MCP servers, and its
    /// file tools going through the client where it offers that.
    fn engine_for(
        &self,
        cwd: &Path,
        servers: &[McpServer],
    ) -> Result<(Engine, SessionFiles), RpcError> {
        if !cwd.is_absolute() {
            return Err(RpcError::invalid_params(format!(
                "cwd {} is not an absolute path",
                cwd.display()
            )));
        }
        if !cwd.is_dir() {
            return Err(RpcError::invalid_params(format!(
                "cwd {} is not a directory",
                cwd.display()
            )));
        }
        let mut builder = self.builder.clone().workspace(cwd).mode(self.mode);
        for server in servers {
            let (name, config) = mcp::server_config(server)?;
            builder
                .add_mcp_server(&name, config)
                .map_err(|e| RpcError::invalid_params(e.to_string()))?;
        }
        let files = SessionFiles::default();
        let editor: Option<Arc<dyn EditorFiles>> =
            (self.fs.read_text_file || self.fs.write_text_file).then(|| {
                Arc::new(ClientFiles::new(
                    self.peer.clone(),
                    files.id.clone(),
                    self.fs,
                )) as Arc<dyn EditorFiles>
            });
        if let Some(editor) = &editor {
            builder = builder.editor(editor.clone());
        }
        let engine = builder.build().map_err(|e| {
            RpcError::new(INTERNAL_ERROR, format!("cannot start the chat engine: {e}"))
        })?;
        Ok((engine, SessionFiles { editor, ..files }))
    }

    /// The client is gone: every running turn is cancelled and waited for,
    /// so each log ends with its turn's last record.
    fn close(&mut self) {
        self.peer.drop_pending();
        for (_, session) in self.sessions.drain() {
            session.close();
        }
    }
}

fn initialize() -> InitializeResult {
    InitializeResult {
        // The only version koi speaks; a client that cannot speak it
        // disconnects, as the protocol says.
        protocol_version: PROTOCOL_VERSION,
        agent_capabilities: AgentCapabilities {
            load_session: true,
            prompt_capabilities: PromptCapabilities {
                image: false,
                audio: false,
                embedded_context: true,
            },
            mcp_capabilities: McpCapabilities {
                http: true,
                sse: false,
            },
        },
        auth_methods: Vec::new(),
        agent_info: AgentInfo {
            name: "koi",
            title: "koi",
            version: env!("CARGO_PKG_VERSION"),
        },
    }
}

fn unknown_session(id: &str) -> RpcError {
    RpcError::new(rpc::RESOURCE_NOT_FOUND, format!("no session {id:?}"))
}

fn engine_error(e: &EngineError) -> RpcError {
    let code = match e {
        EngineError::Locked { .. } | EngineError::Busy => rpc::SERVER_BUSY,
        _ => INTERNAL_ERROR,
    };
    RpcError::new(code, e.to_string())
}
