//! Mouse reports for applications that asked for them (modes 1000/1002/1003),
//! in SGR (1006), UTF-8 (1005) or the legacy X10 byte encoding.

use std::io::Write as _;

use alacritty_terminal::term::TermMode;

use super::Mods;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MouseButton {
    Left,
    Middle,
    Right,
    WheelUp,
    WheelDown,
    WheelLeft,
    WheelRight,
    /// Extra buttons 8–11 (back, forward…).
    Extra(u8),
    /// Motion with no button held.
    NoButton,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MouseAction {
    Press,
    Release,
    Motion,
}

/// A mouse event at a 0-based grid cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MouseReport {
    pub button: MouseButton,
    pub action: MouseAction,
    pub col: u32,
    pub row: u32,
    pub mods: Mods,
}

/// Legacy reports add 32 to every byte and so cannot go past this coordinate.
const LEGACY_MAX_COORD: u32 = 223;
/// UTF-8 mode encodes coordinates as characters up to this value.
const UTF8_MAX_COORD: u32 = 2015;

impl MouseButton {
    fn code(self) -> u32 {
        match self {
            MouseButton::Left => 0,
            MouseButton::Middle => 1,
            MouseButton::Right => 2,
            MouseButton::NoButton => 3,
            MouseButton::WheelUp => 64,
            MouseButton::WheelDown => 65,
            MouseButton::WheelLeft => 66,
            MouseButton::WheelRight => 67,
            MouseButton::Extra(n) => 128 + u32::from(n.clamp(8, 11) - 8),
        }
    }

    fn is_wheel(self) -> bool {
        matches!(
            self,
            MouseButton::WheelUp
                | MouseButton::WheelDown
                | MouseButton::WheelLeft
                | MouseButton::WheelRight
        )
    }
}

/// Whether the application wants this event at all.
fn wanted(report: &MouseReport, mode: TermMode) -> bool {
    match report.action {
        MouseAction::Press | MouseAction::Release => mode.intersects(TermMode::MOUSE_MODE),
        MouseAction::Motion if report.button == MouseButton::NoButton => {
            mode.contains(TermMode::MOUSE_MOTION)
        }
        MouseAction::Motion => mode.intersects(TermMode::MOUSE_MOTION | TermMode::MOUSE_DRAG),
    }
}

/// The report for `report` under `mode`, or `None` if the application did
/// not ask for it or it cannot be encoded (legacy coordinates past 223).
pub fn encode_mouse(report: &MouseReport, mode: TermMode) -> Option<Vec<u8>> {
    if !wanted(report, mode) || (report.action == MouseAction::Release && report.button.is_wheel())
    {
        return None;
    }
    let mut code = report.button.code();
    if report.action == MouseAction::Motion {
        code += 32;
    }
    code += 4 * u32::from(report.mods.shift)
        + 8 * u32::from(report.mods.alt)
        + 16 * u32::from(report.mods.ctrl);
    let (x, y) = (report.col.saturating_add(1), report.row.saturating_add(1));

    let mut out = Vec::with_capacity(16);
    if mode.contains(TermMode::SGR_MOUSE) {
        let end = if report.action == MouseAction::Release {
            'm'
        } else {
            'M'
        };
        let _ = write!(out, "\x1b[<{code};{x};{y}{end}");
        return Some(out);
    }
    // Legacy encodings cannot say which button was released.
    if report.action == MouseAction::Release {
        code = (code & !0b11) | 3;
    }
    out.extend_from_slice(b"\x1b[M");
    let utf8 = mode.contains(TermMode::UTF8_MOUSE);
    for value in [code, x, y] {
        push_coord(&mut out, value + 32, utf8)?;
    }
    Some(out)
}

