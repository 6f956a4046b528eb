//! Programs that run another command (`timeout 5 ls`, `sudo rm`, `env X=1
//! cmd`, `xargs cat`): the one table both the floor and the proof use to
//! find the command a wrapper runs.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::policy::programs::opts::{Options, Style, GNU, POSIX};

/// What a wrapper does to the command it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Runs it as it is (timeout, nice, `command`): the proof judges the
    /// inner command.
    Transparent,
    /// Changes how it runs (extra arguments, environment, output files):
    /// the proof abstains, the floor still judges the inner command.
    Opaque,
    /// Runs it with other privileges: the floor always asks.
    Escalates,
}

/// One wrapper's grammar.
struct Wrapper {
    names: &'static [&'static str],
    opts: &'static str,
    style: Style,
    kind: Kind,
    /// Operands before the command (timeout's duration, chroot's dir).
    before: usize,
    /// `NAME=value` operands before the command (env).
    assignments: bool,
    /// The operands are not a command (su's are user names).
    no_command: bool,
}

/// GNU parsing that stops at the first operand (the command).
const GNU_STOP: Style = Style {
    permute: false,
    ..GNU
};

const TABLE: &[Wrapper] = &[
    Wrapper {
        names: &["timeout"],
        opts: "s,signal= k,kill-after= preserve-status foreground v,verbose help version",
        style: GNU_STOP,
        kind: Kind::Transparent,
        before: 1,
        assignments: false,
        no_command: false,
    },
    Wrapper {
        names: &["nice"],
        opts: "n,adjustment= help version",
        style: Style {
            numeric: true,
            ..GNU_STOP
        },
        kind: Kind::Transparent,
        before: 0,
        assignments: false,
        no_command: false,
    },
    Wrapper {
        names: &["command"],
        opts: "p",
        style: POSIX,
        kind: Kind::Transparent,
        before: 0,
        assignments: false,
        no_command: false,
    },
    Wrapper {
        names: &["sudo"],
        opts: "A,askpass b,background B,bell E,preserve-env? e,edit H,set-home i,login \
               K,remove-timestamp k,reset-timestamp l,list n,non-interactive P,preserve-groups \
               S,stdin s,shell V,version v,validate help g,group= u,user= p,prompt= \
               C,close-from= D,chdir= h,host= r,role= t,type= T,command-timeout= \
               U,other-user= R,chroot=",
        style: POSIX,
        kind: Kind::Escalates,
        before: 0,
        assignments: true,
        no_command: false,
    },
    Wrapper {
        names: &["doas"],
        opts: "n s C= u=",
        style: POSIX,
        kind: Kind::Escalates,
        before: 0,
        assignments: false,
        no_command: false,
    },
    Wrapper {
        names: &["su", "runuser"],
        opts: "c,command= l,login m p,preserve-environment s,shell= g,group= G,supp-group= \
               w,whitelist-environment= P,pty session-command= f,fast h,help V,version",
        style: GNU,
        kind: Kind::Escalates,
        before: 0,
        assignments: false,
        no_command: true,
    },
    Wrapper {
        names: &["env"],
        opts: "i,ignore-environment 0,null u,unset= C,chdir= S,split-string= block-signal? \
               default-signal? ignore-signal? list-signal-handling v,debug help version",
        style: GNU_STOP,
        kind: Kind::Opaque,
        before: 0,
        assignments: true,
        no_command: false,
    },
    Wrapper {
        names: &["nohup"],
        opts: "help version",
        style: GNU_STOP,
        kind: Kind::Opaque,
        before: 0,
        assignments: false,
        no_command: false,
    },
    Wrapper {
        names: &["time"],
        opts: "o,output= a,append f,format= p,portability q,quiet v,verbose help V,version",
        style: GNU_STOP,
        kind: Kind::Opaque,
        before: 0,
        assignments: false,
        no_command: false,
    },
    Wrapper {
        names: &["exec"],
        opts: "c l a=",
        style: POSIX,
        kind: Kind::Opaque,
        before: 0,
        assignments: false,
        no_command: false,
    },
    Wrapper {
        names: &["builtin", "unbuffer", "busybox", "setsid"],
        opts: "c,ctty f,fork w,wait",
        style: POSIX,
        kind: Kind::Opaque,
        before: 0,
        assignments: false,
        no_command: false,
    },
    Wrapper {
        names: &["stdbuf"],
        opts: "i,input= o,output= e,error= help version",
        style: GNU_STOP,
        kind: Kind::Opaque,
        before: 0,
        assignments: false,
        no_command: false,
    },
    Wrapper {
        names: &["ionice"],
        opts: "c,class= n,classdata= p,pid= P,pgid= t,ignore u,uid= h,help V,version",
        style: GNU_STOP,
        kind: Kind::Opaque,
        before: 0,
        assignments: false,
        no_command: false,
    },
    Wrapper {
        names: &["xargs"],
        opts: "0,null a,arg-file= d,delimiter= E= e,eof? I= i,replace? L= l,max-lines? \
               n,max-args= o,open-tty P,max-procs= p,interactive process-slot-var= \
               r,no-run-if-empty s,max-chars= show-limits t,verbose x,exit help version",
        style: GNU_STOP,
        kind: Kind::Opaque,
        before: 0,
        assignments: false,
        no_command: false,
    },
    Wrapper {
        names: &["watch"],
        opts: "b,beep c,color C,no-color d,differences? e,errexit g,chgexit n,interval= \
               p,precise q,equexit= r,no-rerun t,no-title w,no-wrap x,exec h,help v,version",
        style: GNU_STOP,
        kind: Kind::Opaque,
        before: 0,
        assignments: false,
        no_command: false,
    },
    Wrapper {
        names: &["strace", "ltrace"],
        opts: "f F i q r t T v V x y c C w d D h k z Z n e= o= p= P= s= u= a= b= E= I= X= S= O=",
        style: POSIX,
        kind: Kind::Opaque,
        before: 0,
        assignments: false,
        no_command: false,
    },
    Wrapper {
        names: &["chrt", "taskset", "flock", "chroot"],
        opts: "a,all-tasks b,batch d,deadline f,fifo i,idle o,other r,rr R,reset-on-fork \
               m,max p,pid c,cpu-list s,shared x,exclusive u,unlock n,nonblock w,timeout= \
               E,conflict-exit-code= F,no-fork v,verbose h,help V,version",
        style: GNU_STOP,
        kind: Kind::Opaque,
        before: 1,
        assignments: false,
        no_command: false,
    },
];

