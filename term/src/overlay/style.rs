//! The overlay's colours, derived from the terminal's [`Theme`] so the panel
//! matches whatever palette the user picked, plus small span helpers.

use render::{Color, Rgb, Theme};

/// How far the panel background is pulled toward the foreground: enough to
/// stand apart from the terminal underneath without looking like a selection.
const PANEL_LIFT: f32 = 0.06;
/// How far code-block backgrounds are pulled toward the foreground: a step
/// above the panel so fenced code reads as a distinct box.
const CODE_LIFT: f32 = 0.14;
/// How far dim text sits between foreground and background.
const DIM_MIX: f32 = 0.45;
/// How much warning colour tints the approval dialog's background.
const APPROVAL_TINT: f32 = 0.18;

/// Every colour the overlay draws with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    /// Panel background.
    pub bg: Color,
    /// Normal text.
    pub fg: Color,
    /// Secondary text (hints, previews, reasoning).
    pub dim: Color,
    /// Titles, headings, links.
    pub accent: Color,
    /// The "You" label.
    pub user: Color,
    /// The panel border.
    pub border: Color,
    /// Fenced code background (and inline code).
    pub code_bg: Color,
    /// Language keywords.
    pub keyword: Color,
    /// String literals.
    pub string: Color,
    /// Comments.
    pub comment: Color,
    /// Number literals.
    pub number: Color,
    /// Errors and removed diff lines.
    pub error: Color,
    /// Success marks and added diff lines.
    pub success: Color,
    /// Spinners, warnings and the approval dialog's title.
    pub warning: Color,
    /// The approval dialog's background.
    pub approval_bg: Color,
    /// Background of selected text: the terminal's selection colour, so a
    /// selection looks the same on both sides of the panel's border.
    pub selection_bg: Color,
    /// Text colour of selected text; `None` keeps each span's own.
    pub selection_fg: Option<Color>,
}

fn mix(a: Rgb, b: Rgb, t: f32) -> Rgb {
    a.mix(b, t)
}

impl Palette {
    /// The palette for `theme`.
    pub fn from_theme(theme: &Theme) -> Self {
        let p = &theme.palette;
        let (fg, bg) = (theme.foreground, theme.background);
        let panel = mix(bg, fg, PANEL_LIFT);
        Self {
            bg: Color::Rgb(panel),
            fg: Color::Rgb(fg),
            dim: Color::Rgb(mix(fg, panel, DIM_MIX)),
            accent: Color::Rgb(p[12]),
            user: Color::Rgb(p[14]),
            border: Color::Rgb(p[8]),
            code_bg: Color::Rgb(mix(bg, fg, CODE_LIFT)),
            keyword: Color::Rgb(p[13]),
            string: Color::Rgb(p[10]),
            comment: Color::Rgb(p[8]),
            number: Color::Rgb(p[11]),
            error: Color::Rgb(p[9]),
            success: Color::Rgb(p[10]),
            warning: Color::Rgb(p[11]),
            approval_bg: Color::Rgb(mix(panel, p[3], APPROVAL_TINT)),
            selection_bg: Color::Rgb(theme.selection_background),
            selection_fg: theme.selection_foreground.map(Color::Rgb),
        }
    }
}

impl Palette {
    /// The colours answers are laid out with: the panel's own, with
    /// functions in the accent and types in the user colour so code has
    /// as many hues as the theme offers.
    pub fn answer(&self) -> koi_markdown::Palette {
        koi_markdown::Palette {
            fg: self.fg,
            dim: self.dim,
            accent: self.accent,
            code_bg: Some(self.code_bg),
            keyword: self.keyword,
            string: self.string,
            comment: self.comment,
            number: self.number,
            function: self.accent,
            type_name: self.user,
        }
    }
}

impl Default for Palette {
    fn default() -> Self {
        Self::from_theme(&Theme::default())
    }
}

/// The plain text of a line.
pub(crate) fn line_text(line: &render::StyledLine) -> String {
    line.spans.iter().map(|s| s.text.as_str()).collect()
}
