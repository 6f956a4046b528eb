//! The colour theme: the palette and special colours koi draws with, and
//! how a colour reference resolves against it.

use koi_markdown::{Color, NamedColor, Rgb};

/// How much dim (SGR 2) text is darkened: Alacritty's default factor, so
/// koi's dim text looks like the terminals users come from.
pub const DIM_FACTOR: f32 = 0.66;

/// The colours koi draws with: sixteen ANSI colours, the 256-colour palette
/// (its first sixteen entries mirror the ANSI colours), and the special
/// slots.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    /// The 256-colour palette; entries 0..16 are the ANSI colours.
    pub palette: [Rgb; 256],
    /// Default text colour.
    pub foreground: Rgb,
    /// Default background, also painted in the padding around the grid.
    pub background: Rgb,
    /// Block cursor colour (and the colour of beam/underline cursors).
    pub cursor: Rgb,
    /// Text colour under a block cursor; `None` uses the cell's background.
    pub cursor_text: Option<Rgb>,
    /// Selection background.
    pub selection_background: Rgb,
    /// Selection text colour; `None` keeps each cell's own foreground.
    pub selection_foreground: Option<Rgb>,
}

impl Default for Theme {
    /// A dark theme close to Alacritty's defaults.
    fn default() -> Self {
        const ANSI: [u32; 16] = [
            0x1d1f21, 0xcc6666, 0xb5bd68, 0xf0c674, 0x81a2be, 0xb294bb, 0x8abeb7, 0xc5c8c6,
            0x666666, 0xd54e53, 0xb9ca4a, 0xe7c547, 0x7aa6da, 0xc397d8, 0x70c0b1, 0xeaeaea,
        ];
        let mut ansi = [Rgb::default(); 16];
        for (slot, hex) in ansi.iter_mut().zip(ANSI) {
            *slot = Rgb::from_hex(hex);
        }
        Self {
            palette: xterm_palette(ansi),
            foreground: Rgb::from_hex(0xd8d8d8),
            background: Rgb::from_hex(0x181818),
            cursor: Rgb::from_hex(0xd8d8d8),
            cursor_text: None,
            selection_background: Rgb::from_hex(0x44475a),
            selection_foreground: None,
        }
    }
}

/// The xterm 256-colour palette: `ansi` first, then the 6×6×6 colour cube,
/// then a 24-step grey ramp.
pub fn xterm_palette(ansi: [Rgb; 16]) -> [Rgb; 256] {
    let mut palette = [Rgb::default(); 256];
    palette[..16].copy_from_slice(&ansi);
    let level = |v: usize| if v == 0 { 0 } else { (55 + v * 40) as u8 };
    for i in 0..216 {
        let (r, g, b) = (i / 36, (i / 6) % 6, i % 6);
        palette[16 + i] = Rgb::new(level(r), level(g), level(b));
    }
    for i in 0..24 {
        let v = (8 + i * 10) as u8;
        palette[232 + i] = Rgb::new(v, v, v);
    }
    palette
}

impl Theme {
    /// The sRGB value of a colour reference.
    pub fn resolve(&self, color: Color) -> Rgb {
        match color {
            Color::Rgb(rgb) => rgb,
            Color::Indexed(i) => self.palette[usize::from(i)],
            Color::Named(named) => self.resolve_named(named),
        }
    }

    fn resolve_named(&self, named: NamedColor) -> Rgb {
        if let Some(i) = named.ansi_index() {
            return self.palette[usize::from(i)];
        }
        if let Some(i) = named.dim_base() {
            return self.palette[usize::from(i)].scaled(DIM_FACTOR);
        }
        match named {
            NamedColor::Background => self.background,
            NamedColor::Cursor => self.cursor,
            NamedColor::DimForeground => self.foreground.scaled(DIM_FACTOR),
            // Foreground, BrightForeground, and (unreachable) the ANSI names.
            _ => self.foreground,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_has_cube_and_ramp() {
        let theme = Theme::default();
        assert_eq!(theme.palette[16], Rgb::new(0, 0, 0));
        assert_eq!(theme.palette[231], Rgb::new(255, 255, 255));
        assert_eq!(theme.palette[196], Rgb::new(255, 0, 0));
        assert_eq!(theme.palette[232], Rgb::new(8, 8, 8));
        assert_eq!(theme.palette[255], Rgb::new(238, 238, 238));
        assert_eq!(
            theme.resolve(Color::Named(NamedColor::Red)),
            theme.palette[1]
        );
    }
}
