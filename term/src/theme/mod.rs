//! Themes: `theme = "NAME"` (a bundled scheme), `theme = "/path/file.toml"`
//! (koi's or Alacritty's format, or an iTerm2 `.itermcolors` file), or `theme = { light = "…", dark = "…" }`,
//! which follows the system's appearance ([`portal`] on Linux, winit's
//! theme events elsewhere). A theme is the base the config's `[colors]`
//! table is laid over.

pub mod bundled;
pub mod file;
pub mod iterm;
pub mod list;
#[cfg(all(unix, not(target_os = "macos")))]
pub mod portal;

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::config::colors::ColorsConfig;

/// The config's `theme` key as written.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum ThemeSetting {
    /// One scheme, always.
    One(String),
    /// One scheme for a light system appearance, one for a dark one.
    ByAppearance { light: String, dark: String },
}

/// The system's light or dark preference.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Appearance {
    Light,
    /// What koi assumes until the system says otherwise: its own colours
    /// are dark.
    #[default]
    Dark,
}

/// The theme files a config names, read and parsed.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum BaseTheme {
    /// No `theme` key: koi's own colours.
    #[default]
    Builtin,
    /// One scheme.
    One(ColorsConfig),
    /// A scheme for each appearance.
    ByAppearance {
        light: ColorsConfig,
        dark: ColorsConfig,
    },
}

impl BaseTheme {
    /// Read what `setting` names; `config_dir` anchors relative paths.
    /// Returns the theme and warnings about keys it ignored.
    pub fn load(
        setting: Option<&ThemeSetting>,
        config_dir: Option<&Path>,
    ) -> Result<(Self, Vec<String>), String> {
        let mut warnings = Vec::new();
        let mut one = |spec: &str| -> Result<ColorsConfig, String> {
            let (colors, ignored) = load_one(spec, config_dir)?;
            warnings.extend(ignored);
            Ok(colors)
        };
        let theme = match setting {
            None => Self::Builtin,
            Some(ThemeSetting::One(spec)) => Self::One(one(spec)?),
            Some(ThemeSetting::ByAppearance { light, dark }) => Self::ByAppearance {
                light: one(light)?,
                dark: one(dark)?,
            },
        };
        Ok((theme, warnings))
    }

    /// The colours for `appearance` (`None`: koi's own).
    pub fn pick(&self, appearance: Appearance) -> Option<&ColorsConfig> {
        match (self, appearance) {
            (Self::Builtin, _) => None,
            (Self::One(colors), _) => Some(colors),
            (Self::ByAppearance { light, .. }, Appearance::Light) => Some(light),
            (Self::ByAppearance { dark, .. }, Appearance::Dark) => Some(dark),
        }
    }

    /// Whether the colours depend on the system's appearance.
    pub fn follows_appearance(&self) -> bool {
        matches!(self, Self::ByAppearance { .. })
    }
}

/// The theme files a config's text names (not bundled schemes), read
/// from its `theme` key alone, so they are known even while the rest of
/// the config, or a theme file, is broken.
pub fn files_named(config_text: &str, config_dir: Option<&Path>) -> Vec<PathBuf> {
    #[derive(Deserialize)]
    struct OnlyTheme {
        theme: Option<ThemeSetting>,
    }
    let Ok(OnlyTheme {
        theme: Some(setting),
    }) = toml::from_str::<OnlyTheme>(config_text)
    else {
        return Vec::new();
    };
    let specs = match &setting {
        ThemeSetting::One(spec) => vec![spec.as_str()],
        ThemeSetting::ByAppearance { light, dark } => vec![light.as_str(), dark.as_str()],
    };
    specs
        .into_iter()
        .filter(|spec| is_path(spec))
        .map(|spec| expand(spec, config_dir))
        .collect()
}

/// Whether `spec` names a file rather than a bundled scheme.
fn is_path(spec: &str) -> bool {
    spec.contains('/')
        || spec.contains('\\')
        || spec.starts_with('~')
        || spec.ends_with(".toml")
        || spec.ends_with(".itermcolors")
}

fn expand(spec: &str, config_dir: Option<&Path>) -> PathBuf {
    let path = match spec.strip_prefix("~/") {
        Some(rest) => dirs::home_dir().map_or_else(|| PathBuf::from(spec), |home| home.join(rest)),
        None => PathBuf::from(spec),
    };
    match config_dir {
        Some(dir) if path.is_relative() => dir.join(path),
        _ => path,
    }
}

/// One scheme by name or path, with the keys its file had that koi ignores.
fn load_one(spec: &str, config_dir: Option<&Path>) -> Result<(ColorsConfig, Vec<String>), String> {
    let (text, origin) = if is_path(spec) {
        let path = expand(spec, config_dir);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("theme file {}: {e}", path.display()))?;
        (std::borrow::Cow::Owned(text), path.display().to_string())
    } else {
        let Some(found) = bundled::find(spec) else {
            let names: Vec<&str> = bundled::BUNDLED.iter().map(|b| b.name).collect();
            return Err(format!(
                "no theme called `{spec}`; koi has {} (or name a .toml file)",
                names.join(", ")
            ));
        };
        (
            std::borrow::Cow::Borrowed(found.text),
            found.name.to_owned(),
        )
    };
    let parsed = if iterm::is_plist(&text) {
        iterm::parse(&text)
    } else {
        file::parse(&text)
    }
    .map_err(|e| format!("theme {origin}: {e}"))?;
    let ignored = parsed
        .ignored
        .iter()
        .map(|key| format!("theme {origin}: key `{key}` ignored"))
        .collect();
    Ok((parsed.colors, ignored))
}

#[cfg(test)]
mod tests;
