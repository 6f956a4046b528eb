//! What koi draws around the panes: the tab bar's labels and the colours
//! of the chrome (dividers, tab bar, search matches).

use crate::color::Rgb;
use crate::theme::Theme;

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

/// Colours of the parts koi draws around the panes and over them (the
/// bars and hints), all derived from the terminal's [`Theme`] so a theme
/// colours the whole window, not only the grid.
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
    /// Behind the one-row bars over a pane (search, suggestion).
    pub strip_background: Rgb,
    /// Their text.
    pub strip_foreground: Rgb,
    /// Behind the suggestion bar: tinted green, apart from the search bar.
    pub suggest_background: Rgb,
    /// Their secondary text (key hints, labels).
    pub strip_dim: Rgb,
    /// Errors and failures on any bar.
    pub error: Rgb,
    /// Behind the fix hint on a failed command's line.
    pub hint_background: Rgb,
    /// The fix hint's text.
    pub hint_foreground: Rgb,
    /// Behind a link hint's label.
    pub label_background: Rgb,
    /// A link hint's label text.
    pub label_foreground: Rgb,
    /// Behind the hovered link's address on the last row.
    pub link_background: Rgb,
    /// Behind a question koi asks (the top row).
    pub question_background: Rgb,
    /// Behind the config error banner (the top row).
    pub banner_background: Rgb,
    /// Text on the link, question and banner rows.
    pub notice_foreground: Rgb,
}

/// How far the tab bar's background is pulled toward the text colour:
/// enough to read as a bar, not as a selection.
const BAR_LIFT: f32 = 0.06;
/// The active tab is tinted with the theme's blue: set apart from the
/// bar, and off the line of greys that antialiased text draws.
const ACTIVE_TINT: f32 = 0.3;
/// Dividers: visible lines that do not compete with the text.
const DIVIDER_LIFT: f32 = 0.3;
/// Inactive and secondary text sits this far toward the background.
const DIM_MIX: f32 = 0.4;
/// The bars over a pane stand a little further apart than the tab bar,
/// since they cover the pane's own text.
const STRIP_LIFT: f32 = 0.1;
/// A background tinted by a status colour (red for failures and errors,
/// yellow for questions, blue for links): enough hue to say which, little
/// enough that the theme's text colour stays readable on it.
const TINT: f32 = 0.35;
/// The suggestion bar's green is a hint of hue, not a status.
const SUGGEST_TINT: f32 = 0.15;
/// The config error banner is the loudest row koi draws.
const BANNER_TINT: f32 = 0.55;

impl ChromeColors {
    /// The chrome for `theme`: greys mixed from its background and text
    /// colours, status hues from its ANSI red, yellow and blue.
    pub fn from_theme(theme: &Theme) -> Self {
        let (fg, bg) = (theme.foreground, theme.background);
        let p = &theme.palette;
        let (red, yellow, blue) = (p[1], p[3], p[4]);
        let strip = bg.mix(fg, STRIP_LIFT);
        Self {
            divider: bg.mix(fg, DIVIDER_LIFT),
            bar_background: bg.mix(fg, BAR_LIFT),
            bar_foreground: fg.mix(bg, DIM_MIX),
            active_background: bg.mix(blue, ACTIVE_TINT),
            active_foreground: fg,
            mark: yellow,
            failed: red,
            match_background: yellow,
            current_background: blue,
            match_foreground: bg,
            strip_background: strip,
            strip_foreground: fg,
            strip_dim: fg.mix(strip, DIM_MIX),
            suggest_background: bg.mix(p[2], SUGGEST_TINT),
            error: red,
            hint_background: bg.mix(red, TINT),
            hint_foreground: fg,
            label_background: yellow,
            label_foreground: bg,
            link_background: bg.mix(blue, TINT),
            question_background: bg.mix(yellow, TINT),
            banner_background: bg.mix(red, BANNER_TINT),
            notice_foreground: fg,
        }
    }
}

impl Default for ChromeColors {
    /// The chrome of koi's default theme.
    fn default() -> Self {
        Self::from_theme(&Theme::default())
    }
}
