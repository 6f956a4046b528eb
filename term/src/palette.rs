//! The colours the terminal reports to applications (OSC 4/10/11/12 queries)
//! when the application has not set them itself.

use alacritty_terminal::term::color::COUNT;
use alacritty_terminal::vte::ansi::{NamedColor, Rgb};

/// Every colour slot alacritty_terminal knows: 256 indexed colours followed by
/// the named special colours (foreground, background, cursor, dim variants…).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Palette {
    colors: [Rgb; COUNT],
}

/// The 16 ANSI colours of koi's default theme (xterm's values, slightly softened
/// black and white so text is comfortable on the default background).
const ANSI16: [(u8, u8, u8); 16] = [
    (0x1d, 0x1f, 0x21),
    (0xcc, 0x34, 0x2b),
    (0x19, 0x8f, 0x47),
    (0xc4, 0xa0, 0x00),
    (0x3b, 0x6e, 0xd8),
    (0xa3, 0x4d, 0xb5),
    (0x1b, 0x9a, 0xaa),
    (0xc5, 0xc8, 0xc6),
    (0x66, 0x69, 0x69),
    (0xf2, 0x5a, 0x52),
    (0x2d, 0xc6, 0x6a),
    (0xf0, 0xc6, 0x4a),
    (0x6c, 0x9c, 0xf7),
    (0xc9, 0x7f, 0xd9),
    (0x4c, 0xc9, 0xd8),
    (0xff, 0xff, 0xff),
];

/// Default foreground, background and cursor colours.
const DEFAULT_FG: Rgb = Rgb {
    r: 0xd8,
    g: 0xdc,
    b: 0xe0,
};
const DEFAULT_BG: Rgb = Rgb {
    r: 0x14,
    g: 0x17,
    b: 0x1c,
};
const DEFAULT_CURSOR: Rgb = Rgb {
    r: 0xf0,
    g: 0x88,
    b: 0x3e,
};

impl Default for Palette {
    fn default() -> Self {
        let mut colors = [Rgb::default(); COUNT];
        for (index, slot) in colors.iter_mut().enumerate().take(256) {
            *slot = indexed_default(index as u8);
        }
        colors[NamedColor::Foreground as usize] = DEFAULT_FG;
        colors[NamedColor::Background as usize] = DEFAULT_BG;
        colors[NamedColor::Cursor as usize] = DEFAULT_CURSOR;
        colors[NamedColor::BrightForeground as usize] = rgb(ANSI16[15]);
        colors[NamedColor::DimForeground as usize] = dim(DEFAULT_FG);
        for i in 0..8 {
            colors[NamedColor::DimBlack as usize + i] = dim(rgb(ANSI16[i]));
        }
        Self { colors }
    }
}

impl Palette {
    /// The colour in slot `index` (an indexed colour below 256, a `NamedColor`
    /// discriminant above); out-of-range indices give the foreground.
    pub fn get(&self, index: usize) -> Rgb {
        self.colors
            .get(index)
            .copied()
            .unwrap_or(self.colors[NamedColor::Foreground as usize])
    }

    /// Replace the colour in slot `index`; out-of-range indices are ignored.
    pub fn set(&mut self, index: usize, color: Rgb) {
        if let Some(slot) = self.colors.get_mut(index) {
            *slot = color;
        }
    }
}

fn rgb((r, g, b): (u8, u8, u8)) -> Rgb {
    Rgb { r, g, b }
}

/// Dim colours are two thirds as bright, as in most terminals.
fn dim(c: Rgb) -> Rgb {
    let d = |v: u8| (u16::from(v) * 2 / 3) as u8;
    Rgb {
        r: d(c.r),
        g: d(c.g),
        b: d(c.b),
    }
}

/// xterm's 256-colour table: 16 ANSI colours, a 6×6×6 cube, a 24-step grey ramp.
pub fn indexed_default(index: u8) -> Rgb {
    match index {
        0..=15 => rgb(ANSI16[index as usize]),
        16..=231 => {
            let i = index - 16;
            let level = |v: u8| if v == 0 { 0 } else { v * 40 + 55 };
            Rgb {
                r: level(i / 36),
                g: level((i / 6) % 6),
                b: level(i % 6),
            }
        }
        232..=255 => {
            let v = (index - 232) * 10 + 8;
            Rgb { r: v, g: v, b: v }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cube_and_ramp_match_xterm() {
        assert_eq!(indexed_default(16), Rgb { r: 0, g: 0, b: 0 });
        assert_eq!(indexed_default(196), Rgb { r: 255, g: 0, b: 0 });
        assert_eq!(
            indexed_default(231),
            Rgb {
                r: 255,
                g: 255,
                b: 255
            }
        );
        assert_eq!(indexed_default(232), Rgb { r: 8, g: 8, b: 8 });
        assert_eq!(
            indexed_default(255),
            Rgb {
                r: 238,
                g: 238,
                b: 238
            }
        );
    }

    #[test]
    fn out_of_range_is_safe() {
        let mut p = Palette::default();
        p.set(10_000, Rgb { r: 1, g: 2, b: 3 });
        assert_eq!(p.get(10_000), DEFAULT_FG);
    }
}