fn push_coord(out: &mut Vec<u8>, value: u32, utf8: bool) -> Option<()> {
    let limit = if utf8 {
        UTF8_MAX_COORD
    } else {
        LEGACY_MAX_COORD
    } + 32;
    if value > limit {
        return None;
    }
    if utf8 && value >= 128 {
        let c = char::from_u32(value)?;
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    } else {
        out.push(u8::try_from(value).ok()?);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(
        button: MouseButton,
        action: MouseAction,
        col: u32,
        row: u32,
        mods: Mods,
    ) -> MouseReport {
        MouseReport {
            button,
            action,
            col,
            row,
            mods,
        }
    }

    const CLICK: TermMode = TermMode::MOUSE_REPORT_CLICK;

    #[test]
    fn nothing_without_a_mouse_mode() {
        let r = report(MouseButton::Left, MouseAction::Press, 0, 0, Mods::NONE);
        assert_eq!(encode_mouse(&r, TermMode::empty()), None);
    }

    #[test]
    fn table() {
        use MouseAction::*;
        use MouseButton::*;
        let sgr = CLICK | TermMode::SGR_MOUSE;
        let drag = TermMode::MOUSE_DRAG | TermMode::SGR_MOUSE;
        let any = TermMode::MOUSE_MOTION | TermMode::SGR_MOUSE;
        let cases: &[(MouseReport, TermMode, Option<&[u8]>)] = &[
            (
                report(Left, Press, 0, 0, Mods::NONE),
                sgr,
                Some(b"\x1b[<0;1;1M"),
            ),
            (
                report(Left, Release, 4, 2, Mods::NONE),
                sgr,
                Some(b"\x1b[<0;5;3m"),
            ),
            (
                report(Right, Press, 9, 9, Mods::CTRL),
                sgr,
                Some(b"\x1b[<18;10;10M"),
            ),
            (
                report(Middle, Press, 0, 0, Mods::SHIFT.with(Mods::ALT)),
                sgr,
                Some(b"\x1b[<13;1;1M"),
            ),
            (
                report(WheelUp, Press, 1, 1, Mods::NONE),
                sgr,
                Some(b"\x1b[<64;2;2M"),
            ),
            (
                report(WheelDown, Press, 1, 1, Mods::NONE),
                sgr,
                Some(b"\x1b[<65;2;2M"),
            ),
            (report(WheelDown, Release, 1, 1, Mods::NONE), sgr, None),
            (report(Left, Motion, 3, 3, Mods::NONE), sgr, None),
            (
                report(Left, Motion, 3, 3, Mods::NONE),
                drag,
                Some(b"\x1b[<32;4;4M"),
            ),
            (report(NoButton, Motion, 3, 3, Mods::NONE), drag, None),
            (
                report(NoButton, Motion, 3, 3, Mods::NONE),
                any,
                Some(b"\x1b[<35;4;4M"),
            ),
            (
                report(Extra(8), Press, 0, 0, Mods::NONE),
                sgr,
                Some(b"\x1b[<128;1;1M"),
            ),
            (
                report(Left, Press, 300, 400, Mods::NONE),
                sgr,
                Some(b"\x1b[<0;301;401M"),
            ),
            // Legacy X10: 32 + code, 32 + x, 32 + y.
            (
                report(Left, Press, 0, 0, Mods::NONE),
                CLICK,
                Some(b"\x1b[M !!"),
            ),
            (
                report(Right, Release, 1, 2, Mods::NONE),
                CLICK,
                Some(b"\x1b[M#\"#"),
            ),
            (
                report(WheelUp, Press, 0, 0, Mods::NONE),
                CLICK,
                Some(b"\x1b[M`!!"),
            ),
            (
                report(Left, Press, 222, 0, Mods::NONE),
                CLICK,
                Some(b"\x1b[M \xff!"),
            ),
            (report(Left, Press, 223, 0, Mods::NONE), CLICK, None),
            // UTF-8 (1005) goes further.
            (
                report(Left, Press, 300, 0, Mods::NONE),
                CLICK | TermMode::UTF8_MOUSE,
                Some("\x1b[M \u{14d}!".as_bytes()),
            ),
        ];
        for (i, (r, mode, want)) in cases.iter().enumerate() {
            assert_eq!(
                encode_mouse(r, *mode).as_deref(),
                *want,
                "case {i}: {r:?} in {mode:?}"
            );
        }
    }
}
