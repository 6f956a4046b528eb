//! The generator's vocabulary: the programs koi may run without asking and
//! their options, written from each program's manual and `--help`, the
//! harmless and the dangerous side by side (`-delete`, `-fprint`,
//! `--output`, `-i`, `w` commands, `system()`, `--pre`, `-o`, …).
//!
//! In option and operand text, placeholders stand for fixture paths:
//! `{F}` an existing file, `{D}` a directory, `{N}` a path that does not
//! exist yet (where a writer would write), `{P}` a search pattern. The
//! generator fills them; `@OUT@` is the outside directory.

/// One program (or `git` subcommand) and what may follow it.
pub struct Program {
    /// The command word(s).
    pub name: &'static str,
    /// Option snippets (shell text; may hold several words).
    pub opts: &'static [&'static str],
    /// Operand snippets.
    pub operands: &'static [&'static str],
    /// `find`'s grammar: operands (start points) come before the options.
    pub operands_first: bool,
}

const fn p(
    name: &'static str,
    opts: &'static [&'static str],
    operands: &'static [&'static str],
) -> Program {
    Program {
        name,
        opts,
        operands,
        operands_first: false,
    }
}

#[rustfmt::skip]
pub const FILES: &[&str] = &[
    "README.md", "notes.txt", "src/main.rs", "clean/a.txt", ".env.example", "escape/plain.txt",
    "@OUT@/plain.txt", "./README.md", "~/.gitconfig", "/etc/hostname", ".git/config", ".git/HEAD",
    "*.md", "src/*", "?EADME.md", "[RN]*",
];

#[rustfmt::skip]
pub const DIRS: &[&str] = &[
    ".", "src", "clean", "escape", "@OUT@", ".git", "~", "./src/",
];

/// Where a writer would write: new names in the workspace, its git dir,
/// outside it, in `$HOME`, in the shared `/tmp`, and in the per-run temp
/// dir (the one place writing is fine).
#[rustfmt::skip]
pub const NEW: &[&str] = &[
    "out.txt", "x", "src/new.rs", "README.md", ".git/hooks/post-checkout", "@OUT@/new.txt",
    "escape/new.txt", "~/new.txt", "/tmp/x", "$TMPDIR/x",
];

#[rustfmt::skip]
pub const PATTERNS: &[&str] = &["foo", "main", "'fn main'", "'^#'", "demo", "-e a", "'.'"];

