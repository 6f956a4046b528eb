//! What koi draws around the panes: the tab bar's labels and the colours
//! of the chrome (dividers, tab bar, search matches).

use crate::color::Rgb;

/// One tab's label in the bar.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct TabLabel {
    /// The title (the focused pane's).
    pub title: String,
    /// The tab shown now.
    pub active: bool,
    /// A background pane printed since the tab was last shown.
    pub activity: bool,
    /// A pane rang the bell since the tab was last shown.
    pub bell: bool,
    /// A pane's last command failed (OSC 133 exit status).
    pub failed: bool,
}

/// Colours of the parts koi draws around the panes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChromeColors {
    /// Divider lines.
    pub divider: Rgb,
    /// The bar behind inactive tabs.
    pub bar_background: Rgb,
    /// An inactive tab's text.
    pub bar_foreground: Rgb,
    /// The active tab's background.
    pub active_background: Rgb,
    /// The active tab's text.
    pub active_foreground: Rgb,
    /// Activity and bell marks.
    pub mark: Rgb,
    /// The failed-command mark.
    pub failed: Rgb,
    /// Behind every search match in view.
    pub match_background: Rgb,
    /// Behind the current match.
    pub current_background: Rgb,
    /// Text on a highlighted match.
    pub match_foreground: Rgb,
}

impl Default for ChromeColors {
    fn default() -> Self {
        Self {
            divider: Rgb::new(0x5c, 0x63, 0x70),
            bar_background: Rgb::new(0x1e, 0x22, 0x28),
            bar_foreground: Rgb::new(0x9d, 0xa5, 0xb4),
            active_background: Rgb::new(0x3e, 0x44, 0x51),
            active_foreground: Rgb::new(0xff, 0xff, 0xff),
            mark: Rgb::new(0xe5, 0xc0, 0x7b),
            failed: Rgb::new(0xe0, 0x6c, 0x75),
            match_background: Rgb::new(0xd1, 0x9a, 0x66),
            current_background: Rgb::new(0x61, 0xaf, 0xef),
            match_foreground: Rgb::new(0x10, 0x10, 0x10),
        }
    }
}
