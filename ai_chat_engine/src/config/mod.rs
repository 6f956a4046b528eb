//! The `[ai]` section of koi's config, how each effective value is found
//! (file, environment, detection, default) and where it came from.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ai_tools::sandbox::{expand_tilde, SandboxConfig, SandboxMode};
pub use ai_tools::tools::web_search::{SearchProvider, WebSearchConfig};
use ai_tools::Mode;
use serde::{Deserialize, Serialize};

use crate::compaction::window::{CompactionSettings, CompactionToml};
use crate::cost::Prices;
use crate::model::probe::LocalServer;
mod provider_kind;
use crate::model::thinking::ThinkingLevel;
pub use provider_kind::ProviderKind;

/// The env var consulted for the API key when the config names none.
pub const DEFAULT_API_KEY_ENV: &str = "KOI_API_KEY";

/// How long a tool call waits for the user's approval before it is denied.
/// Ten minutes: long enough to step away briefly, short enough that an
/// unattended turn does not hang for good.
pub const DEFAULT_APPROVAL_TIMEOUT: Duration = Duration::from_secs(600);

pub use crate::model::probe::LOCAL_SERVER_PORTS;

/// An API key. Never printed: `Debug` and `Display` show `***`.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    /// The key itself, for the one place that sends it (an HTTP header).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// The `[ai]` table as written. Every field is optional so that "where did
/// this value come from" can be answered.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AiConfig {
    /// `openai` | `openai-responses` | `anthropic` | `demo`.
    pub provider: Option<ProviderKind>,
    /// API base, e.g. `http://127.0.0.1:11434/v1`.
    pub base_url: Option<String>,
    /// The main model.
    pub model: Option<String>,
    /// A cheaper model for titles and summaries (defaults to `model`).
    pub fast_model: Option<String>,
    /// Env var holding the key (default `KOI_API_KEY`, then the provider's
    /// usual variable).
    pub api_key_env: Option<String>,
    /// A key written in the file. Allowed, never logged.
    pub api_key: Option<String>,
    /// Default approval mode (`default`, `accept-edits`, `plan`,
    /// `dont-ask`, `bypass`).
    pub approval_mode: Option<String>,
    /// Seconds to wait for an approval before denying.
    pub approval_timeout_secs: Option<u64>,
    /// The OS sandbox under shell commands: `auto`, `off` or `require`.
    pub sandbox: Option<String>,
    /// Paths an approved command may write besides the workspace (`~`
    /// expanded); replaces the default build caches.
    pub sandbox_writable: Option<Vec<String>>,
    /// Paths hidden from every command besides the built-in credentials
    /// (`~` expanded): they read as empty inside the sandbox.
    pub sandbox_hidden: Option<Vec<String>>,
    /// How much the model thinks: `off`, `low`, `medium` or `high`.
    pub thinking: Option<ThinkingLevel>,
    /// Prices per million tokens, by model (or model-name prefix).
    pub prices: Option<Prices>,
    /// `[ai.compaction]`: context windows and thresholds.
    pub compaction: Option<CompactionToml>,
    /// The memory curator (on by default with a model; never in the demo).
    pub memory: Option<bool>,
    /// `[ai.web_search]`: the search service behind the `web_search` tool.
    pub web_search: Option<WebSearchConfig>,
    /// Declare the provider's own web search (Anthropic's `web_search`
    /// server tool, the Responses API's `web_search` tool) instead of
    /// koi's `web_search` tool. Chat Completions has none; it is ignored
    /// there.
    pub native_web_search: Option<bool>,
}

impl fmt::Debug for AiConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AiConfig")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("fast_model", &self.fast_model)
            .field("api_key_env", &self.api_key_env)
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("approval_mode", &self.approval_mode)
            .field("approval_timeout_secs", &self.approval_timeout_secs)
            .field("sandbox", &self.sandbox)
            .field("sandbox_writable", &self.sandbox_writable)
            .field("sandbox_hidden", &self.sandbox_hidden)
            .field("thinking", &self.thinking)
            .field("prices", &self.prices)
            .field("compaction", &self.compaction)
            .field("memory", &self.memory)
            .field("web_search", &self.web_search)
            .field("native_web_search", &self.native_web_search)
            .finish()
    }
}

/// Why a config could not be used; the caller keeps its last good one.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid TOML, or `[ai]` has a bad value.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong, with position where TOML gives one.
        message: String,
    },
    /// A value is out of range (e.g. an unknown approval mode).
    #[error("[ai] {0}")]
    Invalid(String),
}

pub use crate::paths::{config_dir, config_path, data_dir};

