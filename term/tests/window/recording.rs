//! An application that records the bytes its terminal sends it
//! (`recorder.py`), and xterm to run it in beside koi.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::harness::{eventually, Xvfb};

/// How long a terminal may take to start the recorder and answer it: koi
/// brings up wgpu on a CPU rasteriser, on a machine other tests load too.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// One run of `recorder.py`: where it writes, and when it is ready.
pub struct Recorder {
    pub out: PathBuf,
    ready: PathBuf,
    setup: String,
    show: String,
}

impl Recorder {
    /// A recorder writing under `dir`, named `name`, that sets the modes in
    /// `setup` (escape sequences) and displays `show`.
    pub fn new(dir: &Path, name: &str, setup: &str, show: &str) -> Self {
        let out = dir.join(format!("{name}.bytes"));
        let ready = dir.join(format!("{name}.ready"));
        let _ = std::fs::remove_file(&out);
        let _ = std::fs::remove_file(&ready);
        Self {
            out,
            ready,
            setup: setup.to_owned(),
            show: show.to_owned(),
        }
    }

    /// The command line that runs it.
    pub fn command(&self) -> Vec<String> {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/window/recorder.py");
        vec![
            "python3".into(),
            script.display().to_string(),
            self.out.display().to_string(),
            self.ready.display().to_string(),
            self.setup.clone(),
            self.show.clone(),
        ]
    }

    /// Wait until the terminal has applied the setup and shown the text.
    pub fn wait_ready(&self, what: &str) {
        eventually(
            &format!("the recorder in {what} to start"),
            START_TIMEOUT,
            || self.ready.exists(),
        );
    }

    /// Everything received so far.
    pub fn bytes(&self) -> Vec<u8> {
        std::fs::read(&self.out).unwrap_or_default()
    }

    /// Wait until `want` bytes equal to `byte` have arrived; returns all.
    pub fn wait_for(&self, byte: u8, want: usize, what: &str) -> Vec<u8> {
        eventually(what, Duration::from_secs(60), || {
            self.bytes().iter().filter(|b| **b == byte).count() >= want
        });
        self.bytes()
    }
}

/// A real xterm under the test's X server, running one command.
pub struct Xterm {
    child: Child,
    pub window: String,
}

impl Xterm {
    pub fn start(x: &Xvfb, resources: &[&str], command: &[String]) -> Self {
        let mut args: Vec<String> = Vec::new();
        for resource in resources {
            args.push("-xrm".into());
            args.push((*resource).to_owned());
        }
        args.push("-e".into());
        args.extend(command.iter().cloned());
        let child = Command::new("xterm")
            .args(&args)
            .env("DISPLAY", &x.display)
            // UTF-8 in and out, as koi always is.
            .env("LC_ALL", "C.UTF-8")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect(
                "xterm is the reference terminal (apt-get install xterm; scripts/deps lists it)",
            );
        let pid = child.id().to_string();
        let mut window = String::new();
        eventually("xterm's window", START_TIMEOUT, || {
            window = x
                .xdotool(&["search", "--onlyvisible", "--pid", &pid])
                .lines()
                .next()
                .unwrap_or_default()
                .to_owned();
            !window.is_empty()
        });
        Self { child, window }
    }

    pub fn focus(&self, x: &Xvfb) {
        x.xdotool(&["windowfocus", "--sync", &self.window]);
    }
}

impl Drop for Xterm {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
