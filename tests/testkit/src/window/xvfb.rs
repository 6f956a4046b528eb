//! A private X server (Xvfb) and the X tools tests drive it with.

use std::io::Read as _;
use std::process::{Child, Command, Stdio};

use super::Image;

/// A private X server for one test.
pub struct Xvfb {
    child: Child,
    pub display: String,
}

impl Xvfb {
    pub fn start() -> Self {
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1280x900x24",
                "-nolisten",
                "tcp",
                // The server resets (and forgets keymap changes) whenever
                // its last client leaves, as happens between two programs.
                "-noreset",
                // Auto-repeat only after a minute: on a loaded machine
                // xdotool can be descheduled between a key's press and its
                // release for longer than the default 660 ms, and the
                // server's repeats would type the key again.
                "-ardelay",
                "60000",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb is needed for window tests (apt-get install xvfb; .ci/run installs it)");
        // Xvfb writes the display number it chose, then a newline.
        let mut out = child.stdout.take().expect("piped stdout");
        let mut number = String::new();
        let mut byte = [0u8; 1];
        while out.read(&mut byte).unwrap_or(0) == 1 && byte[0] != b'\n' {
            number.push(byte[0] as char);
        }
        assert!(!number.is_empty(), "Xvfb did not report a display");
        Self {
            child,
            display: format!(":{}", number.trim()),
        }
    }

    pub fn xdotool(&self, args: &[&str]) -> String {
        let out = Command::new("xdotool")
            .args(args)
            .env("DISPLAY", &self.display)
            .output()
            .expect("xdotool (apt-get install xdotool)");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// What an X selection (`clipboard`, `primary`) holds now, as another
    /// program pasting it would get it; empty when nothing owns it.
    pub fn selection(&self, which: &str) -> String {
        // `timeout`: a selection owner that never answers must fail the
        // test, not hang it.
        let out = Command::new("timeout")
            .args(["5", "xclip", "-o", "-selection", which])
            .env("DISPLAY", &self.display)
            .output()
            .expect("timeout and xclip (apt-get install xclip; .ci/run installs it)");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// What the window shows now, read back from the X server with `xwd`.
    pub fn screenshot(&self, window: &str) -> Image {
        let out = Command::new("xwd")
            .args(["-silent", "-nobdrs", "-id", window])
            .env("DISPLAY", &self.display)
            .output()
            .expect("xwd (apt-get install x11-apps; .ci/run installs it)");
        assert!(out.status.success(), "xwd failed: {:?}", out.status);
        Image::from_xwd(&out.stdout)
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
