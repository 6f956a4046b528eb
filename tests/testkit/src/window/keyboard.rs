//! The test server's keyboard: keysyms put on keys for good, NumLock.

use std::process::{Command, Stdio};

use super::Xvfb;

impl Xvfb {
    /// Put `keysyms` on the keyboard, each on the key named (in the
    /// keymap's `<NAME>` terms) in place of what it had, with `xkbcomp`.
    /// xdotool types a keysym missing from the keymap by remapping a spare
    /// key for a moment, and a client that fetches the new mapping late
    /// reads the wrong one; keys that are there to stay are read right.
    pub fn set_keysyms(&self, keysyms: &[(&str, &str)]) {
        let xkbcomp = |args: &[&str], input: Option<&str>| {
            let mut child = Command::new("xkbcomp")
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("xkbcomp (apt-get install x11-xkb-utils)");
            let mut stdin = child.stdin.take().expect("piped stdin");
            if let Some(input) = input {
                std::io::Write::write_all(&mut stdin, input.as_bytes()).expect("xkbcomp's stdin");
            }
            drop(stdin);
            let out = child.wait_with_output().expect("xkbcomp ran");
            assert!(out.status.success(), "xkbcomp {args:?}: {:?}", out.status);
            String::from_utf8(out.stdout).expect("a UTF-8 keymap")
        };
        let keymap = xkbcomp(&["-xkb", &self.display, "-"], None);
        let line_for = |name: &str, keysym: &str| format!("    key <{name}> {{ [ {keysym} ] }};");
        // Keys that have symbols get new ones in place; keys that have none
        // get a line at the top of the symbols section.
        let mut placed = Vec::new();
        let mut edited: Vec<String> = Vec::new();
        for line in keymap.lines() {
            let found = keysyms.iter().find(|(name, _)| {
                line.trim_start()
                    .strip_prefix(&format!("key <{name}>"))
                    .is_some_and(|rest| rest.trim_end().ends_with("};"))
            });
            match found {
                Some((name, keysym)) => {
                    placed.push(*name);
                    edited.push(line_for(name, keysym));
                }
                None => edited.push(line.to_owned()),
            }
        }
        let symbols = edited
            .iter()
            .position(|l| l.trim_start().starts_with("xkb_symbols"))
            .expect("a symbols section in the keymap");
        for (name, keysym) in keysyms.iter().rev() {
            if !placed.contains(name) {
                edited.insert(symbols + 1, line_for(name, keysym));
            }
        }
        xkbcomp(&["-w", "0", "-", &self.display], Some(&edited.join("\n")));
    }

    /// Whether NumLock is on, as `xset q` reports it.
    pub fn num_lock(&self) -> bool {
        let out = Command::new("xset")
            .arg("q")
            .env("DISPLAY", &self.display)
            .output()
            .expect("xset (apt-get install x11-xserver-utils)");
        let text = String::from_utf8_lossy(&out.stdout);
        let state = text
            .split("Num Lock:")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no NumLock state in xset's report:\n{text}"));
        state == "on"
    }

    /// Press NumLock until it is `on`.
    pub fn set_num_lock(&self, on: bool) {
        if self.num_lock() != on {
            self.xdotool(&["key", "Num_Lock"]);
        }
        assert_eq!(self.num_lock(), on, "NumLock did not toggle");
    }
}
