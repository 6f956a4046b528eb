//! What koi does with the sequences the scanner finds: the OSC marks it
//! tracks, the queries alacritty_terminal leaves unanswered, DECSTR, and the
//! state the core keeps private that the answers need (margins, level).

use super::osc_scan::{self, Marker};
use super::seq_scan::{DcsEnd, Header, Seq};

/// DEC private modes koi answers instead of the core, which calls them
/// unknown (`0`): ?66 DECNKM, which the core keeps as its application
/// keypad flag, and modes koi can never set (132 columns, reverse video,
/// left/right margins), which are permanently reset.
pub(crate) const ANSWERED_PRIVATE_MODES: &[u16] = &[66, 3, 5, 69];

/// DECNKM's mode number.
const NUMERIC_KEYPAD_MODE: u16 = 66;

/// The xterm mode that saves and restores the cursor.
const SAVE_CURSOR_MODE: u16 = 1048;

/// ANSI modes koi answers: those ECMA-48 defines that no terminal of this
/// kind implements (GATM, SRTM, VEM, HEM, PUM, FEAM, FETM, MATM, TTM, SATM,
/// TSM, EBM). xterm reports each as permanently reset; so does koi.
pub(crate) const ANSWERED_ANSI_MODES: &[u16] = &[1, 5, 7, 10, 11, 13, 14, 15, 16, 17, 18, 19];

/// The conformance level reported before an application picks one with
/// DECSCL: VT420, the level of the reports koi answers (DECRQCRA, DECRQSS).
pub(crate) const DEFAULT_LEVEL: u16 = 64;

/// A DECRQSS request: which setting the application asks about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Setting {
    Sgr,
    TopBottomMargins,
    LeftRightMargins,
    CursorStyle,
    ConformanceLevel,
    /// DECSLPP, DECSNLS: lines per page and per screen.
    LinesPerPage,
    LinesPerScreen,
    /// DECSCPP: columns per page.
    ColumnsPerPage,
    /// DECSASD, DECSSDT: koi has no status line.
    ActiveStatusDisplay,
    StatusLineType,
    Unknown,
}

/// An XTWINOPS report that only reads the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WindowReport {
    /// 11: iconified or not.
    State,
    /// 13: position on the screen.
    Position,
    /// 15: the screen's size in pixels.
    ScreenPixels,
    /// 16: a cell's size in pixels.
    CellPixels,
    /// 19: the screen's size in characters.
    ScreenChars,
}

/// The rectangle of a DECRQCRA, as sent: 0 means "the default edge".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawRect {
    pub(crate) top: u16,
    pub(crate) left: u16,
    pub(crate) bottom: u16,
    pub(crate) right: u16,
}

/// A DEC device status report (`CSI ? Ps n`) the core does not answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DecStatus {
    /// ?6: DECXCPR, the cursor position with the page.
    CursorPosition,
    /// ?15: printer.
    Printer,
    /// ?25: user-defined keys.
    UserKeys,
    /// ?26: keyboard.
    Keyboard,
    /// ?53 and ?55: the DEC locator.
    Locator,
    /// ?56: the locator's type.
    LocatorType,
    /// ?62: DECMSR, macro space.
    MacroSpace,
    /// ?63: DECCKSR, the checksum of the macro memory, with its id.
    MemoryChecksum(u16),
    /// ?75: data integrity.
    DataIntegrity,
    /// ?85: multiple sessions.
    Sessions,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    Marker(Marker),
    /// DECRQCRA: checksum of a rectangle.
    Checksum {
        id: u16,
        rect: RawRect,
    },
    /// DECRQSS.
    StatusString(Setting),
    /// DECRQM for one of [`ANSWERED_PRIVATE_MODES`] or [`ANSWERED_ANSI_MODES`].
    Mode {
        private: bool,
        mode: u16,
    },
    Window(WindowReport),
    /// XTVERSION.
    Version,
    /// `CSI ? Ps n`.
    DecStatus(DecStatus),
    /// CPR (`CSI 6 n`): the core ignores origin mode in its answer.
    CursorPosition,
    /// DECSET/DECRESET ?66 (DECNKM), which the core only knows as ESC =/>.
    NumericKeypad(bool),
    /// DECSET ?1048 saves the cursor as DECSC does, DECRESET restores it;
    /// the core does not know the mode.
    SaveCursor(bool),
    /// DECSTR.
    SoftReset,
    /// DECSTBM as the application sent it (the core keeps its copy private).
    SetMargins {
        top: u16,
        bottom: u16,
    },
    /// DECSCL.
    SetLevel(u16),
    /// RIS.
    FullReset,
    /// A picture for [`crate::graphics`].
    Picture(PictureRequest),
    /// DA1 (`CSI c`): koi announces sixel (attribute 4) in its answer.
    PrimaryAttributes,
    /// XTSMGRAPHICS (`CSI ? Pi ; Pa ; Pv S`).
    GraphicsAttribute {
        item: u16,
        action: u16,
    },
}