/// A wrapper found at the start of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unwrapped {
    /// Where the wrapped command starts in the argv (`argv.len()` if none).
    pub start: usize,
    /// The wrappers passed through, outermost first.
    pub names: Vec<String>,
    /// Did every wrapper run its command unchanged, and were all their
    /// options known?
    pub transparent: bool,
    /// Does one of them change privileges?
    pub escalates: bool,
    /// Option values that are themselves command lines (`su -c`,
    /// `env -S`), and for `watch` the joined command.
    pub shell_strings: Vec<String>,
}

fn models() -> &'static HashMap<&'static str, (Options, &'static Wrapper)> {
    static MODELS: OnceLock<HashMap<&'static str, (Options, &'static Wrapper)>> = OnceLock::new();
    MODELS.get_or_init(|| {
        let mut map = HashMap::new();
        for w in TABLE {
            if let Ok(opts) = Options::new(w.opts, w.style) {
                for n in w.names {
                    map.insert(*n, (opts.clone(), w));
                }
            }
        }
        map
    })
}

/// Is this program a wrapper?
pub fn is_wrapper(program: &str) -> bool {
    models().contains_key(program)
}

/// The basename a program is run by (`/usr/bin/env` is `env`).
pub fn base(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// Peel wrappers off `argv` (wrappers of wrappers too).
pub fn unwrap(argv: &[String]) -> Unwrapped {
    let mut out = Unwrapped {
        start: 0,
        names: Vec::new(),
        transparent: true,
        escalates: false,
        shell_strings: Vec::new(),
    };
    while let Some(first) = argv.get(out.start) {
        let name = base(first);
        let Some((opts, w)) = models().get(name) else {
            break;
        };
        let args = &argv[out.start + 1..];
        // `command -v x` looks up, it does not run.
        if name == "command" && args.first().is_some_and(|a| a == "-v" || a == "-V") {
            break;
        }
        let before = out.clone();
        out.names.push(name.to_string());
        match w.kind {
            Kind::Transparent => {}
            Kind::Opaque => out.transparent = false,
            Kind::Escalates => {
                out.transparent = false;
                out.escalates = true;
            }
        }
        let skip = match opts.parse(args) {
            Ok(parsed) => {
                for name in ["command", "split-string", "session-command"] {
                    out.shell_strings
                        .extend(parsed.values(name).into_iter().map(String::from));
                }
                // Wrappers stop at their first operand, so everything
                // before the operands is options (a `--` included).
                args.len() - parsed.operands().count()
            }
            Err(_) => {
                out.transparent = false;
                args.iter().take_while(|a| a.starts_with('-')).count()
            }
        };
        let mut i = skip;
        if w.assignments {
            while args.get(i).is_some_and(|a| is_assignment(a)) {
                i += 1;
            }
        }
        i += w.before;
        if w.no_command {
            out.start = argv.len();
            return out;
        }
        if i >= args.len() && w.kind != Kind::Escalates {
            // Nothing to run: the wrapper is the program (`env` prints the
            // environment); its command-line options still count. (`sudo
            // -i` with nothing after it still escalates.)
            let strings = std::mem::take(&mut out.shell_strings);
            out = before;
            out.shell_strings.extend(strings);
            break;
        }
        if name == "watch" {
            // watch runs its arguments joined, through `sh -c`.
            out.shell_strings.push(args[i..].join(" "));
        }
        out.start = (out.start + 1 + i).min(argv.len());
    }
    out
}

fn is_assignment(arg: &str) -> bool {
    arg.split_once('=').is_some_and(|(name, _)| {
        name.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn un(cmd: &str) -> (Vec<String>, bool) {
        let argv: Vec<String> = cmd.split_whitespace().map(String::from).collect();
        let u = unwrap(&argv);
        (argv[u.start..].to_vec(), u.transparent)
    }

    #[test]
    fn peels() {
        assert_eq!(
            un("timeout 5 ls -la"),
            (vec!["ls".into(), "-la".into()], true)
        );
        assert_eq!(un("timeout -s KILL 10 git status").0, ["git", "status"]);
        assert_eq!(un("timeout --signal=KILL 10 ls").0, ["ls"]);
        assert_eq!(un("nice -n 10 grep x").0, ["grep", "x"]);
        assert_eq!(un("nice -10 grep x").0, ["grep", "x"]);
        assert_eq!(
            un("env X=1 rm -rf /"),
            (vec!["rm".into(), "-rf".into(), "/".into()], false)
        );
        assert_eq!(un("sudo -u root rm x").0, ["rm", "x"]);
        assert_eq!(un("xargs -n 1 rm").0, ["rm"]);
        assert_eq!(
            un("timeout 5 nice -n 3 cat f"),
            (vec!["cat".into(), "f".into()], true)
        );
        assert_eq!(un("command ls"), (vec!["ls".into()], true));
        assert_eq!(un("command -v ls").0, ["command", "-v", "ls"]);
        assert_eq!(un("env -- rm x").0, ["rm", "x"]);
        assert!(un("su -c id").0.is_empty());
        let argv: Vec<String> = ["sudo", "-i"].iter().map(|s| s.to_string()).collect();
        assert!(unwrap(&argv).escalates);
        let argv: Vec<String> = ["env"].iter().map(|s| s.to_string()).collect();
        assert!(unwrap(&argv).names.is_empty());
        let argv: Vec<String> = ["su", "-c", "rm -rf /"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(unwrap(&argv).shell_strings, ["rm -rf /"]);
        let argv: Vec<String> = ["watch", "rm", "-rf", "/"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(unwrap(&argv).shell_strings, ["rm -rf /"]);
    }
}
