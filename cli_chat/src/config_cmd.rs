//! `k config`: the effective settings, secrets masked, with their origin.

use ai_chat_engine::{ResolvedConfig, Source};
use ai_tools::Mode;
use serde::Serialize;

use crate::setup::Settings;
use koi_protocol::tagged_line;

/// One displayed setting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    /// The `[ai]` key (or a `k` fact such as `sessions_dir`).
    pub key: String,
    /// The value; `***` for secrets.
    pub value: String,
    /// Where it came from: `flag --model`, `config`, `env KOI_API_KEY`, …
    pub source: String,
}

/// Everything `k config` shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The config file consulted.
    pub config_file: Option<String>,
    /// Whether it exists.
    pub config_file_found: bool,
    /// Settings in display order.
    pub values: Vec<Row>,
}

/// Builds the report. `mode` is the mode `k` would use in this terminal.
pub fn report(settings: &Settings, resolved: &ResolvedConfig, mode: Mode, why: &str) -> Report {
    let mut values: Vec<Row> = resolved
        .sources
        .iter()
        .map(|p| {
            let source = match (settings.flag_for(p.key), &p.source) {
                (Some(flag), Source::Config) => format!("flag {flag}"),
                _ => p.source.to_string(),
            };
            let value = if p.key == "api_key" {
                // Provenance already masks it; never trust that alone.
                mask(resolved.api_key.is_some())
            } else {
                p.value.clone()
            };
            Row {
                key: p.key.to_string(),
                value,
                source,
            }
        })
        .collect();
    values.push(Row {
        key: "key_env_vars".into(),
        value: resolved.key_env_vars.join(", "),
        source: "derived".into(),
    });
    values.push(Row {
        key: "sandbox_state".into(),
        value: ai_tools::SandboxStatus::of(resolved.sandbox.mode).to_string(),
        source: "this kernel".into(),
    });
    values.push(Row {
        key: "k_mode".into(),
        value: mode.to_string(),
        source: why.into(),
    });
    if let Ok(cwd) = std::env::current_dir() {
        values.push(Row {
            key: "agents_md".into(),
            value: ai_chat_engine::project_instructions::provenance(
                &cwd,
                ai_chat_engine::config::config_dir().as_deref(),
            ),
            source: "global, then repository root to here".into(),
        });
    }
    let data = ai_chat_engine::store::session_log::default_sessions_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|| "(none)".into());
    values.push(Row {
        key: "sessions_dir".into(),
        value: data,
        source: "platform data dir".into(),
    });
    Report {
        config_file: settings.file.as_ref().map(|f| f.display().to_string()),
        config_file_found: settings.file_found,
        values,
    }
}

fn mask(present: bool) -> String {
    if present { "***" } else { "(none)" }.to_string()
}

impl Report {
    /// Aligned text for people.
    pub fn to_text(&self) -> String {
        let file = match (&self.config_file, self.config_file_found) {
            (Some(f), true) => f.clone(),
            (Some(f), false) => format!("{f} (not found; using defaults)"),
            (None, _) => "(no config directory)".into(),
        };
        let mut s = format!("config file: {file}\n");
        let kw = self.values.iter().map(|r| r.key.len()).max().unwrap_or(0);
        let vw = self
            .values
            .iter()
            .map(|r| r.value.chars().count())
            .max()
            .unwrap_or(0)
            .min(60);
        for r in &self.values {
            s.push_str(&format!("{:kw$}  {:vw$}  ({})\n", r.key, r.value, r.source));
        }
        s
    }

    /// One JSON object.
    pub fn to_json(&self) -> String {
        tagged_line("config", "config", self)
    }
}
