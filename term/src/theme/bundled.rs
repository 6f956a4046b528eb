//! The schemes koi ships, compiled into the binary from `assets/themes/`
//! (each file is in koi's own `[colors]` format, so it can be copied into a
//! config and edited there).

/// One bundled scheme: the name `theme = "…"` takes, and its file's text.
#[derive(Clone, Copy, Debug)]
pub struct Bundled {
    /// The name, as `koi --list-themes` prints it (the file's stem).
    pub name: &'static str,
    /// The TOML file.
    pub text: &'static str,
}

macro_rules! bundled {
    ($($name:literal),* $(,)?) => {
        &[$(Bundled {
            name: $name,
            text: include_str!(concat!("../../../assets/themes/", $name, ".toml")),
        }),*]
    };
}

/// Every bundled scheme, in the order `--list-themes` prints them.
pub const BUNDLED: &[Bundled] = bundled!(
    "catppuccin-latte",
    "catppuccin-frappe",
    "catppuccin-macchiato",
    "catppuccin-mocha",
    "dracula",
    "github-dark",
    "github-light",
    "gruvbox-dark",
    "gruvbox-light",
    "nord",
    "one-dark",
    "one-light",
    "solarized-dark",
    "solarized-light",
    "tokyo-night",
);

/// The bundled scheme called `name`, forgiving case, spaces, underscores
/// and the accent of "Frappé".
pub fn find(name: &str) -> Option<&'static Bundled> {
    let wanted: String = name
        .trim()
        .chars()
        .map(|c| match c {
            ' ' | '_' => '-',
            'é' | 'É' => 'e',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    BUNDLED.iter().find(|b| b.name == wanted)
}
