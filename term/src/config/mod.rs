//! koi's TOML config: parsed, validated, with unknown keys reported as
//! warnings rather than errors, and watched for live reload ([`watch`]).
//!
//! The file lives at the platform config dir (`~/.config/koi/koi.toml`,
//! honouring `XDG_CONFIG_HOME`); `assets/koi.toml` documents every key. The
//! `[ai]` table belongs to the assistant engine and is passed through as is.

mod bindings;
pub(crate) mod colors;
pub mod watch;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::theme::{Appearance, BaseTheme, ThemeSetting};

pub use bindings::{Action, Binding, Bindings, Chord, Direction};
pub use colors::{AnsiColors, ColorsConfig, HexColor};

/// The name of the config file inside koi's config directory.
pub const FILE_NAME: &str = "koi.toml";

/// The documented default config, shipped so users can copy it.
pub const DEFAULT_TOML: &str = include_str!("../../../assets/koi.toml");

/// Font sizes outside this range are typos, not preferences.
const FONT_SIZE_RANGE: std::ops::RangeInclusive<f32> = 4.0..=200.0;
/// More padding than this leaves no room for the grid on a laptop screen.
const MAX_PADDING: u16 = 200;
/// Scrollback beyond a million lines costs gigabytes for wide windows.
const MAX_HISTORY: usize = 1_000_000;

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Config {
    /// `theme = "NAME" | "/path/file.toml" | { light = "…", dark = "…" }`.
    pub theme: Option<ThemeSetting>,
    /// The files `theme` names, read when the config is parsed (so a
    /// broken one is a config error and the last good config stays).
    #[serde(skip)]
    pub base_theme: BaseTheme,
    /// The system's light or dark preference: not in the file; the window
    /// sets it when the system reports one.
    #[serde(skip)]
    pub appearance: Appearance,
    pub font: FontConfig,
    pub colors: ColorsConfig,
    pub cursor: CursorConfig,
    pub scrolling: ScrollingConfig,
    pub shell: ShellConfig,
    pub env: BTreeMap<String, String>,
    pub window: WindowConfig,
    pub terminal: TerminalConfig,
    pub tabs: TabsConfig,
    pub links: LinksConfig,
    pub fix: FixConfig,
    /// Chord → action, e.g. `"Ctrl+Shift+C" = "copy"`; `"none"` unbinds.
    pub keybindings: BTreeMap<String, String>,
    /// The assistant's settings, validated by the engine, not here.
    pub ai: Option<toml::Table>,
    /// MCP servers (`[mcp.servers.NAME]`), validated by the MCP client.
    pub mcp: Option<toml::Table>,
    /// The Cmd+L overlay's settings.
    pub overlay: Option<toml::Table>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default)]
pub struct FontConfig {
    /// Family name; `None` uses the bundled DejaVu Sans Mono.
    pub family: Option<String>,
    /// Size in points.
    pub size: f32,
    /// Draw the font's programming ligatures (`->`, `=>`, `!=` in Fira
    /// Code) over the cells they join; off draws one glyph per cell.
    pub ligatures: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum CursorStyle {
    #[default]
    Block,
    Beam,
    Underline,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default)]
pub struct CursorConfig {
    pub style: CursorStyle,
    pub blink: bool,
    /// Half a blink cycle, in milliseconds.
    pub blink_interval_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default)]
pub struct ScrollingConfig {
    /// Lines of scrollback kept.
    pub history: usize,
    /// Lines scrolled per mouse-wheel step.
    pub multiplier: u8,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default)]
pub struct ShellConfig {
    /// `None`: `$SHELL`, then `/bin/sh`.
    pub program: Option<String>,
    pub args: Vec<String>,
    /// Load koi's integration into bash, zsh and fish without an rc
    /// edit. Applies to shells started after a change.
    pub integration: bool,
    /// A line starting with this is turned into a command instead of run
    /// (`#` at the prompt); empty turns that off.
    pub suggest_prefix: String,
}

