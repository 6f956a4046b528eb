//! Colours as the terminal describes them (named, indexed, truecolor) and
//! the sRGB value type they resolve to.

/// An 8-bit-per-channel sRGB colour, exactly as a theme or an application
/// (truecolor SGR) names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Rgb {
    /// Red, sRGB-encoded.
    pub r: u8,
    /// Green, sRGB-encoded.
    pub g: u8,
    /// Blue, sRGB-encoded.
    pub b: u8,
}

impl Rgb {
    /// A colour from its three sRGB channels.
    pub const fn new(r: u8, g: u8, b: u8) -> Self {
        Self { r, g, b }
    }

    /// A colour from `0xRRGGBB`.
    pub const fn from_hex(hex: u32) -> Self {
        Self {
            r: (hex >> 16) as u8,
            g: (hex >> 8) as u8,
            b: hex as u8,
        }
    }

    /// Every channel multiplied by `factor` (clamped to 0..=1), as dim text does.
    pub fn scaled(self, factor: f32) -> Self {
        let f = factor.clamp(0.0, 1.0);
        let s = |c: u8| (f32::from(c) * f).round() as u8;
        Self::new(s(self.r), s(self.g), s(self.b))
    }

    /// The colour `t` of the way from `self` to `other` (0 is `self`, 1 is
    /// `other`, clamped), channel by channel in sRGB.
    pub fn mix(self, other: Self, t: f32) -> Self {
        let t = t.clamp(0.0, 1.0);
        let ch = |x: u8, y: u8| (f32::from(x) + (f32::from(y) - f32::from(x)) * t).round() as u8;
        Self::new(
            ch(self.r, other.r),
            ch(self.g, other.g),
            ch(self.b, other.b),
        )
    }
}

/// The colours a terminal refers to by name. The first sixteen are the ANSI
/// colours; the rest are the theme's special slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // The names say it all.
pub enum NamedColor {
    Black,
    Red,
    Green,
    Yellow,
    Blue,
    Magenta,
    Cyan,
    White,
    BrightBlack,
    BrightRed,
    BrightGreen,
    BrightYellow,
    BrightBlue,
    BrightMagenta,
    BrightCyan,
    BrightWhite,
    /// The default foreground.
    Foreground,
    /// The default background.
    Background,
    /// The cursor colour.
    Cursor,
    /// The default foreground, dimmed.
    DimForeground,
    /// The default foreground, brightened (bold text in some themes).
    BrightForeground,
    DimBlack,
    DimRed,
    DimGreen,
    DimYellow,
    DimBlue,
    DimMagenta,
    DimCyan,
    DimWhite,
}

impl NamedColor {
    /// The ANSI index (0..16) of a plain or bright colour, if it is one.
    pub fn ansi_index(self) -> Option<u8> {
        use NamedColor::*;
        let i = match self {
            Black => 0,
            Red => 1,
            Green => 2,
            Yellow => 3,
            Blue => 4,
            Magenta => 5,
            Cyan => 6,
            White => 7,
            BrightBlack => 8,
            BrightRed => 9,
            BrightGreen => 10,
            BrightYellow => 11,
            BrightBlue => 12,
            BrightMagenta => 13,
            BrightCyan => 14,
            BrightWhite => 15,
            _ => return None,
        };
        Some(i)
    }

    /// The ANSI index (0..8) a dim colour is derived from, if it is one.
    pub fn dim_base(self) -> Option<u8> {
        use NamedColor::*;
        let i = match self {
            DimBlack => 0,
            DimRed => 1,
            DimGreen => 2,
            DimYellow => 3,
            DimBlue => 4,
            DimMagenta => 5,
            DimCyan => 6,
            DimWhite => 7,
            _ => return None,
        };
        Some(i)
    }
}

/// A cell colour as the terminal stores it; the renderer's theme resolves
/// it to [`Rgb`], and `k` turns it into an SGR parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Color {
    /// A theme slot by name.
    Named(NamedColor),
    /// An entry of the 256-colour palette.
    Indexed(u8),
    /// A truecolor value, used as is.
    Rgb(Rgb),
}

impl Default for Color {
    fn default() -> Self {
        Color::Named(NamedColor::Foreground)
    }
}

impl From<Rgb> for Color {
    fn from(rgb: Rgb) -> Self {
        Color::Rgb(rgb)
    }
}

impl From<NamedColor> for Color {
    fn from(named: NamedColor) -> Self {
        Color::Named(named)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips() {
        assert_eq!(Rgb::from_hex(0x12_34_56), Rgb::new(0x12, 0x34, 0x56));
    }
}
