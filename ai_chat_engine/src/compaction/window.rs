//! How big the model's context window is, and the `[ai.compaction]`
//! settings that turn it into thresholds.
//!
//! A window is counted in tokens. The engine measures requests in bytes of
//! the serialized body, so a window is converted with
//! [`BYTES_PER_TOKEN`]; the thresholds leave enough room for the error of
//! that estimate.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// Bytes of a serialized request per token. Common tokenizers average
/// about four bytes per token on English prose and JSON-escaped code;
/// dense code runs nearer three, which the 30% headroom above the hard
/// threshold absorbs.
pub const BYTES_PER_TOKEN: u64 = 4;

/// The window assumed for a model koi knows nothing about. Local servers
/// (Ollama, llama.cpp) often run with 32k or less, so a larger guess
/// would overflow them; hosted models are in the table below.
pub const FALLBACK_WINDOW_TOKENS: u64 = 32_768;

/// Share of the window at which compaction becomes eligible (it then
/// waits for a phase boundary). Kiso's measured choice: summarise rarely,
/// which loses less than summarising early, at a modest cost in tokens.
pub const DEFAULT_SOFT_PERCENT: u8 = 40;

/// Share of the window at which compaction is forced, boundary or not:
/// leaves 30% for the summary request's answer and the estimate's error.
pub const DEFAULT_HARD_PERCENT: u8 = 70;

/// Smallest window a config may name: below it the raw tail and the
/// system prompt alone would fill it.
pub const MIN_WINDOW_TOKENS: u64 = 4_096;

/// Largest window a config may name: ten times today's largest; anything
/// bigger is a typo.
pub const MAX_WINDOW_TOKENS: u64 = 20_000_000;

/// Known context windows (tokens) by model-name prefix, longest prefix
/// first so `gpt-4o` does not fall under `gpt-4`. From the providers'
/// model pages; a configured window always wins.
const KNOWN_WINDOWS: [(&str, u64); 16] = [
    ("claude-", 200_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-5", 400_000),
    ("gpt-3.5", 16_385),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("gemini-", 1_048_576),
    ("deepseek", 128_000),
    ("kimi-k2", 256_000),
    ("qwen3-coder", 262_144),
    ("qwen", 32_768),
    ("llama3.", 128_000),
    ("mistral", 32_768),
];

/// The `[ai.compaction]` table as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CompactionToml {
    /// Percent of the window at which compaction becomes eligible.
    pub soft_percent: Option<u8>,
    /// Percent of the window at which it is forced.
    pub hard_percent: Option<u8>,
    /// The window (tokens) of any model not listed in `windows`.
    pub context_window: Option<u64>,
    /// Windows (tokens) by exact model name.
    pub windows: BTreeMap<String, u64>,
}

impl CompactionToml {
    /// Checks ranges; the message names the key.
    pub fn validate(&self) -> Result<(), String> {
        let soft = self.soft_percent.unwrap_or(DEFAULT_SOFT_PERCENT);
        let hard = self.hard_percent.unwrap_or(DEFAULT_HARD_PERCENT);
        if !(5..=90).contains(&soft) {
            return Err(format!("compaction.soft_percent {soft} must be 5..=90"));
        }
        if !(10..=90).contains(&hard) || hard <= soft {
            return Err(format!(
                "compaction.hard_percent {hard} must be 10..=90 and above soft_percent ({soft})"
            ));
        }
        let named = self
            .context_window
            .map(|w| ("context_window".to_string(), w));
        let listed = self
            .windows
            .iter()
            .map(|(m, w)| (format!("windows.{m:?}"), *w));
        for (key, w) in named.into_iter().chain(listed) {
            if !(MIN_WINDOW_TOKENS..=MAX_WINDOW_TOKENS).contains(&w) {
                return Err(format!(
                    "compaction.{key} = {w} tokens; must be {MIN_WINDOW_TOKENS}..={MAX_WINDOW_TOKENS}"
                ));
            }
        }
        Ok(())
    }

    /// The settings with defaults filled in (call after [`Self::validate`];
    /// out-of-range values fall back to the defaults).
    pub fn resolve(&self) -> CompactionSettings {
        if self.validate().is_err() {
            return CompactionSettings::default();
        }
        CompactionSettings {
            soft_percent: self.soft_percent.unwrap_or(DEFAULT_SOFT_PERCENT),
            hard_percent: self.hard_percent.unwrap_or(DEFAULT_HARD_PERCENT),
            context_window: self.context_window,
            windows: self.windows.clone(),
        }
    }
}