#[rustfmt::skip]
pub const PROGRAMS: &[Program] = &[
    p(
        "ls",
        &[
            "-l", "-a", "-la", "-R", "-1", "-h", "-S", "-t", "-r", "-d", "-i", "-F", "--all",
            "--recursive", "--color=never", "--format=long", "--sort=size", "--hide='*.md'",
            "-I '*.rs'", "--time-style=iso", "--quoting-style=c", "--dired", "-lR", "--al",
            "--rec",
        ],
        &["{D}", "{F}"],
    ),
    p(
        "cat",
        &[
            "-n", "-A", "-b", "-s", "-v", "-E", "-T", "--number", "--show-all", "-",
        ],
        &["{F}"],
    ),
    p(
        "head",
        &[
            "-n 3", "-n3", "-c 10", "-3", "--lines=2", "--li=2", "-q", "-v", "--bytes=4",
        ],
        &["{F}"],
    ),
    p(
        "tail",
        &[
            "-n 3", "-n+2", "-c 10", "-3", "--lines=2", "-q", "-v", "--bytes=4", "-r",
        ],
        &["{F}"],
    ),
    p(
        "wc",
        &[
            "-l", "-w", "-c", "-m", "-L", "--lines", "--files0-from={F}", "--total=always",
        ],
        &["{F}"],
    ),
    p(
        "grep",
        &[
            "-r", "-n", "-i", "-l", "-c", "-v", "-E", "-F", "-o", "-w", "-h", "-H", "-q", "-s",
            "-R", "-z", "--null", "-A1", "-B 1", "-C1", "--include='*.rs'", "--exclude-dir=.git",
            "--color=never", "-e {P}", "-f {F}", "-rn", "-rl", "--recursive", "--rec",
            "--line-buffered", "--binary-files=text", "-a", "--devices=read", "-D read",
            "-d recurse", "--directories=recurse",
        ],
        &["{P} {F}", "{P} {D}", "{P}"],
    ),
    p(
        "rg",
        &[
            "-n", "-i", "-l", "--files", "--hidden", "-g '*.rs'", "--type rust", "-u", "-uu", "-c",
            "--json", "--no-ignore", "-z", "--search-zip", "--pre cat", "--pre=sh",
            "--pre-glob='*'", "-L", "--follow", "--no-config", "--debug", "--stats", "--sort=path",
            "--null", "-0", "--replace=x", "-r x", "--passthru",
        ],
        &["{P} {D}", "{P} {F}", "{P}"],
    ),
    Program {
        name: "find",
        opts: &[
            "-name '*.rs'", "-iname '*.MD'", "-type f", "-type d", "-maxdepth 1", "-mindepth 1",
            "-print", "-print0", "-ls", "-empty", "-newer {F}", "-path './src/*'", "-prune",
            "-size -1k", "-perm -u+r", "-regex '.*rs'", "-printf '%p\\n'", "-depth", "-xdev",
            "-mtime -1", "-mmin +1", "-L", "-H", "-follow", "-not -name x", "! -type d",
            "-o -print", "-a -print", "-delete", "-fprint {N}", "-fprintf {N} '%p'", "-fls {N}",
            "-fprint0 {N}", "-exec cat {} \\;", "-exec rm {} +", "-execdir true \\;",
            "-ok true \\;", "-okdir true \\;", "-exec touch {}.bak \\;", "{-delete,-print}",
            "-{delete,print}", "$'\\55delete'", "$'\\x2ddelete'", "-del$'\\x65'te", "'-delete'",
            "-de''lete", "\\-delete", "-fpr {N}",
        ],
        operands: &["{D}", "."],
        operands_first: true,
    },
    p(
        "sed",
        &[
            "-n", "-E", "-r", "-s", "-z", "--posix", "--debug", "-u", "-e 's/a/b/'", "-e p",
            "-n 1p", "'s/a/b/'", "'1d'", "'q'", "'$!N'", "'s/a/b/w {N}'", "'w {N}'", "'1w {N}'",
            "'1e touch p'", "'s/.*/id/e'", "'e id'", "-i", "-i.bak", "--in-place",
            "--in-place=.orig", "--in", "--in-pl", "-ibak", "-ni", "-n -i", "--sandbox",
            "--follow-symlinks", "-f {F}", "--expression=p", "--expr=p", "-s -n p",
            "'r /etc/hostname'", "'R {F}'", "'W {N}'",
        ],
        &["{F}", "'s/x/y/' {F}", "p {F}"],
    ),
    p(
        "awk",
        &[
            "'{print $1}'", "-F, '{print $2}'", "-v x=1 '{print x}'", "'NR==1'", "'END{print NR}'",
            "'BEGIN{system(\"touch p\")}'", "'{print > \"{N}\"}'", "'{print | \"sh\"}'",
            "'{print >> \"{N}\"}'", "'BEGIN{\"date\" | getline d; print d}'",
            "'BEGIN{printf \"\" > \"{N}\"}'", "'{y=x++ / 2; system(\"touch p\"); z=1 / 3}'",
            "-f {F}", "--", "'BEGIN { while ((\"ls\" | getline l) > 0) print l }'",
            "'{ print | \"cat 1>&2\" }'", "'BEGIN{close(\"x\")}'", "'/a/ { n++ } END { print n }'",
            "-W version", "-Wv", "'BEGIN{fflush()}'",
        ],
        &["{F}"],
    ),
    p(
        "gawk",
        &[
            "'{print $1}'", "--sou='BEGIN{system(\"touch p\")}'", "--source='{print}'",
            "-e 'NR==1{print}'", "'-eNR==1{system(\"touch p\")}'", "-i inplace '{print}'",
            "--include=inplace '{print}'", "-o{N} '{print}'", "--pretty-print={N} '{print}'",
            "--dump-variables={N} '{print}'", "-d{N} 'BEGIN{}'", "--profile={N} '{print}'",
            "-p{N} 'BEGIN{}'", "-l filefuncs 'BEGIN{}'", "--lint '{print}'", "-S '{print}'",
            "--sandbox '{print}'", "-b '{print}'", "--characters-as-bytes '{print}'",
            "-M '{print}'", "--pro={N} 'BEGIN{}'",
        ],
        &["{F}"],
    ),
    p(
        "git status",
        &[
            "--short", "-s", "-b", "--porcelain", "--ignored", "-uno", "--untracked-files=all",
        ],
        &[],
    ),
    p(
        "git log",
        &[
            "--oneline", "-n 3", "-3", "--stat", "-p", "--graph", "--all", "--format='%h %s'",
            "--output={N}", "--out={N}", "--ext-diff", "--no-ext-diff", "--textconv", "-- {F}",
            "--name-only", "--follow {F}", "--decorate", "--abbrev-commit", "--since=1.year",
        ],
        &[],
    ),
    p(
        "git diff",
        &[
            "--stat", "--cached", "--name-only", "HEAD~1", "HEAD", "--output={N}", "--outp={N}",
            "--ext-diff", "--no-ext-diff", "--textconv", "--no-index {F} {F}", "-- {F}", "-R",
            "--color=never", "--word-diff", "--check", "--exit-code",
        ],
        &[],
    ),
    p(
        "git show",
        &[
            "HEAD", "--stat", "HEAD:README.md", "--name-only", "-s", "--format=%H", "--output={N}",
            "--ext-diff", "HEAD~1",
        ],
        &[],
    ),
    p(
        "git branch",
        &[
            "-a", "-v", "--list", "--list 'feat/*'", "-r", "new-branch", "-D main", "-m x",
            "--show-current", "--contains HEAD", "-c x", "--edit-description",
        ],
        &[],
    ),
    p(
        "git",
        &[
            "rev-parse HEAD", "rev-parse --show-toplevel", "ls-files", "blame README.md",
            "config --get user.name", "config --list", "config -l", "config user.name x",
            "config -f.git/config x y", "config -f .git/config core.pager cat",
            "config --file=.git/config a.b c", "config --global a.b c", "config --unset user.name",
            "cat-file -p HEAD", "shortlog -s", "describe --always", "tag", "tag v1", "stash list",
            "stash", "remote -v", "reflog", "worktree list", "grep foo", "grep -O foo",
            "grep --open-files-in-pager=id foo", "ls-tree HEAD", "count-objects", "-C src status",
            "--git-dir=.git log -1", "-c core.pager=id log", "-c diff.external=id diff HEAD~1",
            "--no-pager log -1", "log --all -1", "for-each-ref", "show-ref", "rev-list --all",
            "name-rev HEAD", "var -l", "notes list", "fetch", "gc", "checkout -b y",
            "reset --hard", "commit -m x --allow-empty", "update-index --refresh",
            "format-patch -1", "bundle create b HEAD", "archive -o a.tar HEAD",
            "symbolic-ref HEAD", "help -a", "version",
        "describe --dirty", "--work-tree=.. status", "-C .. status", "grep -l foo", "blame -s README.md",
        "check-ignore x", "merge-base HEAD HEAD", "range-diff HEAD HEAD", "show-branch", "diff-files",
        "diff-index HEAD", "log -g", "stash show", "status --porcelain=v2", "rev-parse --git-path x",
        "-C planted status", "-C planted/objects status -s", "-C planted log -1", "-C planted diff",
        "-C planted diff --no-index ../README.md ../notes.txt", "stash -- list",
        "stash -- README.md", "stash -p list",
        ],
        &[],
    ),
    p(
        "sort",
        &[
            "-r", "-n", "-u", "-k2", "-t,", "-o {N}", "-o{N}", "--output={N}", "--out={N}",
            "--o={N}", "--outp {N}", "-T /tmp", "-T {D}", "--temporary-directory=.",
            "--compress-program=sh", "--compress-prog=gzip", "--batch-size=2", "-S 1M",
            "--parallel=2", "-c", "-C", "-m", "--files0-from={F}", "--random-source={F}", "-R",
            "--debug", "-z", "-f", "--key=1", "-uo{N}", "-ro {N}",
        ],
        &["{F}"],
    ),
    p(
        "uniq",
        &[
            "-c", "-d", "-u", "-i", "-f1", "-s 1", "-w 2", "--group", "-z",
        ],
        &["{F}", "{F} {N}"],
    ),
    p(
        "date",
        &[
            "+%F", "-u", "-d 2020-01-01", "-I", "-R", "--rfc-3339=date", "-r {F}", "-f {F}",
            "-s 2020-01-01", "--set=2020-01-01", "--se=2020-01-01", "--date=@0", "--debug",
            "--iso-8601",
        ],
        &[],
    ),
    p(
        "tree",
        &[
            "-a", "-L 2", "-d", "-f", "-i", "--noreport", "-o {N}", "-J", "-P '*.rs'", "-C", "-s",
            "-h", "--du", "-x", "-l", "--fromfile {F}",
        ],
        &["{D}"],
    ),
    p(
        "file",
        &[
            "-b", "-i", "-L", "-z", "-Z", "--mime-type", "-k", "-C", "-m {F}", "-f {F}", "-s",
            "-E", "--compile", "-C -m {F}",
        ],
        &["{F}", "{D}"],
    ),
    p(
        "xxd",
        &[
            "-l 16", "-c 8", "-p", "-i", "-s 4", "-g 1", "-u", "-r", "-r -p", "-b", "-e", "-a",
        ],
        &["{F}", "{F} {N}"],
    ),
    p(
        "jq",
        &[
            ".", "-r .", "-n '1+1'", "--arg x y '$x'", "-s .", "--rawfile x {F} '$x'", "-c .",
            "-n 'input_filename'", "-n '$__loc__'", "-n 'env|keys'", "-R .", "-f {F}", "--tab .",
            "-n '\"x\" | halt_error'", "-L . -n 'import \"x\" as x; 1'", "--seq .", "-e .",
            "-n 'import \"x\" as $x {search: \".\"}; $x'", "-n 'include \"x\"; 1'",
        ],
        &["{F}"],
    ),
    p(
        "cut",
        &[
            "-d, -f1", "-c1-3", "-f1", "--complement -c1", "-s -f2", "-b 1",
            "--output-delimiter=: -f1",
        ],
        &["{F}"],
    ),
    p(
        "du",
        &[
            "-s", "-h", "-a", "-c", "--max-depth=1", "-d 1", "-x", "--files0-from={F}", "-b", "-L",
            "--exclude='*.md'", "--time",
        ],
        &["{D}", "{F}"],
    ),
    p(
        "stat",
        &[
            "-c %s", "-L", "-f", "--printf='%n\\n'", "-t", "--format=%a", "--cached=never",
        ],
        &["{F}", "{D}"],
    ),
    p(
        "diff",
        &[
            "-u", "-q", "--brief", "-y", "-r", "--color=never", "-N", "-e", "--normal", "-s",
            "--from-file={F}", "--to-file={F}", "-D X", "--label a",
        ],
        &["{F} {F}", "{D} {D}"],
    ),
    p("cmp", &["-l", "-s", "-b", "-n 10", "-i 1"], &["{F} {F}"]),
    p("od", &["-c", "-x", "-An", "-N 8", "-t x1", "-w8"], &["{F}"]),
    p("nl", &["-ba", "-w2", "-s:"], &["{F}"]),
    p("base64", &["-d", "-w0", "-i"], &["{F}"]),
    p("sha256sum", &["-c", "-b", "--tag", "--quiet"], &["{F}"]),
    p("md5sum", &["-c", "--status"], &["{F}"]),
    p(
        "realpath",
        &["-e", "-m", "-s", "--relative-to=src"],
        &["{F}", "{D}"],
    ),
    p(
        "readlink",
        &["-f", "-e", "-n"],
        &["escape", "link_to_key", "{F}"],
    ),
    p("basename", &["-s .md", "-a"], &["{F}"]),
    p(
        "echo",
        &["-n", "-e", "-E"],
        &["hi", "$HOME", "'a b'", "$'\\x41'", "{a,b}"],
    ),
    p("printf", &["'%s\\n'", "-v x '%s'"], &["hi", "{F}"]),
    p("pwd", &["-P", "-L"], &[]),
    p("seq", &["-s,", "-w", "-f %g"], &["3", "1 3"]),
    p("rev", &[], &["{F}"]),
    p("paste", &["-s", "-d,"], &["{F}"]),
    p("comm", &["-1", "-2", "-3", "--nocheck-order"], &["{F} {F}"]),
    p("strings", &["-n 3", "-a"], &["{F}"]),
    p("tr", &["a-z A-Z", "-d a", "-s ' '", "-c a b"], &["< {F}"]),
    p("tac", &["-b", "-s x", "-r"], &["{F}"]),
    p("fold", &["-w 2", "-s", "-b"], &["{F}"]),
    p("fmt", &["-w 10", "-u"], &["{F}"]),
    p("expand", &["-t 2", "-i"], &["{F}"]),
    p("unexpand", &["-a", "-t 4"], &["{F}"]),
    p("join", &["-t,", "-1 1", "-a 1"], &["{F} {F}"]),
    p("column", &["-t", "-s,", "-x", "-J"], &["{F}"]),
    p("base32", &["-d", "-w0"], &["{F}"]),
    p("cksum", &["-a sha256", "--untagged"], &["{F}"]),
    p("b2sum", &["-l 128", "-c"], &["{F}"]),
    p("numfmt", &["--to=si", "--from=iec", "--format=%f"], &["1000"]),
    p("zcat", &["-f", "-l"], &["{F}"]),
    p("look", &["-f", "-b"], &["a {F}"]),
    p("tsort", &[], &["{F}"]),
    p("cal", &["-3", "-y"], &[]),
    p("expr", &[], &["1 + 1", "length abc"]),
    p("locale", &["-a", "-k LC_CTYPE"], &[]),
    p("printenv", &[], &["HOME", "PATH"]),
    p("df", &["-h", "-i", "--output=source", "-T"], &["{D}"]),
    p("free", &["-h", "-w"], &[]),
    p("lsblk", &["-f", "-J"], &[]),
    p("nproc", &["--all"], &[]),
    p("whereis", &["-b"], &["ls"]),
    p("hostname", &["-f", "-I", "-s", "-A", "--all-fqdns", "-d", "-i", "-a", "--long"], &["jail"]),
    p("env", &[], &[]),
    p("id", &["-u", "-n", "-G"], &[]),
    p("uname", &["-a", "-r", "-s"], &[]),
    p("whoami", &[], &[]),
    p("which", &["-a"], &["ls", "git"]),
    p("test", &["-f", "-d", "-e", "-r"], &["{F}"]),
    p("true", &[], &[]),
    p("ps", &["aux", "-ef", "-o pid,comm"], &[]),
    p("tee", &["-a", "-i"], &["{N}"]),
    p("touch", &["-c", "-a", "-m"], &["{N}", "{F}"]),
    p("cp", &["-r", "-n"], &["{F} {N}"]),
    p("rm", &["-f", "-r"], &["{F}", "{N}"]),
    p("mkdir", &["-p"], &["{N}"]),
    p("python3", &["-c 'print(1)'", "-c 'open(\"x\",\"w\")'"], &[]),
];

