//! The `thinking` setting and what each provider is asked for at each
//! level: Anthropic's adaptive thinking with an effort or its fixed
//! `budget_tokens`, and the Responses API's `reasoning.effort`.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::budgets::MAX_OUTPUT_TOKENS;

/// How much the model is asked to think before it answers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThinkingLevel {
    /// Ask for nothing (the provider's own default).
    #[default]
    Off,
    /// A little.
    Low,
    /// Some.
    Medium,
    /// As much as the model takes.
    High,
}

impl ThinkingLevel {
    /// The config spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ThinkingLevel::Off => "off",
            ThinkingLevel::Low => "low",
            ThinkingLevel::Medium => "medium",
            ThinkingLevel::High => "high",
        }
    }

    /// The effort word both APIs take (`None` when off).
    pub(crate) fn effort(self) -> Option<&'static str> {
        match self {
            ThinkingLevel::Off => None,
            other => Some(other.as_str()),
        }
    }

    /// Anthropic's fixed thinking budget for this level.
    pub(crate) fn budget_tokens(self) -> u32 {
        match self {
            ThinkingLevel::Off => 0,
            ThinkingLevel::Low => LOW_BUDGET_TOKENS,
            ThinkingLevel::Medium => MEDIUM_BUDGET_TOKENS,
            ThinkingLevel::High => HIGH_BUDGET_TOKENS,
        }
    }
}

impl fmt::Display for ThinkingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ThinkingLevel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "off" => Ok(ThinkingLevel::Off),
            "low" => Ok(ThinkingLevel::Low),
            "medium" => Ok(ThinkingLevel::Medium),
            "high" => Ok(ThinkingLevel::High),
            other => Err(format!(
                "unknown thinking level {other:?} (off, low, medium or high)"
            )),
        }
    }
}

/// The API's floor for `budget_tokens`.
const LOW_BUDGET_TOKENS: u32 = 1024;
/// Four times the floor: room to plan a multi-step change.
const MEDIUM_BUDGET_TOKENS: u32 = 4096;
/// Chosen so that `MAX_OUTPUT_TOKENS` plus this stays under 32,000, the
/// smallest output limit of any Claude model that thinks (Opus 4 and 4.1).
const HIGH_BUDGET_TOKENS: u32 = 12_000;

/// The two ways Anthropic models take thinking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AnthropicMode {
    /// `thinking.type = "adaptive"` with `output_config.effort`: newer
    /// models, which reject the fixed budget.
    Adaptive,
    /// `thinking.type = "enabled"` with `budget_tokens`: older models,
    /// which know no other way.
    Budget,
}

impl AnthropicMode {
    /// The mode a model most likely takes, from its name: adaptive from
    /// Claude 4.6 on, the budget before it and for names not recognised
    /// (a refusal switches, see [`names_thinking_mode`]).
    pub fn guess(model: &str) -> AnthropicMode {
        match claude_version(model) {
            Some(v) if v >= (4, 6) => AnthropicMode::Adaptive,
            _ => AnthropicMode::Budget,
        }
    }

    /// The other mode.
    pub fn other(self) -> AnthropicMode {
        match self {
            AnthropicMode::Adaptive => AnthropicMode::Budget,
            AnthropicMode::Budget => AnthropicMode::Adaptive,
        }
    }
}

/// The file, in koi's data dir, that remembers which thinking mode each
/// model was found to take.
pub(crate) const MODES_FILE: &str = "thinking_modes.json";

/// The thinking mode each Anthropic model was found to take (after a
/// refusal of the guessed one): in memory, and in a small file when the
/// engine saves anything, so the next process does not pay the refusal.
#[derive(Debug, Default)]
pub(crate) struct ModeMemory {
    path: Option<PathBuf>,
    modes: Mutex<HashMap<String, AnthropicMode>>,
}

impl ModeMemory {
    /// What `path` remembers; a missing or unreadable file remembers
    /// nothing (it is only a shortcut past one refusal).
    pub fn load(path: Option<PathBuf>) -> ModeMemory {
        let modes = path
            .as_deref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        ModeMemory {
            path,
            modes: Mutex::new(modes),
        }
    }

    /// The mode `model` was found to take, if it was.
    pub fn get(&self, model: &str) -> Option<AnthropicMode> {
        self.lock().get(model).copied()
    }