/// The effective compaction settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionSettings {
    /// Percent of the window that makes compaction eligible.
    pub soft_percent: u8,
    /// Percent of the window that forces it.
    pub hard_percent: u8,
    /// The configured window for models not in `windows`.
    pub context_window: Option<u64>,
    /// Configured windows by model name.
    pub windows: BTreeMap<String, u64>,
}

impl Default for CompactionSettings {
    fn default() -> Self {
        CompactionSettings {
            soft_percent: DEFAULT_SOFT_PERCENT,
            hard_percent: DEFAULT_HARD_PERCENT,
            context_window: None,
            windows: BTreeMap::new(),
        }
    }
}

/// Where a window's size came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowSource {
    /// `[ai.compaction] windows` names this model.
    ConfiguredForModel,
    /// `[ai.compaction] context_window`.
    Configured,
    /// The model's family is in koi's table.
    KnownFamily,
    /// Nothing known: the conservative fallback.
    Fallback,
}

/// A model's context window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextWindow {
    /// Tokens.
    pub tokens: u64,
    /// Where the number came from.
    pub source: WindowSource,
}

impl ContextWindow {
    /// The window in request bytes.
    pub fn bytes(&self) -> u64 {
        self.tokens.saturating_mul(BYTES_PER_TOKEN)
    }
}

impl fmt::Display for ContextWindow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let from = match self.source {
            WindowSource::ConfiguredForModel => "configured for this model",
            WindowSource::Configured => "configured",
            WindowSource::KnownFamily => "known model family",
            WindowSource::Fallback => "unknown model: conservative default",
        };
        write!(f, "{} tokens ({from})", self.tokens)
    }
}

impl CompactionSettings {
    /// The window of `model`: configured, known, or the fallback.
    pub fn window_for(&self, model: &str) -> ContextWindow {
        if let Some(&tokens) = self.windows.get(model) {
            return ContextWindow {
                tokens,
                source: WindowSource::ConfiguredForModel,
            };
        }
        if let Some(tokens) = self.context_window {
            return ContextWindow {
                tokens,
                source: WindowSource::Configured,
            };
        }
        let lower = model.to_ascii_lowercase();
        // A provider prefix such as `anthropic/` or `openai/` names no family.
        let name = lower.rsplit('/').next().unwrap_or(&lower);
        let known = KNOWN_WINDOWS
            .iter()
            .filter(|(prefix, _)| name.starts_with(prefix))
            .max_by_key(|(prefix, _)| prefix.len());
        match known {
            Some(&(_, tokens)) => ContextWindow {
                tokens,
                source: WindowSource::KnownFamily,
            },
            None => ContextWindow {
                tokens: FALLBACK_WINDOW_TOKENS,
                source: WindowSource::Fallback,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_come_from_config_then_family_then_fallback() {
        let mut s = CompactionSettings::default();
        assert_eq!(s.window_for("claude-sonnet-4-5").tokens, 200_000);
        assert_eq!(s.window_for("gpt-4o-mini").tokens, 128_000);
        assert_eq!(s.window_for("gpt-4.1-mini").tokens, 1_047_576);
        assert_eq!(s.window_for("openai/gpt-5-codex").tokens, 400_000);
        let unknown = s.window_for("my-local-model");
        assert_eq!(unknown.tokens, FALLBACK_WINDOW_TOKENS);
        assert_eq!(unknown.source, WindowSource::Fallback);
        s.context_window = Some(65_536);
        assert_eq!(s.window_for("claude-x").source, WindowSource::Configured);
        s.windows.insert("claude-x".into(), 1_000_000);
        assert_eq!(s.window_for("claude-x").tokens, 1_000_000);
        assert_eq!(s.window_for("claude-x").bytes(), 4_000_000);
    }

    #[test]
    fn validation_names_the_bad_key() {
        let ok = CompactionToml::default();
        assert!(ok.validate().is_ok());
        let bad = CompactionToml {
            soft_percent: Some(80),
            hard_percent: Some(70),
            ..CompactionToml::default()
        };
        assert!(bad.validate().unwrap_err().contains("hard_percent"));
        let mut tiny = CompactionToml::default();
        tiny.windows.insert("m".into(), 100);
        assert!(tiny.validate().unwrap_err().contains("windows.\"m\""));
        assert_eq!(bad.resolve(), CompactionSettings::default());
    }
}
