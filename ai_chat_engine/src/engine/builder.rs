//! The one way a front end gets an engine: [`EngineBuilder`] reads the
//! config once (`[ai]` and `[mcp]`), finds a local server when nothing is
//! configured (a step of its own, never part of resolving the config),
//! and wires the workspace, the tool registry, the MCP hub, the memory
//! files and the front end's profile the same way for the koi panel,
//! `k` and command suggestions.
//!
//! ```no_run
//! use ai_chat_engine::{EngineBuilder, Front};
//!
//! let path = ai_chat_engine::config::config_path();
//! let mut builder = EngineBuilder::from_config(path.as_deref(), Front::K).unwrap();
//! let mode = builder.resolve().approval_mode;
//! let engine = builder.mode(mode).build().unwrap();
//! # let _ = engine;
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ai_mcp::{Hub, HubEnv, McpConfig, ServerConfig};
use ai_tools::{Mode, Registry, RegistryConfig, Workspace};

use crate::config::{AiConfig, ConfigError, ResolvedConfig};
use crate::engine::{Engine, EngineOptions, Waker};
use crate::stream::EngineError;

/// Which front end an engine serves: what it offers and what it keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Front {
    /// The koi panel: long-lived, titles its sessions, MCP servers.
    Koi,
    /// `k`'s chat: lives long enough to title its sessions.
    K,
    /// `k QUESTION`: one question, then exit; no title request keeps it
    /// waiting.
    KOneShot,
    /// A command suggestion (koi's `#` line, `k --suggest`): the suggest
    /// profile ([`crate::suggest::profile`]): nothing saved, no MCP, no
    /// memory.
    Suggest,
}

impl Front {
    /// Whether this front end lends out MCP servers' tools.
    fn uses_mcp(self) -> bool {
        self != Front::Suggest
    }
}

/// Why no engine was built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The config file, or its `[ai]` table.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The `[mcp]` table.
    #[error("{0}")]
    Mcp(String),
    /// The workspace directory is not usable.
    #[error("cannot use {path} as the workspace: {source}")]
    Workspace {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The engine itself (its runtime, its provider).
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// Builds the engine of one front end from one read of the config.
#[derive(Clone)]
pub struct EngineBuilder {
    front: Front,
    /// The config file: read for `[ai]` and `[mcp]`, and protected from
    /// every tool (it holds API keys).
    file: Option<PathBuf>,
    ai: AiConfig,
    /// `[mcp]`, or why it is bad: an error only for a front end that
    /// starts servers.
    mcp: Result<McpConfig, String>,
    workspace: Option<PathBuf>,
    mode: Option<Mode>,
    data_dir: Option<PathBuf>,
    waker: Option<Waker>,
    probe_local: bool,
    resolved: Option<ResolvedConfig>,
    /// The editor the file tools go through (`k acp`).
    editor: ai_tools::Editor,
}

impl std::fmt::Debug for EngineBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineBuilder")
            .field("front", &self.front)
            .field("file", &self.file)
            .field("ai", &self.ai)
            .field("workspace", &self.workspace)
            .field("mode", &self.mode)
            .field("data_dir", &self.data_dir)
            .finish_non_exhaustive()
    }
}