impl Default for ShellConfig {
    fn default() -> Self {
        Self {
            program: None,
            args: Vec::new(),
            integration: true,
            suggest_prefix: "# ".to_owned(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default)]
pub struct WindowConfig {
    /// Blank space around the grid, in logical pixels.
    pub padding: u16,
    /// Background opacity, 0 (transparent) to 1.
    pub opacity: f32,
    /// Initial grid size.
    pub columns: u16,
    pub lines: u16,
}

impl WindowConfig {
    /// Whether the window is opened translucent, so the window system
    /// blends its background over what is behind it. A window's pixel
    /// format is chosen when it opens: an opaque one stays opaque when a
    /// reload lowers the opacity (the next start opens it translucent).
    pub fn translucent(&self) -> bool {
        self.opacity < 1.0
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default)]
pub struct TerminalConfig {
    /// Let programs copy to the clipboard with OSC 52. Reading the clipboard
    /// is never allowed.
    pub osc52_copy: bool,
    /// Megabytes of decoded pictures (kitty graphics, sixel, iTerm2) each
    /// terminal keeps; the oldest are evicted past it.
    pub picture_memory_mb: u32,
}

/// When the tab bar takes a row of the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum TabBarMode {
    /// Only while there is more than one tab.
    #[default]
    Auto,
    Always,
    Never,
}

/// Which edge of the window the tab bar takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum TabBarPosition {
    /// The top row, as in WezTerm, Kitty and most browsers.
    #[default]
    Top,
    /// The bottom row, as in tmux.
    Bottom,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Default)]
#[serde(default)]
pub struct TabsConfig {
    pub bar: TabBarMode,
    pub position: TabBarPosition,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct LinksConfig {
    /// The program a Ctrl+click (Cmd+click) hands an http, https, mailto
    /// or file link to, as its one argument.
    pub opener: String,
}

impl Default for LinksConfig {
    fn default() -> Self {
        Self {
            opener: if cfg!(target_os = "macos") {
                "open".into()
            } else {
                "xdg-open".into()
            },
        }
    }
}

/// Commands whose non-zero exit status is an answer (no match, files
/// differ, false), not a failure to fix.
const DEFAULT_FIX_IGNORE: &[&str] = &[
    "grep", "egrep", "fgrep", "rg", "diff", "cmp", "test", "[", "[[",
];

/// The hint a failed command gets, and which commands never get it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct FixConfig {
    /// Draw "⏎ fix (Ctrl+Shift+E)" on a failed command's last line.
    pub hint: bool,
    /// Commands never offered a fix: an entry matches a command line that
    /// starts with its words (see [`koi_terminal::session::is_ignored`]).
    pub ignore: Vec<String>,
}

impl Default for FixConfig {
    fn default() -> Self {
        Self {
            hint: true,
            ignore: DEFAULT_FIX_IGNORE.iter().map(|s| s.to_string()).collect(),
        }
    }
}

impl Default for FontConfig {
    fn default() -> Self {
        Self {
            family: None,
            size: 12.0,
            ligatures: true,
        }
    }
}

impl Default for CursorConfig {
    fn default() -> Self {
        Self {
            style: CursorStyle::Block,
            blink: false,
            blink_interval_ms: 530,
        }
    }
}

impl Default for ScrollingConfig {
    fn default() -> Self {
        Self {
            history: 10_000,
            multiplier: 3,
        }
    }
}

impl Default for WindowConfig {
    fn default() -> Self {
        Self {
            padding: 6,
            opacity: 1.0,
            columns: 100,
            lines: 30,
        }
    }
}

impl Default for TerminalConfig {
    fn default() -> Self {
        Self {
            osc52_copy: true,
            picture_memory_mb: (koi_terminal::graphics::DEFAULT_BUDGET_BYTES >> 20) as u32,
        }
    }
}

/// Why a config could not be used. The caller keeps its last good config.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

