//! The provider names used in config and flags.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Which wire protocol the engine speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ProviderKind {
    /// OpenAI Chat Completions; also Ollama, llama.cpp, LM Studio, vLLM.
    #[serde(rename = "openai")]
    OpenAi,
    /// OpenAI Responses.
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// Anthropic Messages.
    #[serde(rename = "anthropic")]
    Anthropic,
    /// The built-in offline demo.
    #[serde(rename = "demo")]
    Demo,
}

impl ProviderKind {
    /// The name used in config and flags.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "openai",
            ProviderKind::OpenAiResponses => "openai-responses",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Demo => "demo",
        }
    }

    /// Parses a config/flag name.
    pub fn parse(s: &str) -> Option<ProviderKind> {
        match s.trim() {
            "openai" => Some(ProviderKind::OpenAi),
            "openai-responses" => Some(ProviderKind::OpenAiResponses),
            "anthropic" => Some(ProviderKind::Anthropic),
            "demo" => Some(ProviderKind::Demo),
            _ => None,
        }
    }

    pub(crate) fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::OpenAi | ProviderKind::OpenAiResponses => "https://api.openai.com/v1",
            ProviderKind::Anthropic => "https://api.anthropic.com/v1",
            ProviderKind::Demo => "",
        }
    }

    pub(crate) fn default_model(self) -> &'static str {
        match self {
            ProviderKind::OpenAi | ProviderKind::OpenAiResponses => "gpt-4.1",
            ProviderKind::Anthropic => "claude-sonnet-4-5",
            ProviderKind::Demo => "koi-demo",
        }
    }

    pub(crate) fn default_fast_model(self) -> Option<&'static str> {
        match self {
            ProviderKind::OpenAi | ProviderKind::OpenAiResponses => Some("gpt-4.1-mini"),
            ProviderKind::Anthropic => Some("claude-haiku-4-5"),
            ProviderKind::Demo => None,
        }
    }

    /// The provider's conventional API key variable.
    pub fn usual_key_env(self) -> Option<&'static str> {
        match self {
            ProviderKind::OpenAi | ProviderKind::OpenAiResponses => Some("OPENAI_API_KEY"),
            ProviderKind::Anthropic => Some("ANTHROPIC_API_KEY"),
            ProviderKind::Demo => None,
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
