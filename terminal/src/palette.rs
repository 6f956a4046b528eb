//! The colours the terminal reports to applications (OSC 4/10/11/12 queries)
//! when the application has not set them itself: the renderer's theme, laid
//! out in alacritty_terminal's colour slots.

use alacritty_terminal::term::color::COUNT;
use alacritty_terminal::vte::ansi::{NamedColor, Rgb};

/// Every colour slot alacritty_terminal knows: 256 indexed colours followed by
/// the named special colours (foreground, background, cursor, dim variants…).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Palette {
    colors: [Rgb; COUNT],
}

impl Default for Palette {
    fn default() -> Self {
        Self::from_theme(&render_types::Theme::default())
    }
}

fn rgb(c: render_types::Rgb) -> Rgb {
    Rgb {
        r: c.r,
        g: c.g,
        b: c.b,
    }
}

impl Palette {
    /// The slots as `theme` colours them; dim colours as the renderer dims them.
    pub fn from_theme(theme: &render_types::Theme) -> Self {
        let mut colors = [Rgb::default(); COUNT];
        for (slot, color) in colors.iter_mut().zip(theme.palette.iter()) {
            *slot = rgb(*color);
        }
        colors[NamedColor::Foreground as usize] = rgb(theme.foreground);
        colors[NamedColor::Background as usize] = rgb(theme.background);
        colors[NamedColor::Cursor as usize] = rgb(theme.cursor);
        colors[NamedColor::BrightForeground as usize] = rgb(theme.palette[15]);
        colors[NamedColor::DimForeground as usize] =
            rgb(theme.foreground.scaled(render_types::DIM_FACTOR));
        for i in 0..8 {
            colors[NamedColor::DimBlack as usize + i] =
                rgb(theme.palette[i].scaled(render_types::DIM_FACTOR));
        }
        Self { colors }
    }

    /// The colour in slot `index` (an indexed colour below 256, a `NamedColor`
    /// discriminant above); out-of-range indices give the foreground.
    pub fn get(&self, index: usize) -> Rgb {
        self.colors
            .get(index)
            .copied()
            .unwrap_or(self.colors[NamedColor::Foreground as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_follow_the_theme() {
        let mut theme = render_types::Theme {
            background: render_types::Rgb::new(1, 2, 3),
            ..Default::default()
        };
        theme.palette[196] = render_types::Rgb::new(250, 0, 0);
        let p = Palette::from_theme(&theme);
        assert_eq!(
            p.get(NamedColor::Background as usize),
            Rgb { r: 1, g: 2, b: 3 }
        );
        assert_eq!(p.get(196), Rgb { r: 250, g: 0, b: 0 });
        assert_eq!(p.get(10_000), p.get(NamedColor::Foreground as usize));
    }
}
