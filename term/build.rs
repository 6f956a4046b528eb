//! Link options for the `koi` binary.
//!
//! Relative relocations packed as DT_RELR (`-z pack-relative-relocs`):
//! the dynamic loader reads a few kilobytes at start instead of 1.5 MB of
//! `.rela.dyn`, so less of the binary is resident while koi runs. Linkers
//! that do not know the option, or a C library without DT_RELR (glibc
//! before 2.36), leave the relocations as they were.

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.contains("linux-gnu") {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