impl AiConfig {
    /// Parses the `[ai]` table of a whole koi.toml, ignoring every other
    /// table. A file without `[ai]` gives the empty config.
    pub fn from_toml_str(text: &str, path: &Path) -> Result<AiConfig, ConfigError> {
        let parse_err = |message: String| ConfigError::Parse {
            path: path.to_path_buf(),
            message,
        };
        let table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| parse_err(e.to_string()))?;
        Self::from_table(table.get("ai"), path)
    }

    /// The `[ai]` table itself, as a parsed koi.toml holds it (`None`: no
    /// such table, the empty config); `path` names the file in errors.
    pub fn from_table(ai: Option<&toml::Value>, path: &Path) -> Result<AiConfig, ConfigError> {
        let parse_err = |message: String| ConfigError::Parse {
            path: path.to_path_buf(),
            message,
        };
        let Some(ai) = ai else {
            return Ok(AiConfig::default());
        };
        let cfg: AiConfig = ai
            .clone()
            .try_into()
            .map_err(|e: toml::de::Error| parse_err(format!("[ai]: {e}")))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Loads `[ai]` from `path`; a missing file is the empty config.
    pub fn load_from(path: &Path) -> Result<AiConfig, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::from_toml_str(&text, path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(AiConfig::default()),
            Err(source) => Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Loads `[ai]` from the platform config path.
    pub fn load() -> Result<AiConfig, ConfigError> {
        match config_path() {
            Some(p) => Self::load_from(&p),
            None => Ok(AiConfig::default()),
        }
    }

    fn validate(&self) -> Result<(), ConfigError> {
        if let Some(m) = &self.approval_mode {
            m.parse::<Mode>()
                .map_err(|e| ConfigError::Invalid(format!("approval_mode: {e}")))?;
        }
        if let Some(m) = &self.sandbox {
            m.parse::<SandboxMode>()
                .map_err(|e| ConfigError::Invalid(format!("sandbox: {e}")))?;
        }
        for (key, paths) in [
            ("sandbox_writable", &self.sandbox_writable),
            ("sandbox_hidden", &self.sandbox_hidden),
        ] {
            for p in paths.iter().flatten() {
                if !expand_tilde(p).is_absolute() {
                    return Err(ConfigError::Invalid(format!(
                        "{key}: {p:?} must be an absolute path or start with ~/"
                    )));
                }
            }
        }
        if let Some(p) = &self.prices {
            p.validate().map_err(ConfigError::Invalid)?;
        }
        if let Some(c) = &self.compaction {
            c.validate().map_err(ConfigError::Invalid)?;
        }
        if let Some(w) = &self.web_search {
            w.validate().map_err(ConfigError::Invalid)?;
        }
        if let Some(url) = &self.base_url {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(ConfigError::Invalid(format!(
                    "base_url {url:?} must start with http:// or https://"
                )));
            }
        }
        Ok(())
    }

    /// The sandbox settings (no environment or probing involved).
    pub fn sandbox_config(&self) -> SandboxConfig {
        let mut cfg = SandboxConfig::default();
        if let Some(mode) = self.sandbox.as_deref().and_then(|m| m.parse().ok()) {
            cfg.mode = mode;
        }
        if let Some(paths) = &self.sandbox_writable {
            cfg.writable = paths.iter().map(|p| expand_tilde(p)).collect();
        }
        if let Some(paths) = &self.sandbox_hidden {
            cfg.hidden = paths.iter().map(|p| expand_tilde(p)).collect();
        }
        cfg
    }

    /// True when nothing that picks a model was set: the one case where a
    /// local server found on loopback ([`crate::model::probe::find_local_server`])
    /// is used.
    pub fn is_unconfigured(&self) -> bool {
        self.provider.is_none() && self.base_url.is_none() && self.model.is_none()
    }

    /// Resolves effective values from this config and the process
    /// environment. Touches no network: the local-server probe is a step
    /// of its own ([`crate::EngineBuilder::resolve`] takes it).
    pub fn resolve(&self) -> ResolvedConfig {
        self.resolve_with(&|k| std::env::var(k).ok(), None)
    }

    /// [`AiConfig::resolve`] with an explicit environment and the local
    /// server a probe found, if one was looked for and found (used only
    /// when [`AiConfig::is_unconfigured`]).
    pub fn resolve_with(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
        local: Option<&LocalServer>,
    ) -> ResolvedConfig {
        let mut sources = Vec::new();
        let (provider, base_url, detected_model) = self.pick_provider(env, local, &mut sources);
        let model = match (&self.model, detected_model) {
            (Some(m), _) => {
                sources.push(Provenance::new("model", m, Source::Config));
                m.clone()
            }
            (None, Some(m)) => {
                sources.push(Provenance::new("model", &m, Source::Detected));
                m
            }
            (None, None) => {
                let m = provider.default_model().to_string();
                sources.push(Provenance::new("model", &m, Source::Default));
                m
            }
        };
        let fast_model = match (&self.fast_model, provider.default_fast_model()) {
            (Some(m), _) => {
                sources.push(Provenance::new("fast_model", m, Source::Config));
                m.clone()
            }
            // A provider's default fast model only makes sense with its
            // default main model; a custom or local model is its own fast model.
            (None, Some(d)) if self.model.is_none() && base_url == provider.default_base_url() => {
                sources.push(Provenance::new("fast_model", d, Source::Default));
                d.to_string()
            }
            _ => {
                sources.push(Provenance::new("fast_model", &model, Source::Default));
                model.clone()
            }
        };
        let (api_key, key_source) = self.find_key(provider, env);
        let shown = if api_key.is_some() { "***" } else { "(none)" };
        sources.push(Provenance::new("api_key", shown, key_source));
        let approval_mode = match &self.approval_mode {
            Some(m) => {
                sources.push(Provenance::new("approval_mode", m, Source::Config));
                m.parse().unwrap_or_default()
            }
            None => {
                sources.push(Provenance::new("approval_mode", "default", Source::Default));
                Mode::Default
            }
        };
        let approval_timeout = match self.approval_timeout_secs {
            Some(s) => {
                sources.push(Provenance::new(
                    "approval_timeout_secs",
                    &s.to_string(),
                    Source::Config,
                ));
                Duration::from_secs(s)
            }
            None => {
                let s = DEFAULT_APPROVAL_TIMEOUT.as_secs().to_string();
                sources.push(Provenance::new(
                    "approval_timeout_secs",
                    &s,
                    Source::Default,
                ));
                DEFAULT_APPROVAL_TIMEOUT
            }
        };
        let sandbox = self.sandbox_config();
        let src = |set: bool| if set { Source::Config } else { Source::Default };
        sources.push(Provenance::new(
            "sandbox",
            sandbox.mode.as_str(),
            src(self.sandbox.is_some()),
        ));
        for (key, paths, set) in [
            (
                "sandbox_writable",
                &sandbox.writable,
                self.sandbox_writable.is_some(),
            ),
            (
                "sandbox_hidden",
                &sandbox.hidden,
                self.sandbox_hidden.is_some(),
            ),
        ] {
            let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            sources.push(Provenance::new(key, &shown.join(", "), src(set)));
        }
        let thinking = self.thinking.unwrap_or_default();
        sources.push(Provenance::new(
            "thinking",
            thinking.as_str(),
            src(self.thinking.is_some()),
        ));
        let prices = self.prices.clone().unwrap_or_default();
        let priced: Vec<&str> = prices.0.keys().map(String::as_str).collect();
        sources.push(Provenance::new(
            "prices",
            &if priced.is_empty() {
                "(none)".to_string()
            } else {
                priced.join(", ")
            },
            src(self.prices.is_some()),
        ));
        let compaction = self.compaction.clone().unwrap_or_default().resolve();
        sources.push(Provenance::new(
            "compaction",
            &format!(
                "soft {}% · hard {}% of the window · {} window(s) configured",
                compaction.soft_percent,
                compaction.hard_percent,
                compaction.windows.len() + usize::from(compaction.context_window.is_some())
            ),
            src(self.compaction.is_some()),
        ));
        let features = self.features(provider, &mut sources);
        let mut key_env_vars = self.key_env_vars(provider);
        for var in features.extra_secret_vars {
            if !key_env_vars.contains(&var) {
                key_env_vars.push(var);
            }
        }
        ResolvedConfig {
            web_search: features.web_search,
            native_web_search: features.native_web_search,
            memory: features.memory,
            thinking,
            prices,
            compaction,
            sandbox,
            provider,
            base_url,
            model,
            fast_model,
            api_key,
            key_env_vars,
            approval_mode,
            approval_timeout,
            sources,
        }
    }

    fn pick_provider(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
        local: Option<&LocalServer>,
        sources: &mut Vec<Provenance>,
    ) -> (ProviderKind, String, Option<String>) {
        if !self.is_unconfigured() {
            let provider = self.provider.unwrap_or(ProviderKind::OpenAi);
            let src = if self.provider.is_some() {
                Source::Config
            } else {
                Source::Default
            };
            sources.push(Provenance::new("provider", provider.as_str(), src));
            let base = match &self.base_url {
                Some(u) => {
                    sources.push(Provenance::new("base_url", u, Source::Config));
                    u.trim_end_matches('/').to_string()
                }
                None => {
                    let u = provider.default_base_url();
                    sources.push(Provenance::new("base_url", u, Source::Default));
                    u.to_string()
                }
            };
            return (provider, base, None);
        }
        if let Some(found) = local {
            sources.push(Provenance::new("provider", "openai", Source::Detected));
            sources.push(Provenance::new(
                "base_url",
                &found.base_url,
                Source::Detected,
            ));
            return (
                ProviderKind::OpenAi,
                found.base_url.clone(),
                found.model.clone(),
            );
        }
        for (kind, var) in [
            (ProviderKind::OpenAi, DEFAULT_API_KEY_ENV),
            (ProviderKind::OpenAi, "OPENAI_API_KEY"),
            (ProviderKind::Anthropic, "ANTHROPIC_API_KEY"),
        ] {
            if env(var).is_some_and(|v| !v.is_empty()) {
                sources.push(Provenance::new(
                    "provider",
                    kind.as_str(),
                    Source::Env(var.into()),
                ));
                let u = kind.default_base_url();
                sources.push(Provenance::new("base_url", u, Source::Default));
                return (kind, u.to_string(), None);
            }
        }
        sources.push(Provenance::new("provider", "demo", Source::Default));
        sources.push(Provenance::new("base_url", "(offline)", Source::Default));
        (ProviderKind::Demo, String::new(), None)
    }

    fn key_env_vars(&self, provider: ProviderKind) -> Vec<String> {
        let mut vars = vec![self
            .api_key_env
            .clone()
            .unwrap_or_else(|| DEFAULT_API_KEY_ENV.to_string())];
        if let Some(v) = provider.usual_key_env() {
            if !vars.iter().any(|x| x == v) {
                vars.push(v.to_string());
            }
        }
        vars
    }

    fn find_key(
        &self,
        provider: ProviderKind,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> (Option<ApiKey>, Source) {
        if provider == ProviderKind::Demo {
            return (None, Source::Default);
        }
        if let Some(k) = self.api_key.as_ref().filter(|k| !k.is_empty()) {
            return (Some(ApiKey::new(k.clone())), Source::Config);
        }
        for var in self.key_env_vars(provider) {
            if let Some(k) = env(&var).filter(|k| !k.is_empty()) {
                return (Some(ApiKey::new(k)), Source::Env(var));
            }
        }
        (None, Source::Default)
    }
}

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The `[ai]` table (or a front-end flag applied to it).
    Config,
    /// This environment variable.
    Env(String),
    /// Found by probing local servers.
    Detected,
    /// Built-in default.
    Default,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Config => f.write_str("config"),
            Source::Env(v) => write!(f, "env {v}"),
            Source::Detected => f.write_str("detected"),
            Source::Default => f.write_str("default"),
        }
    }
}

