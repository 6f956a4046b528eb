//! `k`: koi's assistant as a command in any shell.

fn main() {
    eprintln!("k: not built yet");
    std::process::exit(2);
}
