//! Layout time per token while a 20 KB answer streams: koi_markdown's
//! cached [`Renderer`] next to laying the whole prefix out afresh for every
//! token ([`koi_markdown::render`]), in one run, interleaved.
//!
//! It also times the first use of the grammars, and the load of the set
//! koi ships (bat's, from two-face) next to syntect's default set.
//!
//! `cargo bench -p koi_markdown --bench stream`

#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::time::{Duration, Instant};

use koi_markdown::{Color, Palette, Renderer};
use syntect::parsing::{ParseState, SyntaxSet};

/// Width the panel lays answers out at in a typical window.
const WIDTH: usize = 100;
/// Bytes per streamed token: about what a provider sends per delta.
const TOKEN_BYTES: usize = 4;
/// Rounds of each renderer, interleaved, so machine noise hits both.
const ROUNDS: usize = 5;
/// The answer's size, as the issue asks.
const ANSWER_BYTES: usize = 20_000;

/// A long answer of the usual kinds of content, about [`ANSWER_BYTES`].
fn answer() -> String {
    let section = "## Step {n}: wire the parser\n\n\
        The **parser** reads each line, keeps *state* between calls and hands \
        `Event`s to the layout. See [the docs](https://docs.example.org/parser/events) \
        for details.\n\
        - first, read the config\n  - nested: check `path`\n- then ~~guess~~ decide\n\
        - [x] done item\n\n\
        ```rust\nfn parse(line: &str) -> Option<u32> {\n    // trim and parse\n    \
        line.trim().parse().ok()\n}\n```\n\n\
        | name | kind | notes |\n|------|:----:|------:|\n| `a` | int | 42 |\n| b | str | \"x\" |\n\n\
        ```python\ndef main():\n    print(\"hi\")  # greet\n```\n\n\
        > Quoted advice: keep it simple, 日本語 too 😀.\n\n";
    let mut out = String::new();
    let mut n = 0;
    while out.len() < ANSWER_BYTES {
        n += 1;
        out.push_str(&section.replace("{n}", &n.to_string()));
    }
    out
}

/// The answer's prefixes, one per token.
fn prefixes(src: &str) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut at = 0;
    while at < src.len() {
        at = (at + TOKEN_BYTES).min(src.len());
        while !src.is_char_boundary(at) {
            at += 1;
        }
        ends.push(at);
    }
    ends
}

fn stats(mut per_token: Vec<Duration>) -> String {
    per_token.sort();
    let n = per_token.len();
    let mean = per_token.iter().sum::<Duration>() / n as u32;
    format!(
        "mean {:>7.1} µs  median {:>7.1} µs  p95 {:>7.1} µs  max {:>8.1} µs",
        mean.as_secs_f64() * 1e6,
        per_token[n / 2].as_secs_f64() * 1e6,
        per_token[n * 95 / 100].as_secs_f64() * 1e6,
        per_token[n - 1].as_secs_f64() * 1e6,
    )
}

fn main() {
    let src = answer();
    let ends = prefixes(&src);
    let c = |i| Color::Indexed(i);
    let new_pal = Palette {
        fg: c(1),
        dim: c(2),
        accent: c(3),
        code_bg: Some(c(4)),
        keyword: c(5),
        string: c(6),
        comment: c(7),
        number: c(8),
        function: c(3),
        type_name: c(9),
    };
    // The grammars load on first use; time that once, apart, then the set
    // koi ships next to syntect's own, interleaved.
    let t = Instant::now();
    let _ = koi_markdown::render("```rust\nfn x() {}\n```", WIDTH, &new_pal);
    println!(
        "first use (load grammars, highlight one Rust line): {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let t = Instant::now();
    let _ = koi_markdown::render("```toml\n[a]\nb = 1\n```", WIDTH, &new_pal);
    println!(
        "first TOML fence after that (its grammar's regexes): {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    // Each set afresh (its regexes compile on first use, per set): load
    // it, then parse one Rust line, as the first fence of an answer does.
    let first_rust_line = |load: fn() -> SyntaxSet| {
        let t = Instant::now();
        let set = load();
        let load_time = t.elapsed();
        let rust = set.find_syntax_by_token("rust").unwrap();
        let ops = ParseState::new(rust)
            .parse_line("fn x() {}\n", &set)
            .unwrap();
        std::hint::black_box(ops);
        (load_time, t.elapsed(), set.syntaxes().len())
    };
    let (mut bat, mut own) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        bat.push(first_rust_line(two_face::syntax::extra_newlines));
        own.push(first_rust_line(SyntaxSet::load_defaults_newlines));
    }
    let median = |v: &[(Duration, Duration, usize)],
                  pick: fn(&(Duration, Duration, usize)) -> Duration| {
        let mut d: Vec<Duration> = v.iter().map(pick).collect();
        d.sort();
        d[d.len() / 2].as_secs_f64() * 1e3
    };
    for (name, v) in [
        ("bat's (two-face), shipped", &bat),
        ("syntect's default", &own),
    ] {
        println!(
            "  {name:<26} {:>3} syntaxes: load {:.1} ms, load + first Rust line {:.1} ms (medians of {ROUNDS})",
            v[0].2,
            median(v, |x| x.0),
            median(v, |x| x.1)
        );
    }
    println!(
        "streaming {} bytes in {} tokens of {TOKEN_BYTES} bytes at {WIDTH} columns, {ROUNDS} rounds:",
        src.len(),
        ends.len()
    );
    let (mut cached_times, mut afresh_times) = (Vec::new(), Vec::new());
    let (mut cached_total, mut afresh_total) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..ROUNDS {
        let mut renderer = Renderer::new();
        let t0 = Instant::now();
        for &end in &ends {
            let t = Instant::now();
            let lines = renderer.render(&src[..end], WIDTH, &new_pal);
            std::hint::black_box(lines);
            cached_times.push(t.elapsed());
        }
        cached_total += t0.elapsed();
        let t0 = Instant::now();
        for &end in &ends {
            let t = Instant::now();
            let lines = koi_markdown::render(&src[..end], WIDTH, &new_pal);
            std::hint::black_box(lines);
            afresh_times.push(t.elapsed());
        }
        afresh_total += t0.elapsed();
    }
    println!("  koi_markdown (cached)  {}", stats(cached_times));
    println!("  afresh per token       {}", stats(afresh_times));
    println!(
        "  whole stream, mean of rounds: cached {:.0} ms, afresh {:.0} ms",
        cached_total.as_secs_f64() * 1e3 / ROUNDS as f64,
        afresh_total.as_secs_f64() * 1e3 / ROUNDS as f64
    );
    let final_lines = Renderer::new().render(&src, WIDTH, &new_pal).len();
    println!("  final layout: {final_lines} lines");
}
