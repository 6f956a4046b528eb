//! From flags and config file to a running engine: the engine's own
//! builder (the one the overlay uses), with this run's overrides applied.

use std::path::PathBuf;

use ai_chat_engine::{AiConfig, ConfigError, Engine, EngineBuilder, Front, ResolvedConfig};
use ai_tools::Mode;
use anyhow::{anyhow, bail, Context, Result};

use crate::args::Common;

/// The settings this run uses, and where they were read.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The config file consulted (None when no config dir exists).
    pub file: Option<PathBuf>,
    /// Whether that file exists.
    pub file_found: bool,
    /// The file as read once (`[ai]` with this run's flags applied, and
    /// `[mcp]`): what the engine is built from.
    pub builder: EngineBuilder,
    /// The `[ai]` keys a flag replaced, with the flag's name.
    pub flags: Vec<(&'static str, &'static str)>,
}

impl Settings {
    /// Reads the config file (`--config` or the platform path) for
    /// `front` and applies `--model`, `--provider` and `--base-url`. A bad
    /// file is an error naming the file; a missing default file is an
    /// empty config.
    pub fn load(common: &Common, front: Front) -> Result<Settings> {
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
        let mut builder = EngineBuilder::from_config(file.as_deref(), front).map_err(|e| {
            match (e, &file) {
                // Range errors do not say which file they come from.
                (e @ ConfigError::Invalid(_), Some(f)) => anyhow!("{}: {e}", f.display()),
                (other, _) => anyhow::Error::new(other),
            }
        })?;
        let ai = builder.ai_mut();
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
            builder,
            flags,
        })
    }

    /// `[ai]` with this run's flags applied.
    pub fn ai(&self) -> &AiConfig {
        self.builder.ai()
    }

    /// Effective values (a local server is looked for when nothing is
    /// configured).
    pub fn resolve(&mut self) -> ResolvedConfig {
        self.builder.resolve().clone()
    }

    /// The engine, in the current directory, in `mode`.
    pub fn build_engine(self, mode: Mode) -> Result<Engine> {
        self.builder
            .mode(mode)
            .build()
            .context("cannot start the chat engine")
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