impl EngineBuilder {
    /// Reads `file` once for `[ai]` and `[mcp]` (a missing file, or
    /// `None`, is the empty config). A bad `[ai]` is an error now; a bad
    /// `[mcp]` when an engine that starts servers is built.
    pub fn from_config(file: Option<&Path>, front: Front) -> Result<EngineBuilder, ConfigError> {
        let text = match file.map(std::fs::read_to_string) {
            None => None,
            Some(Ok(text)) => Some(text),
            Some(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => None,
            Some(Err(source)) => {
                return Err(ConfigError::Read {
                    path: file.map(Path::to_path_buf).unwrap_or_default(),
                    source,
                })
            }
        };
        let path = file.map(Path::to_path_buf).unwrap_or_default();
        let table: Option<toml::Table> =
            text.map(|t| t.parse())
                .transpose()
                .map_err(|e: toml::de::Error| ConfigError::Parse {
                    path: path.clone(),
                    message: e.to_string(),
                })?;
        let table = table.unwrap_or_default();
        let (ai, mcp) = (table.get("ai").cloned(), table.get("mcp").cloned());
        Self::from_parsed(file.map(Path::to_path_buf), ai, mcp, front)
    }

    /// From a koi.toml already parsed (koi's own config loader hands its
    /// `[ai]` and `[mcp]` tables over); `file` is where they came from.
    pub fn from_parsed(
        file: Option<PathBuf>,
        ai: Option<toml::Value>,
        mcp: Option<toml::Value>,
        front: Front,
    ) -> Result<EngineBuilder, ConfigError> {
        let path = file.clone().unwrap_or_default();
        let ai = AiConfig::from_table(ai.as_ref(), &path)?;
        let mcp =
            McpConfig::from_table(mcp.as_ref()).map_err(|e| format!("{}: {e}", path.display()));
        Ok(EngineBuilder {
            front,
            file,
            ai,
            mcp,
            workspace: None,
            mode: None,
            data_dir: None,
            waker: None,
            probe_local: true,
            resolved: None,
            editor: None,
        })
    }

    /// The `[ai]` settings as read.
    pub fn ai(&self) -> &AiConfig {
        &self.ai
    }

    /// The `[ai]` settings, to apply a run's flags (`k --model`, …)
    /// before [`EngineBuilder::resolve`].
    pub fn ai_mut(&mut self) -> &mut AiConfig {
        self.resolved = None;
        &mut self.ai
    }

    /// Whether `[mcp]` enables a server (a bad table enables none).
    pub fn has_mcp_servers(&self) -> bool {
        self.mcp.as_ref().is_ok_and(McpConfig::any_enabled)
    }

    /// Adds an MCP server to `[mcp]`'s for the engines built from here on
    /// (one an editor passes to `k acp`). Refused when `[mcp]` itself is
    /// bad, the name is not a valid server name, or `[mcp]` has a server
    /// of that name already: the user's config wins.
    pub fn add_mcp_server(&mut self, name: &str, server: ServerConfig) -> Result<(), BuildError> {
        let mcp = self.mcp.as_mut().map_err(|e| BuildError::Mcp(e.clone()))?;
        if !ai_mcp::naming::valid_server_name(name) {
            return Err(BuildError::Mcp(format!(
                "{name:?} is not a valid MCP server name"
            )));
        }
        if mcp.servers.contains_key(name) {
            return Err(BuildError::Mcp(format!(
                "an MCP server named {name:?} is configured already"
            )));
        }
        mcp.servers.insert(name.to_string(), server);
        Ok(())
    }

    /// The directory tools work in (default: the current directory).
    pub fn workspace(mut self, dir: impl Into<PathBuf>) -> EngineBuilder {
        self.workspace = Some(dir.into());
        self
    }

    /// The editor whose buffers the file tools read and write (`k acp`
    /// with a client that offers file access); default: the disk.
    pub fn editor(mut self, editor: std::sync::Arc<dyn ai_tools::EditorFiles>) -> EngineBuilder {
        self.editor = Some(editor);
        self
    }

    /// The approval mode (default: `[ai] approval_mode`).
    pub fn mode(mut self, mode: Mode) -> EngineBuilder {
        self.mode = Some(mode);
        self
    }

    /// Where sessions and memory live (default: koi's data dir).
    pub fn data_dir(mut self, dir: Option<PathBuf>) -> EngineBuilder {
        self.data_dir = dir;
        self
    }

    /// Called after each message the engine sends.
    pub fn waker(mut self, waker: Waker) -> EngineBuilder {
        self.waker = Some(waker);
        self
    }

    /// Whether a local server is looked for when nothing is configured
    /// (default: yes).
    pub fn probe_local(mut self, probe: bool) -> EngineBuilder {
        self.probe_local = probe;
        self
    }

    /// The effective settings: the local-server probe first, when nothing
    /// that picks a model is configured, then the config with the
    /// environment. Done once; [`EngineBuilder::build`] uses the result.
    pub fn resolve(&mut self) -> &ResolvedConfig {
        let (ai, probe) = (&self.ai, self.probe_local);
        self.resolved.get_or_insert_with(|| {
            let local = (probe && ai.is_unconfigured())
                .then(crate::model::probe::find_local_server)
                .flatten();
            ai.resolve_with(&|k| std::env::var(k).ok(), local.as_ref())
        })
    }

    /// The registry `k policy check` judges with: the one an engine of
    /// this builder would get, without MCP servers, resolved without
    /// looking for a local server (judging sends nothing).
    pub fn policy_registry(&self) -> Result<Registry, BuildError> {
        let resolved = match &self.resolved {
            Some(r) => r.clone(),
            None => self.ai.resolve(),
        };
        let options = self.options();
        let ws = self.workspace_here()?;
        Ok(Registry::standard(
            self.registry_config(&resolved, ws, &options),
        ))
    }

    /// A hub for `[mcp]`'s servers, working in `workspace`, not started;
    /// `None` when no server is configured.
    pub fn mcp_hub(
        &self,
        workspace: &Path,
        secret_env_vars: Vec<String>,
    ) -> Result<Option<Arc<Hub>>, BuildError> {
        let mcp = self.mcp.as_ref().map_err(|e| BuildError::Mcp(e.clone()))?;
        Ok((!mcp.servers.is_empty()).then(|| {
            Hub::new(
                mcp,
                HubEnv {
                    workspace: workspace.to_path_buf(),
                    secret_env_vars,
                },
            )
        }))
    }

    /// The engine.
    pub fn build(mut self) -> Result<Engine, BuildError> {
        self.resolve();
        let resolved = self.resolved.take().unwrap_or_else(|| self.ai.resolve());
        let mut options = self.options();
        let ws = self.workspace_here()?;
        // The servers start as the engine is built; a conversation's
        // first request waits for them a bounded time (`[mcp]
        // startup_wait_s`).
        let hub = if self.front.uses_mcp() {
            self.mcp_hub(ws.root(), resolved.key_env_vars.clone())?
        } else {
            None
        };
        let mut registry = Registry::standard(self.registry_config(&resolved, ws, &options));
        if let Some(hub) = &hub {
            registry = registry.with_source(hub.clone());
        }
        options.mcp = hub;
        Ok(Engine::with_resolved(
            resolved,
            Arc::new(registry),
            options,
        )?)
    }

    /// The front end's engine options.
    fn options(&self) -> EngineOptions {
        let options = EngineOptions {
            mode: self.mode,
            data_dir: self.data_dir.clone(),
            waker: self.waker.clone(),
            probe_local: self.probe_local,
            generate_titles: matches!(self.front, Front::Koi | Front::K),
            ..EngineOptions::default()
        };
        match self.front {
            Front::Suggest => crate::suggest::profile(options),
            _ => options,
        }
    }

    /// The workspace, with the config file protected (it holds API keys).
    fn workspace_here(&self) -> Result<Workspace, BuildError> {
        let dir = match &self.workspace {
            Some(d) => d.clone(),
            None => std::env::current_dir().map_err(|source| BuildError::Workspace {
                path: PathBuf::from("."),
                source,
            })?,
        };
        Workspace::new(&dir)
            .map(|ws| ws.with_protected(self.file.clone()))
            .map_err(|source| BuildError::Workspace { path: dir, source })
    }

    /// The tools' settings: secrets to scrub, the sandbox, web search and
    /// the memory files, all from one resolved config.
    fn registry_config(
        &self,
        resolved: &ResolvedConfig,
        ws: Workspace,
        options: &EngineOptions,
    ) -> RegistryConfig {
        let memory = crate::memory::tool_files(
            resolved.memory,
            options.persist,
            options.data_dir.as_deref(),
            ws.root(),
        );
        let mut tools = RegistryConfig::new(ws);
        tools.secret_env_vars = resolved.key_env_vars.clone();
        tools.sandbox = resolved.sandbox.clone();
        tools.web_search = resolved.web_search.clone();
        tools.memory = memory;
        tools.editor = self.editor.clone();
        tools.code_runtimes = ai_tools::tools::run_code::runtime::Runtimes::detect();
        tools
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A config naming a server that is never called (building sends
    /// nothing), with memory on and `mcp`'s text as `[mcp]`.
    fn config_file(dir: &Path, mcp: &str) -> PathBuf {
        let path = dir.join("koi.toml");
        std::fs::write(
            &path,
            format!(
                "[ai]\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\n{mcp}"
            ),
        )
        .unwrap();
        path
    }

    fn memory_read(engine: &Engine) -> String {
        engine
            .registry()
            .run(
                "memory_read",
                &serde_json::json!({}),
                &ai_tools::CancelToken::new(),
            )
            .unwrap()
            .for_model
    }

    #[test]
    fn every_front_that_keeps_sessions_hands_memory_read_the_curated_files() {
        let dir = tempfile::tempdir().unwrap();
        let file = config_file(dir.path(), "");
        let data = dir.path().join("data");
        for front in [Front::Koi, Front::K, Front::KOneShot, Front::Suggest] {
            let engine = EngineBuilder::from_config(Some(&file), front)
                .unwrap()
                .workspace(dir.path())
                .data_dir(Some(data.clone()))
                .build()
                .unwrap();
            let paths = engine.memory_paths();
            let read = memory_read(&engine);
            if front == Front::Suggest {
                assert!(paths.is_none());
                assert_eq!(read, crate::memory::MEMORY_OFF);
            } else {
                let paths = paths.unwrap();
                assert!(paths.global.starts_with(&data), "{paths:?}");
                assert!(
                    read.contains(&paths.global.display().to_string())
                        && read.contains(&paths.project.display().to_string()),
                    "{front:?}: {read}"
                );
            }
        }
    }

    #[test]
    fn a_bad_mcp_table_fails_only_the_fronts_that_start_servers() {
        let dir = tempfile::tempdir().unwrap();
        let file = config_file(dir.path(), "[mcp]\nstartup_wait_s = -1\n");
        let builder = EngineBuilder::from_config(Some(&file), Front::K).unwrap();
        assert!(!builder.has_mcp_servers());
        let err = builder
            .workspace(dir.path())
            .probe_local(false)
            .build()
            .unwrap_err();
        assert!(matches!(err, BuildError::Mcp(_)), "{err}");
        assert!(err.to_string().contains("startup_wait_s"), "{err}");
        let suggest = EngineBuilder::from_config(Some(&file), Front::Suggest)
            .unwrap()
            .workspace(dir.path())
            .build();
        assert!(suggest.is_ok());
    }

    #[test]
    fn a_configured_model_is_resolved_without_a_probe_and_flags_apply() {
        let dir = tempfile::tempdir().unwrap();
        let file = config_file(dir.path(), "");
        let mut builder = EngineBuilder::from_config(Some(&file), Front::K).unwrap();
        assert_eq!(builder.resolve().model, "m");
        builder.ai_mut().model = Some("flag-model".into());
        assert_eq!(builder.resolve().model, "flag-model");
        let engine = builder.workspace(dir.path()).build().unwrap();
        assert_eq!(engine.model(), "flag-model");
        // The config file holds keys: no tool may read it.
        assert_eq!(engine.registry().workspace().protected(), [file]);
    }
}
