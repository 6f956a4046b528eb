//! The koi.toml a window test starts koi with: one builder, so every test
//! gets the same window geometry and the same assistant wiring.

use std::path::Path;

use crate::FakeProvider;

/// A `cols`×`rows` window with no padding on [`TestConfig::BACKGROUND`],
/// and, where asked, a shell and an assistant on a [`FakeProvider`].
#[derive(Clone, Debug)]
pub struct TestConfig {
    cols: u16,
    rows: u16,
    shell: Option<(String, Vec<String>)>,
    base_url: Option<String>,
    memory: bool,
}

impl TestConfig {
    /// The background colour: pixel checks look for what differs from it.
    pub const BACKGROUND: &'static str = "#101418";

    pub fn new(cols: u16, rows: u16) -> TestConfig {
        TestConfig {
            cols,
            rows,
            shell: None,
            base_url: None,
            memory: false,
        }
    }

    /// `[shell]`: koi starts `program` with `args` (without it, `$SHELL`).
    pub fn shell(mut self, program: &str, args: &[&str]) -> TestConfig {
        let args = args.iter().map(|a| a.to_string()).collect();
        self.shell = Some((program.to_owned(), args));
        self
    }

    /// `[ai]`: OpenAI chat at `server`, model `test-model`, with no memory
    /// curator, whose side requests only its own tests expect.
    pub fn ai(mut self, server: &FakeProvider) -> TestConfig {
        self.base_url = Some(server.base_url());
        self
    }

    /// With [`TestConfig::ai`]: the memory curator on, for the tests of
    /// memory itself.
    pub fn memory(mut self) -> TestConfig {
        self.memory = true;
        self
    }

    pub fn text(&self) -> String {
        let mut text = format!(
            "[colors]\nbackground = \"{}\"\n[window]\npadding = 0\ncolumns = {}\nlines = {}\n",
            Self::BACKGROUND,
            self.cols,
            self.rows
        );
        if let Some((program, args)) = &self.shell {
            text.push_str(&format!("[shell]\nprogram = {program:?}\n"));
            if !args.is_empty() {
                let args: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
                text.push_str(&format!("args = [{}]\n", args.join(", ")));
            }
        }
        if let Some(url) = &self.base_url {
            text.push_str(&format!(
                "[ai]\nmemory = {}\nprovider = \"openai\"\nbase_url = {url:?}\n\
                 model = \"test-model\"\napi_key = \"sk-test-not-secret\"\n",
                self.memory
            ));
        }
        text
    }

    /// Writes the config to `path`, making its directory.
    pub fn write(&self, path: &Path) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("the config's directory");
        }
        std::fs::write(path, self.text()).expect("the config");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shell_and_an_assistant_go_in_their_sections() {
        let server = FakeProvider::builder().start(vec![]);
        let text = TestConfig::new(80, 12)
            .shell("bash", &["--norc", "--noprofile"])
            .ai(&server)
            .text();
        let parsed: toml::Table = text.parse().expect("valid TOML");
        assert_eq!(parsed["window"]["columns"].as_integer(), Some(80));
        assert_eq!(parsed["window"]["lines"].as_integer(), Some(12));
        assert_eq!(parsed["shell"]["program"].as_str(), Some("bash"));
        assert_eq!(parsed["shell"]["args"][1].as_str(), Some("--noprofile"));
        assert_eq!(
            parsed["ai"]["base_url"].as_str(),
            Some(server.base_url().as_str())
        );
        assert!(!TestConfig::new(1, 1).text().contains("[ai]"));
    }
}
