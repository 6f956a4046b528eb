//! Facts about the terminal `k` runs in.

use std::fs::OpenOptions;
use std::io::IsTerminal;
use std::os::fd::AsRawFd;

/// Whether someone can be asked: a controlling terminal exists and `k` is
/// attached to it through stdin or stderr (so `cmd | k "…"` still asks,
/// while an editor or script with every stream piped does not).
pub fn has_tty() -> bool {
    let attached = std::io::stdin().is_terminal() || std::io::stderr().is_terminal();
    attached
        && OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .is_ok()
}

/// The terminal's size (columns, rows) from stdout, stderr or stdin.
pub fn size() -> Option<(u16, u16)> {
    let fds = [
        std::io::stdout().as_raw_fd(),
        std::io::stderr().as_raw_fd(),
        std::io::stdin().as_raw_fd(),
    ];
    fds.into_iter().find_map(size_of_fd)
}

fn size_of_fd(fd: i32) -> Option<(u16, u16)> {
    let mut ws = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one `winsize` through the pointer, which
    // points at a live, properly aligned local; a bad fd only yields -1.
    let r = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut ws) };
    (r == 0 && ws.ws_col > 0 && ws.ws_row > 0).then_some((ws.ws_col, ws.ws_row))
}
