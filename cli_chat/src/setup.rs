//! From flags and config file to a running engine: the same `[ai]` loader
//! and engine the overlay uses, with this run's overrides applied.

use std::path::PathBuf;
use std::sync::Arc;

use ai_chat_engine::{AiConfig, ConfigError, Engine, EngineOptions, ResolvedConfig};
use ai_tools::{Mode, Registry, RegistryConfig, Workspace};
use anyhow::{anyhow, bail, Context, Result};

use crate::args::Common;

/// The `[ai]` settings this run uses, and where they were read.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The config file consulted (None when no config dir exists).
    pub file: Option<PathBuf>,
    /// Whether that file exists.
    pub file_found: bool,
    /// `[ai]` with this run's flags applied.
    pub ai: AiConfig,
    /// The `[ai]` keys a flag replaced, with the flag's name.
    pub flags: Vec<(&'static str, &'static str)>,
}

impl Settings {
    /// Reads the config file (`--config` or the platform path) and applies
    /// `--model`, `--provider` and `--base-url`. A bad file is an error
    /// naming the file; a missing default file is an empty config.
    pub fn load(common: &Common) -> Result<Settings> {
        let file = common
            .config
            .clone()
            .or_else(ai_chat_engine::config::config_path);
        let file_found = file.as_ref().is_some_and(|f| f.is_file());
        if let Some(explicit) = &common.config {
            if !file_found {
                bail!("config file {} does not exist", explicit.display());
            }
        }
        let mut ai = match &file {
            Some(f) => AiConfig::load_from(f).map_err(|e| match e {
                // Range errors do not say which file they come from.
                ConfigError::Invalid(_) => anyhow!("{}: {e}", f.display()),
                other => anyhow::Error::new(other),
            })?,
            None => AiConfig::default(),
        };
        let mut flags = Vec::new();
        if let Some(m) = &common.model {
            ai.model = Some(m.clone());
            flags.push(("model", "--model"));
        }
        if let Some(p) = common.provider {
            ai.provider = Some(p);
            flags.push(("provider", "--provider"));
        }
        if let Some(u) = &common.base_url {
            if !(u.starts_with("http://") || u.starts_with("https://")) {
                bail!("--base-url {u:?} must start with http:// or https://");
            }
            ai.base_url = Some(u.clone());
            flags.push(("base_url", "--base-url"));
        }
        Ok(Settings {
            file,
            file_found,
            ai,
            flags,
        })
    }

    /// Effective values (probing local servers when nothing is configured).
    pub fn resolve(&self) -> ResolvedConfig {
        self.ai.resolve()
    }

    /// The flag that set `key`, if one did.
    pub fn flag_for(&self, key: &str) -> Option<&'static str> {
        self.flags.iter().find(|(k, _)| *k == key).map(|(_, f)| *f)
    }
}

/// The approval mode for this run: `--mode`, else `dont-ask` when nobody
/// can be asked, else the config's.
pub fn effective_mode(flag: Option<Mode>, tty: bool, configured: Mode) -> Mode {
    match flag {
        Some(m) => m,
        None if !tty => Mode::DontAsk,
        None => configured,
    }
}

/// What kind of front end the engine serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Front {
    /// One question, then exit: no title request keeps `k` waiting.
    OneShot,
    /// The interactive chat, which lives long enough to title sessions.
    Repl,
    /// `k --suggest`: the engine's suggest profile, nothing saved.
    Suggest,
}

/// Builds the tool registry for the current directory and the engine.
/// `config_file` (the file `--config` named) holds API keys: the policy
/// protects it like koi's own config directory.
pub fn build_engine(
    resolved: ResolvedConfig,
    mode: Mode,
    front: Front,
    config_file: Option<&std::path::Path>,
) -> Result<Engine> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let ws = Workspace::new(&cwd)
        .with_context(|| format!("cannot use {} as the workspace", cwd.display()))?
        .with_protected(config_file.map(std::path::Path::to_path_buf));
    let mut tools = RegistryConfig::new(ws);
    tools.secret_env_vars = resolved.key_env_vars.clone();
    tools.sandbox = resolved.sandbox.clone();
    tools.web_search = resolved.web_search.clone();
    tools.memory = ai_chat_engine::memory::tool_files(resolved.memory, true, None, &cwd);
    let file = config_file
        .map(std::path::Path::to_path_buf)
        .or_else(ai_chat_engine::config::config_path);
    // `k --suggest` keeps its no-MCP path: it answers in one short
    // request and never waits for a server.
    let hub = match front {
        Front::Suggest => None,
        _ => crate::mcp_cmd::hub_for(file.as_deref(), &cwd, resolved.key_env_vars.clone())?,
    };
    // Servers start now, while the registry, the prompt and the session
    // are read; the first request waits for them a bounded time.
    if let Some(hub) = &hub {
        hub.start_all();
    }
    let mut registry = Registry::standard(tools);
    if let Some(hub) = &hub {
        registry = registry.with_source(hub.clone());
    }
    let mut options = EngineOptions {
        mode: Some(mode),
        generate_titles: front == Front::Repl,
        mcp: hub,
        ..EngineOptions::default()
    };
    if front == Front::Suggest {
        options = ai_chat_engine::suggest::profile(options);
    }
    Engine::with_resolved(resolved, Arc::new(registry), options)
        .context("cannot start the chat engine")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_rules() {
        assert_eq!(effective_mode(None, false, Mode::Bypass), Mode::DontAsk);
        assert_eq!(effective_mode(None, true, Mode::Plan), Mode::Plan);
        assert_eq!(
            effective_mode(Some(Mode::AcceptEdits), false, Mode::Default),
            Mode::AcceptEdits
        );
    }
}
