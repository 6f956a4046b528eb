//! The shell starts on a thread of its own while the window and the GPU
//! come up (`term/src/app/startup.rs`). It must start at the window's final
//! size, cell pixels included, and no SIGWINCH may follow for a size that
//! did not change.

use std::path::Path;

use crate::harness::{Image, Koi, Xvfb};
use crate::{write_config, EXIT_WAIT};

/// Prints the PTY's size as the program sees it first: rows, columns,
/// width and height in pixels.
const PRINT_SIZE: &str = "import fcntl, struct, termios; \
    r, c, w, h = struct.unpack('4H', fcntl.ioctl(0, termios.TIOCGWINSZ, bytes(8))); \
    print('SIZE', r, c, w, h)";

#[test]
fn the_shell_starts_at_the_windows_final_size_and_gets_no_sigwinch() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("koi.toml");
    // 40x10 cells, no padding: the window is the grid.
    write_config(&config, "#101418", "");
    // The trap is set before koi's window exists; a SIGWINCH at any point
    // until END would print WINCH.
    let script =
        format!("trap 'echo WINCH' WINCH; python3 -c \"{PRINT_SIZE}\"; sleep 1.5; echo END");
    let koi = Koi::run(&x, dir.path(), &config, &["bash", "-c", &script]);
    let (code, stderr, dump) = koi.wait(EXIT_WAIT);
    assert_eq!(code, Some(0), "{stderr}");
    let text = std::fs::read_to_string(&dump).unwrap();
    assert!(text.contains("END"), "{text}");
    assert!(!text.contains("WINCH"), "the shell got a SIGWINCH:\n{text}");
    let size: Vec<u32> = text
        .lines()
        .find_map(|line| line.strip_prefix("SIZE "))
        .unwrap_or_else(|| panic!("no size printed:\n{text}"))
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(size[..2], [10, 40], "{text}");
    // The pixels are the window's (fonts were measured before the shell
    // started), not 0.
    let shown = Image::load(Path::new(&format!("{}.png", dump.display())));
    assert_eq!(
        (size[2], size[3]),
        (shown.width as u32, shown.height as u32),
        "{text}"
    );
}
