//! Reading a theme file: koi's own `[colors]` format (what the bundled
//! schemes use) or Alacritty's TOML themes (`[colors.primary]`,
//! `[colors.cursor]`, `[colors.selection]`, `[colors.normal]`,
//! `[colors.bright]`), which the same reader accepts side by side.

use serde::{Deserialize, Deserializer};

use crate::config::colors::{AnsiColors, ColorsConfig, HexColor};

/// A theme file's colours, and the keys it had that koi does not use.
#[derive(Clone, Debug, PartialEq)]
pub struct ThemeFile {
    /// The colours, in the shape of the config's `[colors]` table.
    pub colors: ColorsConfig,
    /// Keys koi ignores (Alacritty's `dim`, `search`, `indexed_colors`…).
    pub ignored: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Root {
    colors: FileColors,
}

/// The union of koi's and Alacritty's `[colors]` tables.
#[derive(Deserialize, Default)]
#[serde(default)]
struct FileColors {
    foreground: Option<HexColor>,
    background: Option<HexColor>,
    cursor: Option<CursorEntry>,
    cursor_text: Option<HexColor>,
    selection_background: Option<HexColor>,
    selection_foreground: Option<HexColor>,
    /// Alacritty: `[colors.primary]`.
    primary: Primary,
    /// Alacritty: `[colors.selection]`.
    selection: Pair,
    normal: AnsiColors,
    bright: AnsiColors,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Primary {
    foreground: Option<HexColor>,
    background: Option<HexColor>,
}

/// Alacritty's `{ text, cursor }` and `{ text, background }` pairs.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Pair {
    text: Option<Slot>,
    cursor: Option<Slot>,
    background: Option<Slot>,
}

/// koi writes `cursor = "#rrggbb"`; Alacritty writes a `[colors.cursor]`
/// table.
#[derive(Deserialize)]
#[serde(untagged)]
enum CursorEntry {
    Color(HexColor),
    Table(Pair),
}

/// An Alacritty colour slot: a colour, or `CellForeground` /
/// `CellBackground` (the cell's own colours, which is what koi does when a
/// slot is left out).
#[derive(Clone, Copy)]
struct Slot(Option<HexColor>);

impl<'de> Deserialize<'de> for Slot {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        match text.as_str() {
            "CellForeground" | "CellBackground" => Ok(Slot(None)),
            _ => text
                .parse()
                .map(|c| Slot(Some(c)))
                .map_err(serde::de::Error::custom),
        }
    }
}

fn slot(value: Option<Slot>) -> Option<HexColor> {
    value.and_then(|Slot(color)| color)
}

/// Parse a theme file's text.
pub fn parse(text: &str) -> Result<ThemeFile, String> {
    let deserializer = toml::Deserializer::parse(text).map_err(|e| e.to_string())?;
    let mut ignored = Vec::new();
    let root: Root = serde_ignored::deserialize(deserializer, |path| {
        ignored.push(path.to_string());
    })
    .map_err(|e| e.to_string())?;
    let c = root.colors;
    let (cursor, cursor_text) = match c.cursor {
        Some(CursorEntry::Color(color)) => (Some(color), c.cursor_text),
        Some(CursorEntry::Table(pair)) => {
            (slot(pair.cursor), c.cursor_text.or_else(|| slot(pair.text)))
        }
        None => (None, c.cursor_text),
    };
    Ok(ThemeFile {
        colors: ColorsConfig {
            foreground: c.foreground.or(c.primary.foreground),
            background: c.background.or(c.primary.background),
            cursor,
            cursor_text,
            selection_background: c
                .selection_background
                .or_else(|| slot(c.selection.background)),
            selection_foreground: c.selection_foreground.or_else(|| slot(c.selection.text)),
            normal: c.normal,
            bright: c.bright,
        },
        ignored,
    })
}
