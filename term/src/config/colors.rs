//! The `[colors]` table: any colour left out keeps the theme's (koi's own
//! colours when no `theme` is set). Theme files use the same table.

use render::{xterm_palette, Rgb, Theme};
use serde::{Deserialize, Deserializer};

/// A colour written as `"#rrggbb"` (or `"0xrrggbb"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HexColor(pub Rgb);

impl std::str::FromStr for HexColor {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let digits = s
            .strip_prefix('#')
            .or_else(|| s.strip_prefix("0x"))
            .unwrap_or(s);
        if digits.len() != 6 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("`{s}` is not a colour; write it as \"#rrggbb\""));
        }
        let value = u32::from_str_radix(digits, 16).map_err(|e| e.to_string())?;
        Ok(HexColor(Rgb::from_hex(value)))
    }
}

impl<'de> Deserialize<'de> for HexColor {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The eight ANSI colours of one intensity.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct AnsiColors {
    pub black: Option<HexColor>,
    pub red: Option<HexColor>,
    pub green: Option<HexColor>,
    pub yellow: Option<HexColor>,
    pub blue: Option<HexColor>,
    pub magenta: Option<HexColor>,
    pub cyan: Option<HexColor>,
    pub white: Option<HexColor>,
}

impl AnsiColors {
    /// The eight colours, black to white.
    pub fn slots(&self) -> [Option<HexColor>; 8] {
        [
            self.black,
            self.red,
            self.green,
            self.yellow,
            self.blue,
            self.magenta,
            self.cyan,
            self.white,
        ]
    }
}

/// Colours laid over a theme; each one left out keeps the theme's.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ColorsConfig {
    pub foreground: Option<HexColor>,
    pub background: Option<HexColor>,
    pub cursor: Option<HexColor>,
    pub cursor_text: Option<HexColor>,
    pub selection_background: Option<HexColor>,
    pub selection_foreground: Option<HexColor>,
    pub normal: AnsiColors,
    pub bright: AnsiColors,
}

impl ColorsConfig {
    /// The default theme with this table's colours laid over it.
    pub fn theme(&self) -> Theme {
        self.over(Theme::default())
    }

    /// `theme` with this table's colours laid over it.
    pub fn over(&self, mut theme: Theme) -> Theme {
        let mut ansi = [Rgb::default(); 16];
        ansi.copy_from_slice(&theme.palette[..16]);
        for (i, color) in self
            .normal
            .slots()
            .into_iter()
            .chain(self.bright.slots())
            .enumerate()
        {
            if let Some(HexColor(rgb)) = color {
                ansi[i] = rgb;
            }
        }
        theme.palette = xterm_palette(ansi);
        let set = |slot: &mut Rgb, value: Option<HexColor>| {
            if let Some(HexColor(rgb)) = value {
                *slot = rgb;
            }
        };
        set(&mut theme.foreground, self.foreground);
        set(&mut theme.background, self.background);
        set(&mut theme.cursor, self.cursor);
        set(&mut theme.selection_background, self.selection_background);
        if let Some(HexColor(rgb)) = self.cursor_text {
            theme.cursor_text = Some(rgb);
        }
        if let Some(HexColor(rgb)) = self.selection_foreground {
            theme.selection_foreground = Some(rgb);
        }
        theme
    }
}