    /// Remembers `mode` for `model`, and saves when it is news. A failed
    /// save costs one refusal in a later process, nothing more.
    pub fn remember(&self, model: &str, mode: AnthropicMode) {
        let mut modes = self.lock();
        if modes.insert(model.to_string(), mode) == Some(mode) {
            return;
        }
        if let Some(path) = &self.path {
            let _ = save(path, &modes);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, AnthropicMode>> {
        self.modes.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Writes beside the file and renames, so a reader never sees half of it.
fn save(path: &Path, modes: &HashMap<String, AnthropicMode>) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("json.tmp");
    std::fs::write(
        &tmp,
        serde_json::to_string_pretty(modes).unwrap_or_default(),
    )?;
    std::fs::rename(tmp, path)
}

/// What one request asks for, resolved for its provider and model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Thinking {
    /// The level (never `Off` here).
    pub level: ThinkingLevel,
    /// How an Anthropic model is asked.
    pub mode: AnthropicMode,
}

impl Thinking {
    /// `max_tokens` with thinking on: the usual answer allowance plus the
    /// level's budget, so thinking does not eat the answer (and the budget
    /// stays below `max_tokens`, as the API requires).
    pub fn max_tokens(self) -> u32 {
        MAX_OUTPUT_TOKENS + self.level.budget_tokens()
    }
}

/// `(major, minor)` of a Claude model name in either naming scheme:
/// `claude-3-7-sonnet-20250219` or `claude-opus-4-6`.
fn claude_version(model: &str) -> Option<(u32, u32)> {
    let lower = model.to_ascii_lowercase();
    let rest = &lower[lower.find("claude-")? + "claude-".len()..];
    // Dates (8 digits) and other long numbers are not version parts.
    let mut parts = rest
        .split(['-', '.', '@'])
        .filter(|p| !p.is_empty() && p.len() <= 2)
        .filter_map(|p| p.parse::<u32>().ok());
    let major = parts.next()?;
    Some((major, parts.next().unwrap_or(0)))
}

/// Whether a refusal (an HTTP 400's message) is about the thinking mode
/// koi picked, so that the other mode is worth one try.
pub(crate) fn names_thinking_mode(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    [
        "thinking",
        "adaptive",
        "budget_tokens",
        "output_config",
        "effort",
    ]
    .iter()
    .any(|w| m.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_follow_the_model_generation() {
        use AnthropicMode::*;
        for (model, want) in [
            ("claude-opus-4-6", Adaptive),
            ("claude-sonnet-4-6-20260101", Adaptive),
            ("claude-opus-5", Adaptive),
            ("claude-sonnet-4-5-20250929", Budget),
            ("claude-3-7-sonnet-20250219", Budget),
            ("claude-opus-4-1", Budget),
            ("anthropic/claude-haiku-4-5@20251001", Budget),
            ("some-proxy-model", Budget),
        ] {
            assert_eq!(AnthropicMode::guess(model), want, "{model}");
        }
        assert_eq!(Adaptive.other(), Budget);
    }

    #[test]
    fn budgets_keep_the_api_rules() {
        for level in [
            ThinkingLevel::Low,
            ThinkingLevel::Medium,
            ThinkingLevel::High,
        ] {
            let t = Thinking {
                level,
                mode: AnthropicMode::Budget,
            };
            assert!(level.budget_tokens() >= 1024);
            assert!(level.budget_tokens() < t.max_tokens());
            assert!(t.max_tokens() <= 32_000);
        }
    }

    #[test]
    fn found_modes_are_kept_across_loads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data").join(MODES_FILE);
        let first = ModeMemory::load(Some(path.clone()));
        assert_eq!(first.get("m"), None);
        first.remember("m", AnthropicMode::Adaptive);
        assert_eq!(first.get("m"), Some(AnthropicMode::Adaptive));
        let again = ModeMemory::load(Some(path.clone()));
        assert_eq!(again.get("m"), Some(AnthropicMode::Adaptive));
        std::fs::write(&path, "not json").unwrap();
        assert_eq!(ModeMemory::load(Some(path)).get("m"), None);
        let memory_only = ModeMemory::load(None);
        memory_only.remember("x", AnthropicMode::Budget);
        assert_eq!(memory_only.get("x"), Some(AnthropicMode::Budget));
    }

    #[test]
    fn levels_parse_and_refusals_are_recognised() {
        assert_eq!("high".parse(), Ok(ThinkingLevel::High));
        assert!("max".parse::<ThinkingLevel>().is_err());
        assert!(names_thinking_mode(
            "invalid_request_error: thinking.type.enabled is not supported for this model"
        ));
        assert!(names_thinking_mode(
            "adaptive thinking is not supported on this model"
        ));
        assert!(!names_thinking_mode(
            "messages: text content blocks must be non-empty"
        ));
    }
}