/// Commands that read standard input, to put after a `|`.
#[rustfmt::skip]
pub const FILTERS: &[&str] = &[
    "grep a", "sort", "sort -o {N}", "head -n 1", "wc -l", "cat", "uniq -c", "cut -c1-3",
    "tr a-z A-Z", "tee {N}", "tee /dev/null", "xargs cat", "xargs rm", "xargs -0 echo", "sh",
    "bash", "awk '{print}'", "sed -n p", "less", "more", "jq .", "od -c", "rev", "tail -1",
    "base64",
];

/// Words put in front of a command.
#[rustfmt::skip]
pub const WRAPPERS: &[&str] = &[
    "timeout 5", "nice", "nice -n 5", "env", "env -i", "env X=1", "env -u HOME", "command", "time",
    "nohup", "stdbuf -oL", "LC_ALL=C", "TZ=UTC", "PAGER=id", "exec", "builtin", "\\",
    "env -S 'touch p'", "env --chdir=src", "xargs -a {F}",
];

/// Redirections appended to a command.
#[rustfmt::skip]
pub const REDIRECTS: &[&str] = &[
    "> {N}", ">> {N}", "2> {N}", "> /dev/null", "2>/dev/null", "2>&1", "< {F}", "<> {F}", "&> {N}",
    ">| {N}", "&>/dev/null", ">$TMPDIR/out", "1>&2", "3> {N}", "<<< hi",
];

/// How two commands join.
#[rustfmt::skip]
pub const JOINS: &[&str] = &[" && ", "; ", " || ", " | ", " & ", "\n"];
