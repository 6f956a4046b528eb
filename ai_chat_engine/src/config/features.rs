//! The assistant's optional features in `[ai]`: the memory curator, the
//! `web_search` tool's service and the providers' own search.

use super::{AiConfig, Provenance, ProviderKind, Source, WebSearchConfig};

/// The features as resolved.
pub(super) struct Features {
    pub memory: bool,
    pub web_search: Option<WebSearchConfig>,
    pub native_web_search: bool,
    /// Key variables the features read, to scrub like the model's key.
    pub extra_secret_vars: Vec<String>,
}

impl AiConfig {
    pub(super) fn features(
        &self,
        provider: ProviderKind,
        sources: &mut Vec<Provenance>,
    ) -> Features {
        let src = |set: bool| if set { Source::Config } else { Source::Default };
        // The demo has no model to curate with; a real one curates unless
        // the user says `memory = false`.
        let memory = provider != ProviderKind::Demo && self.memory.unwrap_or(true);
        sources.push(Provenance::new(
            "memory",
            if memory { "on" } else { "off" },
            src(self.memory.is_some()),
        ));
        let web_search = self.web_search.clone();
        sources.push(Provenance::new(
            "web_search",
            &web_search.as_ref().map_or_else(
                || "(none)".to_string(),
                |w| match w.key_env() {
                    Some(var) => format!("{} (key from {var})", w.provider.as_str()),
                    None => w.provider.as_str().to_string(),
                },
            ),
            src(web_search.is_some()),
        ));
        // Chat Completions has no search of its own to declare.
        let native_web_search = self.native_web_search.unwrap_or(false)
            && matches!(
                provider,
                ProviderKind::Anthropic | ProviderKind::OpenAiResponses
            );
        sources.push(Provenance::new(
            "native_web_search",
            if native_web_search { "on" } else { "off" },
            src(self.native_web_search.is_some()),
        ));
        Features {
            memory,
            extra_secret_vars: web_search
                .as_ref()
                .and_then(WebSearchConfig::key_env)
                .into_iter()
                .collect(),
            web_search,
            native_web_search,
        }
    }
}