/// A picture sequence, as sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PictureRequest {
    /// A kitty graphics APC body after its `G`.
    Kitty(Vec<u8>),
    /// A sixel string: the DCS parameters and everything after the `q`.
    Sixel { params: Vec<u16>, data: Vec<u8> },
    /// An iTerm2 inline image: the OSC payload after `1337;File=`.
    Iterm(Vec<u8>),
}

impl Action {
    /// Whether acting needs the grid exactly as it is at this point, so a
    /// pending synchronized update must be applied first.
    pub(crate) fn needs_current_state(&self) -> bool {
        !matches!(
            self,
            Action::Marker(_) | Action::SetMargins { .. } | Action::SetLevel(_) | Action::FullReset
        )
    }
}

/// The action a sequence calls for, if koi acts on it.
pub(crate) fn classify(seq: Seq<'_>) -> Option<Action> {
    match seq {
        Seq::Osc(Some(payload)) if payload.starts_with(crate::graphics::ITERM_PREFIX) => {
            Some(Action::Picture(PictureRequest::Iterm(
                payload[crate::graphics::ITERM_PREFIX.len()..].to_vec(),
            )))
        }
        Seq::Osc(payload) => payload.and_then(osc_scan::parse).map(Action::Marker),
        Seq::Apc(Some([b'G', body @ ..])) => {
            Some(Action::Picture(PictureRequest::Kitty(body.to_vec())))
        }
        Seq::Apc(_) => None,
        Seq::Csi(h) if !h.ignored => csi(h),
        Seq::Csi(_) => None,
        Seq::Esc {
            intermediates: [],
            action: b'c',
        } => Some(Action::FullReset),
        Seq::Esc { .. } => None,
        Seq::Dcs {
            header,
            payload: Some(payload),
            end: DcsEnd::Terminated,
        } if !header.ignored && header.action == b'q' && header.intermediates() == b"$" => {
            Some(Action::StatusString(setting(payload)))
        }
        Seq::Dcs {
            header,
            payload: Some(payload),
            end: DcsEnd::Terminated,
        } if !header.ignored && header.action == b'q' && header.intermediates().is_empty() => {
            Some(Action::Picture(PictureRequest::Sixel {
                params: header.params.groups().map(|g| g[0]).collect(),
                data: payload.to_vec(),
            }))
        }
        Seq::Dcs { .. } => None,
    }
}

/// The final bytes of the plain CSIs (parameters only, no private marker
/// or intermediate) that [`classify`] may act on: the reader's scanner
/// skips every other plain CSI without reporting it.
pub(crate) const PLAIN_CSI_FINALS: &[u8] = b"cnrt";