impl ConfigError {
    /// The message on one line, for the error banner.
    pub fn one_line(&self) -> String {
        self.to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A parsed config and what was odd about it.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub config: Config,
    pub bindings: Bindings,
    /// Unknown keys and other things worth a warning, never fatal.
    pub warnings: Vec<String>,
}

impl Config {
    /// The default config file location (`$XDG_CONFIG_HOME/koi/koi.toml`).
    pub fn default_path() -> Option<PathBuf> {
        dirs::config_dir().map(|dir| dir.join("koi").join(FILE_NAME))
    }

    /// Load `path`; a missing file is the default config, not an error.
    pub fn load(path: &Path) -> Result<Loaded, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(&text, path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Self::parse("", path),
            Err(source) => Err(ConfigError::Read {
                path: path.to_owned(),
                source,
            }),
        }
    }

    /// Parse config text; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Loaded, ConfigError> {
        let mut warnings = Vec::new();
        let deserializer = toml::Deserializer::parse(text).map_err(|e| ConfigError::Parse {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        let mut config: Config = serde_ignored::deserialize(deserializer, |ignored| {
            warnings.push(format!(
                "{}: unknown key `{ignored}` ignored",
                path.display()
            ));
        })
        .map_err(|e| ConfigError::Parse {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        config.validate().map_err(|message| ConfigError::Invalid {
            path: path.to_owned(),
            message,
        })?;
        let (base_theme, theme_warnings) = BaseTheme::load(config.theme.as_ref(), path.parent())
            .map_err(|message| ConfigError::Invalid {
                path: path.to_owned(),
                message,
            })?;
        config.base_theme = base_theme;
        warnings.extend(theme_warnings);
        let bindings = Bindings::with_overrides(&config.keybindings).map_err(|message| {
            ConfigError::Invalid {
                path: path.to_owned(),
                message,
            }
        })?;
        Ok(Loaded {
            config,
            bindings,
            warnings,
        })
    }

    fn validate(&self) -> Result<(), String> {
        if !FONT_SIZE_RANGE.contains(&self.font.size) {
            return Err(format!(
                "font.size = {} is outside {}–{}",
                self.font.size,
                FONT_SIZE_RANGE.start(),
                FONT_SIZE_RANGE.end()
            ));
        }
        if !(0.0..=1.0).contains(&self.window.opacity) {
            return Err(format!(
                "window.opacity = {} must be between 0 and 1",
                self.window.opacity
            ));
        }
        if self.window.padding > MAX_PADDING {
            return Err(format!(
                "window.padding = {} is more than {MAX_PADDING}",
                self.window.padding
            ));
        }
        if self.window.columns == 0 || self.window.lines == 0 {
            return Err("window.columns and window.lines must be at least 1".into());
        }
        if self.scrolling.history > MAX_HISTORY {
            return Err(format!(
                "scrolling.history = {} is more than {MAX_HISTORY}",
                self.scrolling.history
            ));
        }
        match &self.shell.program {
            Some(program) if program.trim().is_empty() => {
                return Err("shell.program is empty".into());
            }
            None if !self.shell.args.is_empty() => {
                return Err("shell.args needs shell.program".into());
            }
            _ => {}
        }
        if self.shell.suggest_prefix.chars().any(char::is_control) {
            return Err("shell.suggest_prefix holds a control character".into());
        }
        Ok(())
    }

    /// The colour theme the renderer draws with: the `theme` for the
    /// current appearance, with `[colors]` laid over it.
    pub fn theme(&self) -> render::Theme {
        let base = match self.base_theme.pick(self.appearance) {
            Some(colors) => colors.theme(),
            None => render::Theme::default(),
        };
        self.colors.over(base)
    }

    /// The renderer's font settings at a window scale factor.
    pub fn font_config(&self, scale_factor: f64) -> render::FontConfig {
        render::FontConfig {
            family: self.font.family.clone(),
            size_pt: self.font.size,
            scale_factor,
            ligatures: self.font.ligatures,
        }
    }

    /// The configured shell as program + arguments.
    pub fn shell_argv(&self) -> Option<Vec<String>> {
        self.shell.program.as_ref().map(|program| {
            std::iter::once(program.clone())
                .chain(self.shell.args.iter().cloned())
                .collect()
        })
    }
}

#[cfg(test)]
mod tests;
