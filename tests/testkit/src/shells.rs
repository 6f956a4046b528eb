//! The interactive shells koi integrates with, for tests that drive each
//! one with the prompt their test rc files set.

/// A shell koi ships integration scripts for (`assets/shell/koi.*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

impl Shell {
    /// Every shell, in the order tests report them.
    pub const ALL: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

    /// The program's name, which is also its integration script's suffix.
    pub fn program(self) -> &'static str {
        match self {
            Shell::Bash => "bash",
            Shell::Zsh => "zsh",
            Shell::Fish => "fish",
        }
    }

    /// The prompt the tests' rc files set, trailing space included.
    pub fn prompt(self) -> &'static str {
        match self {
            Shell::Bash => "$ ",
            Shell::Zsh => "% ",
            Shell::Fish => "> ",
        }
    }

    /// Whether the shell runs here (tests of one that is missing say so
    /// and go on with the others: see [`Shell::runs_for`]).
    pub fn installed(self) -> bool {
        std::process::Command::new(self.program())
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    }

    /// Whether `test` can drive this shell here; when it cannot, the skip
    /// is recorded ([`crate::skip`], family `shells`).
    pub fn runs_for(self, test: &str) -> bool {
        let installed = self.installed();
        if !installed {
            crate::skip::skip(
                crate::skip::SHELLS,
                test,
                &format!(
                    "{} is not installed (scripts/deps lists it)",
                    self.program()
                ),
            );
        }
        installed
    }
}