fn csi(h: &Header) -> Option<Action> {
    let p = &h.params;
    match (h.action, h.intermediates()) {
        (b'y', b"*") => Some(Action::Checksum {
            id: p.get(0).unwrap_or(0),
            rect: RawRect {
                top: p.get(2).unwrap_or(0),
                left: p.get(3).unwrap_or(0),
                bottom: p.get(4).unwrap_or(0),
                right: p.get(5).unwrap_or(0),
            },
        }),
        (b'p', b"!") => Some(Action::SoftReset),
        (b'c', b"") if p.or(0, 0) == 0 => Some(Action::PrimaryAttributes),
        (b'S', b"?") => Some(Action::GraphicsAttribute {
            item: p.or(0, 0),
            action: p.or(1, 0),
        }),
        (b'n', b"") if p.or(0, 0) == 6 => Some(Action::CursorPosition),
        (b'n', b"?") => {
            let status = match p.or(0, 0) {
                6 => DecStatus::CursorPosition,
                15 => DecStatus::Printer,
                25 => DecStatus::UserKeys,
                26 => DecStatus::Keyboard,
                53 | 55 => DecStatus::Locator,
                56 => DecStatus::LocatorType,
                62 => DecStatus::MacroSpace,
                63 => DecStatus::MemoryChecksum(p.get(1).unwrap_or(0)),
                75 => DecStatus::DataIntegrity,
                85 => DecStatus::Sessions,
                _ => return None,
            };
            Some(Action::DecStatus(status))
        }
        (b'h' | b'l', b"?") if p.groups().any(|g| g[0] == NUMERIC_KEYPAD_MODE) => {
            Some(Action::NumericKeypad(h.action == b'h'))
        }
        (b'h' | b'l', b"?") if p.groups().any(|g| g[0] == SAVE_CURSOR_MODE) => {
            Some(Action::SaveCursor(h.action == b'h'))
        }
        (b'q', b">") if p.or(0, 0) == 0 => Some(Action::Version),
        (b't', b"") => {
            let report = match p.or(0, 0) {
                11 => WindowReport::State,
                13 => WindowReport::Position,
                15 => WindowReport::ScreenPixels,
                16 => WindowReport::CellPixels,
                19 => WindowReport::ScreenChars,
                _ => return None,
            };
            Some(Action::Window(report))
        }
        (b'p', b"?$") => {
            let mode = p.or(0, 0);
            ANSWERED_PRIVATE_MODES
                .contains(&mode)
                .then_some(Action::Mode {
                    private: true,
                    mode,
                })
        }
        (b'p', b"$") => {
            let mode = p.or(0, 0);
            ANSWERED_ANSI_MODES.contains(&mode).then_some(Action::Mode {
                private: false,
                mode,
            })
        }
        (b'p', b"\"") => {
            let level = p.or(0, 0);
            (61..=65)
                .contains(&level)
                .then_some(Action::SetLevel(level))
        }
        (b'r', b"") => Some(Action::SetMargins {
            top: p.or(0, 1),
            bottom: p.get(1).unwrap_or(0),
        }),
        _ => None,
    }
}

fn setting(payload: &[u8]) -> Setting {
    match payload {
        b"m" => Setting::Sgr,
        b"r" => Setting::TopBottomMargins,
        b"s" => Setting::LeftRightMargins,
        b" q" => Setting::CursorStyle,
        b"\"p" => Setting::ConformanceLevel,
        b"t" => Setting::LinesPerPage,
        b"*|" => Setting::LinesPerScreen,
        b"$|" => Setting::ColumnsPerPage,
        b"$}" => Setting::ActiveStatusDisplay,
        b"$~" => Setting::StatusLineType,
        _ => Setting::Unknown,
    }
}

/// State the answers need that the core does not expose.
#[derive(Clone, Debug)]
pub(crate) struct Tracked {
    /// The scrolling region as the core applied it (1-based, inclusive),
    /// with the screen height it was set for: a resize resets the core's.
    margins: Option<(usize, usize, usize)>,
    pub(crate) level: u16,
}