/// One effective value and its origin, for `k config`. Secrets are masked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The `[ai]` key.
    pub key: &'static str,
    /// The value as displayed (`***` for keys).
    pub value: String,
    /// Where it came from.
    pub source: Source,
}

impl Provenance {
    fn new(key: &'static str, value: &str, source: Source) -> Provenance {
        Provenance {
            key,
            value: value.to_string(),
            source,
        }
    }
}

/// The values the engine actually uses.
#[derive(Debug, Clone)]
pub struct ResolvedConfig {
    /// Wire protocol.
    pub provider: ProviderKind,
    /// API base without trailing slash (empty for the demo).
    pub base_url: String,
    /// Main model.
    pub model: String,
    /// Titles and summaries.
    pub fast_model: String,
    /// The key, if one was found.
    pub api_key: Option<ApiKey>,
    /// Env var names that may hold keys (scrubbed from tool subprocesses).
    pub key_env_vars: Vec<String>,
    /// Default approval mode.
    pub approval_mode: Mode,
    /// How long an approval waits.
    pub approval_timeout: Duration,
    /// How shell commands are sandboxed; front ends hand it to the registry.
    pub sandbox: SandboxConfig,
    /// How much the model is asked to think.
    pub thinking: ThinkingLevel,
    /// What each model costs, for `/cost`.
    pub prices: Prices,
    /// Context windows and compaction thresholds.
    pub compaction: CompactionSettings,
    /// Whether the memory curator runs (see [`crate::memory`]).
    pub memory: bool,
    /// The `web_search` tool's service; front ends hand it to the registry.
    pub web_search: Option<WebSearchConfig>,
    /// Whether the provider's own web search is declared (only ever true
    /// for Anthropic and the Responses API).
    pub native_web_search: bool,
    /// Where each value came from, in display order.
    pub sources: Vec<Provenance>,
}

mod features;

#[cfg(test)]
mod tests;
