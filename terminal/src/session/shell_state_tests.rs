//! The block tracker fed real bytes: OSC 133 marks found by the scanner,
//! the rest parsed into a real `Term`, as the reader thread does.

use alacritty_terminal::event::VoidListener;
use alacritty_terminal::term::{Config, Term};
use alacritty_terminal::vte::ansi::{Processor, StdSyncHandler};

use super::super::osc_scan::{parse, Marker};
use super::super::seq_scan::{Seq, SeqScanner};
use super::super::GridSize;
use super::*;

struct Shell {
    term: Term<VoidListener>,
    parser: Processor<StdSyncHandler>,
    scanner: SeqScanner,
    state: ShellState,
}

impl Shell {
    fn new(rows: u16) -> Self {
        Self {
            term: Term::new(Config::default(), &GridSize::new(40, rows), VoidListener),
            parser: Processor::new(),
            scanner: SeqScanner::default(),
            state: ShellState::default(),
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        let mut marks = Vec::new();
        self.scanner.scan(bytes, |end, seq| {
            if let Seq::Osc(Some(payload)) = seq {
                if let Some(Marker::Shell(mark)) = parse(payload) {
                    marks.push((end, mark));
                }
            }
        });
        let mut done = 0;
        for (end, mark) in marks {
            self.parser.advance(&mut self.term, &bytes[done..end]);
            done = end;
            self.state.mark(&self.term, &mark);
        }
        self.parser.advance(&mut self.term, &bytes[done..]);
    }

    /// A prompt as today's bash integration draws it: D (with the last
    /// status), A, the prompt text, B.
    fn prompt(&mut self, status: i32) {
        self.feed(format!("\x1b]133;D;{status}\x07\x1b]133;A\x07$ \x1b]133;B\x07").as_bytes());
    }

    /// The user types `line` and Enter; bash echoes it and, for a command
    /// that runs, prints PS0 (the C mark) and its output.
    fn run(&mut self, line: &str, output: &str, status: i32) {
        self.feed(format!("{line}\r\n\x1b]133;C\x07{output}").as_bytes());
        self.prompt(status);
    }

    fn fresh(&self) -> Option<FreshBlock> {
        self.state.fresh_block(&self.term)
    }
}

#[test]
fn a_block_is_the_command_its_output_and_status_when_c_came_before_d() {
    let mut sh = Shell::new(10);
    sh.prompt(0);
    assert!(sh.fresh().is_none(), "the first prompt ran nothing");
    sh.run("ls /nonexistent", "ls: cannot access '/nonexistent'\r\n", 2);
    let last = sh.state.last_command.clone().unwrap();
    assert_eq!(last.command, "ls /nonexistent");
    assert_eq!(last.output, "ls: cannot access '/nonexistent'");
    assert_eq!(last.exit_code, Some(2));
    let fresh = sh.fresh().unwrap();
    assert_eq!(fresh.exit_code, Some(2));
    // Row 0 is the command line, row 1 the output's last line.
    assert_eq!(fresh.row, Some(1));
    assert_eq!(fresh.text_cols, "ls: cannot access '/nonexistent'".len());
    assert!(last.wants_fix(&[]));
}

#[test]
fn no_output_puts_the_block_on_the_command_line() {
    let mut sh = Shell::new(10);
    sh.prompt(0);
    sh.run("false", "", 1);
    assert_eq!(sh.fresh().unwrap().row, Some(0));
    // Trailing blank lines are skipped.
    sh.run("printf 'err\\n\\n\\n'", "err\r\n\r\n\r\n", 1);
    assert_eq!(sh.fresh().unwrap().row, Some(2));
}

#[test]
fn an_empty_line_records_nothing_and_ends_the_fresh_block() {
    let mut sh = Shell::new(10);
    sh.prompt(0);
    sh.run("false", "", 1);
    assert!(sh.fresh().is_some());
    // Enter on an empty line: no C, and bash's $? is still 1.
    sh.feed(b"\r\n");
    sh.prompt(1);
    assert!(sh.fresh().is_none(), "an empty line is not a command");
    assert_eq!(sh.state.last_command.as_ref().unwrap().command, "false");
}

#[test]
fn the_next_command_and_dismiss_end_the_fresh_block() {
    let mut sh = Shell::new(10);
    sh.prompt(0);
    sh.run("false", "", 1);
    sh.feed(b"sleep 5\r\n\x1b]133;C\x07");
    assert!(sh.fresh().is_none(), "a running command hides the hint");
    sh.prompt(0);
    assert_eq!(sh.state.last_command.as_ref().unwrap().exit_code, Some(0));
    sh.run("false", "", 1);
    assert!(sh.fresh().is_some());
    sh.state.dismiss();
    assert!(sh.fresh().is_none());
}

#[test]
fn interrupted_and_suspended_commands_are_no_failures() {
    let mut sh = Shell::new(10);
    sh.prompt(0);
    sh.run("sleep 10", "^C", 130);
    let last = sh.state.last_command.clone().unwrap();
    assert_eq!(last.exit_code, Some(130));
    assert!(!last.wants_fix(&[]));
    sh.run("vim", "[1]+  Stopped  vim\r\n", 148);
    assert!(!sh.state.last_command.unwrap().wants_fix(&[]));
}

#[test]
fn the_block_is_found_again_when_a_full_scrollback_moves_it() {
    let mut sh = Shell::new(4);
    sh.term = Term::new(
        Config {
            scrolling_history: 2,
            ..Config::default()
        },
        &GridSize::new(40, 4),
        VoidListener,
    );
    for i in 0..6 {
        sh.feed(format!("line {i}\r\n").as_bytes());
    }
    sh.prompt(0);
    sh.run("make", "error: it broke\r\n", 2);
    // The prompt line scrolled the screen with the history already full.
    let fresh = sh.fresh().unwrap();
    let row = fresh.row.expect("found on screen");
    let grid = sh.term.grid();
    let text: String = (0..10)
        .map(|c| grid[Line(row as i32)][Column(c)].c)
        .collect();
    assert_eq!(text, "error: it ");
}

#[test]
fn the_ignore_list_matches_leading_words() {
    let ignore = vec!["grep".to_string(), "git diff".to_string()];
    assert!(is_ignored("grep -r foo .", &ignore));
    assert!(is_ignored("LC_ALL=C grep foo", &ignore));
    assert!(is_ignored("git  diff --stat", &ignore));
    assert!(!is_ignored("git push", &ignore));
    assert!(!is_ignored("grepx foo", &ignore));
    assert!(!is_ignored("ls | grep foo", &ignore));
    let block = LastCommand {
        command: "grep nothing file".into(),
        output: String::new(),
        exit_code: Some(1),
    };
    assert!(!block.wants_fix(&ignore));
    assert!(block.wants_fix(&[]));
    let unknown = LastCommand {
        exit_code: None,
        ..block
    };
    assert!(!unknown.wants_fix(&[]), "no status: nothing to say");
}

#[test]
fn a_full_scrollback_still_yields_the_command_and_its_output() {
    let mut sh = Shell::new(4);
    sh.term = Term::new(
        Config {
            scrolling_history: 3,
            ..Config::default()
        },
        &GridSize::new(40, 4),
        VoidListener,
    );
    for i in 0..10 {
        sh.feed(format!("filler {i}\r\n").as_bytes());
    }
    sh.prompt(0);
    sh.run("cat notes", "one\r\ntwo\r\nthree\r\nfour\r\nfive\r\n", 1);
    let last = sh.state.last_command.clone().unwrap();
    assert_eq!(last.command, "cat notes");
    // What is still in the grid (3 lines of history, 4 on screen).
    assert!(last.output.ends_with("three\nfour\nfive"), "{last:?}");
    assert!(sh.fresh().unwrap().row.is_some());
}