impl Default for Tracked {
    fn default() -> Self {
        Self {
            margins: None,
            level: DEFAULT_LEVEL,
        }
    }
}

impl Tracked {
    /// Mirror the core's DECSTBM: an empty region is refused, the rest is
    /// clamped to the screen.
    pub(crate) fn set_margins(&mut self, top: u16, bottom: u16, rows: usize) {
        let top = usize::from(top.max(1));
        let bottom = match bottom {
            0 => rows,
            b => usize::from(b),
        };
        if top >= bottom {
            return;
        }
        self.margins = Some((top.min(rows + 1), bottom.min(rows), rows));
    }

    pub(crate) fn reset_margins(&mut self) {
        self.margins = None;
    }

    /// The scrolling region now, 1-based and inclusive.
    pub(crate) fn margins(&self, rows: usize) -> (usize, usize) {
        match self.margins {
            Some((top, bottom, set_for)) if set_for == rows => (top, bottom),
            _ => (1, rows),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::seq_scan::SeqScanner;
    use super::*;

    fn actions(bytes: &[u8]) -> Vec<Action> {
        let mut scanner = SeqScanner::default();
        let mut out = Vec::new();
        scanner.scan(bytes, |_, seq| out.extend(classify(seq)));
        out
    }

    #[test]
    fn plain_csis_with_other_finals_are_never_acted_on() {
        for last in 0x40..=0x7e_u8 {
            if PLAIN_CSI_FINALS.contains(&last) {
                continue;
            }
            for params in ["", "0", "6", "1;2", "11", "13;1", "6;6;6;6;6;6", ";;;"] {
                let seq = [b"\x1b[".as_slice(), params.as_bytes(), &[last]].concat();
                assert!(
                    actions(&seq).is_empty(),
                    "{:?} is acted on: add its final to PLAIN_CSI_FINALS",
                    String::from_utf8_lossy(&seq)
                );
            }
        }
    }

    #[test]
    fn recognises_each_request() {
        assert_eq!(
            actions(
                b"\x1b[7;1;2;3;4;5*y\x1b[!p\x1b[>q\x1b[19t\x1b[?66$p\x1b[?1$p\x1b[4$p\x1b[64;1\"p"
            ),
            vec![
                Action::Checksum {
                    id: 7,
                    rect: RawRect {
                        top: 2,
                        left: 3,
                        bottom: 4,
                        right: 5
                    }
                },
                Action::SoftReset,
                Action::Version,
                Action::Window(WindowReport::ScreenChars),
                Action::Mode {
                    private: true,
                    mode: 66
                },
                Action::SetLevel(64),
            ]
        );
        assert_eq!(
            actions(b"\x1bP$qm\x1b\\\x1bP$q q\x1b\\\x1bP$qx\x1b\\\x1bP$qr\x18\x1bc"),
            vec![
                Action::StatusString(Setting::Sgr),
                Action::StatusString(Setting::CursorStyle),
                Action::StatusString(Setting::Unknown),
                Action::FullReset,
            ]
        );
    }

    #[test]
    fn leaves_window_changing_ops_and_the_title_report_alone() {
        assert!(actions(b"\x1b[8;25;80t\x1b[21t\x1b[20t\x1b[1t\x1b[3;0;0t\x1b[>1q").is_empty());
    }

    #[test]
    fn margins_follow_the_cores_rules() {
        let mut t = Tracked::default();
        assert_eq!(t.margins(24), (1, 24));
        t.set_margins(3, 10, 24);
        assert_eq!(t.margins(24), (3, 10));
        t.set_margins(10, 3, 24);
        assert_eq!(t.margins(24), (3, 10), "an empty region is refused");
        t.set_margins(5, 99, 24);
        assert_eq!(t.margins(24), (5, 24));
        assert_eq!(t.margins(30), (1, 30), "a resize resets the region");
        t.set_margins(0, 0, 24);
        assert_eq!(t.margins(24), (1, 24));
    }
}
