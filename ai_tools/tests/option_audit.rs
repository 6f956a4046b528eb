//! An audit of the read-only proof's option models against the programs'
//! own manuals. The table below was written from each program's `--help`
//! and man page (GNU coreutils 9, GNU sed 4.9, gawk 5, grep 3, ripgrep,
//! fd, tree 2.1, xxd, jq 1.7, file 5, git), not from koi's models: every
//! option that writes a file, runs a program, reads a file list the
//! checker never sees, or sets state. Each is tried in every spelling bash
//! and getopt accept — full name, every prefix, `--opt=v`, `--opt v`,
//! short, attached, in a cluster, after an operand, through brace
//! expansion, ANSI-C quoting and split quoting — and none may run without
//! asking. A few safe spellings per program must still run, so the audit
//! fails both ways.

#![allow(clippy::unwrap_used)] // Tests: a failed unwrap is a failed test.

use ai_tools::{policy, policy_table, Mode, Workspace};

/// One dangerous option, as the program's manual documents it.
struct Danger {
    prog: &'static str,
    /// The long name, without `--`.
    long: Option<&'static str>,
    short: Option<char>,
    /// A value, where the option takes one (`None` for flags).
    value: Option<&'static str>,
    /// Whether the value may only be attached (`-i[SUF]`, `--opt[=V]`).
    optional: bool,
    /// A safe flag of the same program to cluster before the short form.
    cluster: &'static str,
    /// Operands that make the rest of the command line harmless.
    operands: &'static str,
    /// Does the program permute (GNU getopt, ripgrep, fd)?
    permute: bool,
    /// Long prefixes that are another option's exact name (so they are
    /// rightly a different, safe option).
    shadowed: &'static [&'static str],
}

const fn d(
    prog: &'static str,
    long: Option<&'static str>,
    short: Option<char>,
    value: Option<&'static str>,
    cluster: &'static str,
    operands: &'static str,
) -> Danger {
    Danger {
        prog,
        long,
        short,
        value,
        optional: false,
        cluster,
        operands,
        permute: true,
        shadowed: &[],
    }
}

const fn optional(mut x: Danger) -> Danger {
    x.optional = true;
    x
}

const fn posix(mut x: Danger) -> Danger {
    x.permute = false;
    x
}

const fn shadow(mut x: Danger, s: &'static [&'static str]) -> Danger {
    x.shadowed = s;
    x
}

const SYS: &str = "'BEGIN{system(\"touch p\")}'";

const DANGERS: &[Danger] = &[
    // sort: -o writes, -T writes temporary files, --compress-program runs
    // a program, --files0-from prints files the checker never sees.
    d(
        "sort",
        Some("output"),
        Some('o'),
        Some("out.txt"),
        "r",
        "notes.txt",
    ),
    d(
        "sort",
        Some("temporary-directory"),
        Some('T'),
        Some("clean"),
        "r",
        "notes.txt",
    ),
    d(
        "sort",
        Some("compress-program"),
        None,
        Some("sh"),
        "r",
        "notes.txt",
    ),
    d("sort", Some("files0-from"), None, Some("names0"), "r", ""),
    // sed: -i edits in place, -f reads a script the checker never sees.
    optional(d(
        "sed",
        Some("in-place"),
        Some('i'),
        Some(".bak"),
        "n",
        "p notes.txt",
    )),
    d(
        "sed",
        Some("file"),
        Some('f'),
        Some("notes.txt"),
        "n",
        "notes.txt",
    ),
    d(
        "sed",
        Some("expression"),
        Some('e'),
        Some("w out.txt"),
        "n",
        "notes.txt",
    ),
    d(
        "sed",
        Some("expression"),
        Some('e'),
        Some("1e id"),
        "n",
        "notes.txt",
    ),
    // gawk: program text, files of program text, extensions, and the
    // options that write dumps and profiles.
    d(
        "gawk",
        Some("source"),
        Some('e'),
        Some(SYS),
        "b",
        "notes.txt",
    ),
    d(
        "gawk",
        Some("file"),
        Some('f'),
        Some("notes.txt"),
        "b",
        "notes.txt",
    ),
    d(
        "gawk",
        Some("exec"),
        Some('E'),
        Some("notes.txt"),
        "b",
        "notes.txt",
    ),
    d(
        "gawk",
        Some("include"),
        Some('i'),
        Some("notes.txt"),
        "b",
        "1 notes.txt",
    ),
    d(
        "gawk",
        Some("load"),
        Some('l'),
        Some("x"),
        "b",
        "1 notes.txt",
    ),
    optional(d(
        "gawk",
        Some("dump-variables"),
        Some('d'),
        Some("o.txt"),
        "b",
        "1 notes.txt",
    )),
    optional(d(
        "gawk",
        Some("profile"),
        Some('p'),
        Some("o.txt"),
        "b",
        "1 notes.txt",
    )),
    optional(d(
        "gawk",
        Some("pretty-print"),
        Some('o'),
        Some("o.txt"),
        "b",
        "1 notes.txt",
    )),
    optional(d(
        "gawk",
        Some("debug"),
        Some('D'),
        Some("o.txt"),
        "b",
        "1 notes.txt",
    )),
    // awk here is gawk; mawk has -W exec and -f.
    posix(d(
        "awk",
        Some("source"),
        Some('e'),
        Some(SYS),
        "",
        "notes.txt",
    )),
    posix(d(
        "awk",
        Some("exec"),
        Some('E'),
        Some("notes.txt"),
        "",
        "notes.txt",
    )),
    posix(d(
        "awk",
        Some("load"),
        Some('l'),
        Some("x"),
        "",
        "1 notes.txt",
    )),
    posix(d(
        "awk",
        Some("file"),
        Some('f'),
        Some("notes.txt"),
        "",
        "notes.txt",
    )),
    posix(d(
        "mawk",
        None,
        Some('f'),
        Some("notes.txt"),
        "",
        "notes.txt",
    )),
    posix(d(
        "mawk",
        None,
        Some('W'),
        Some("exec=notes.txt"),
        "",
        "notes.txt",
    )),
    // date -s sets the clock.
    d("date", Some("set"), Some('s'), Some("2001-01-01"), "u", ""),
    // diff -l pipes through pr.
    d(
        "diff",
        Some("paginate"),
        Some('l'),
        None,
        "q",
        "notes.txt README.md",
    ),
    // file -C writes a compiled magic file; -z runs decompressors.
    d("file", Some("compile"), Some('C'), None, "b", "notes.txt"),
    d(
        "file",
        Some("uncompress"),
        Some('z'),
        None,
        "b",
        "notes.txt",
    ),
    d(
        "file",
        Some("no-sandbox"),
        Some('S'),
        None,
        "b",
        "notes.txt",
    ),
    // hostname -F / -b set the host name.
    d(
        "hostname",
        Some("file"),
        Some('F'),
        Some("notes.txt"),
        "s",
        "",
    ),
    d("hostname", Some("boot"), Some('b'), None, "s", ""),
    // env runs programs from a split string or a new directory.
    d(
        "env",
        Some("split-string"),
        Some('S'),
        Some("touch p"),
        "i",
        "",
    ),
    d("env", Some("chdir"), Some('C'), Some("/"), "i", ""),
    // ripgrep: --pre and --hostname-bin run programs, -z runs decoders.
    d("rg", Some("pre"), None, Some("sh"), "n", "a notes.txt"),
    d(
        "rg",
        Some("hostname-bin"),
        None,
        Some("sh"),
        "n",
        "a notes.txt",
    ),
    d(
        "rg",
        Some("search-zip"),
        Some('z'),
        None,
        "n",
        "a notes.txt",
    ),
    // fd: --exec and --exec-batch run programs; -l runs ls.
    d("fdfind", Some("exec"), Some('x'), Some("rm"), "H", "a"),
    d(
        "fdfind",
        Some("exec-batch"),
        Some('X'),
        Some("rm"),
        "H",
        "a",
    ),
    // tree -o writes its listing; -R writes 00Tree.html files.
    d("tree", None, Some('o'), Some("out.txt"), "a", "clean"),
    d("tree", None, Some('R'), None, "a", "clean"),
    // jq: programs and data from files the checker never sees.
    d(
        "jq",
        Some("from-file"),
        Some('f'),
        Some("notes.txt"),
        "r",
        "notes.txt",
    ),
    d("jq", None, Some('L'), Some("clean"), "r", ". notes.txt"),
    // git: a config value can name a program to run; --output writes.
    posix(shadow(
        d(
            "git",
            None,
            Some('c'),
            Some("core.pager=touch p"),
            "P",
            "log",
        ),
        &[],
    )),
    posix(d("git", Some("exec-path"), None, Some("clean"), "", "log")),
    posix(d("git", Some("git-dir"), None, Some("planted"), "", "log")),
];

/// Commands whose effect is in the values or the operands, not in one
/// option, spelled several ways (writes, runs, the recursive walks into
/// places the floor protects, clusters whose value swallows a later
/// argument as the program does).
const RAW_DANGERS: &[&str] = &[
    // tree takes every value from the next argument, even mid-cluster:
    // `-Lo 2 out` is -L 2 and -o out.
    "tree -Lo 2 out.txt clean",
    "tree -aLo 2 out.txt clean",
    "tree -Po '*' out.txt clean",
    "tree -IR x clean",
    "tree -H. clean",
    "tree --fromfile notes.txt",
    // gawk reads long options from -W.
    "gawk -W source='BEGIN{system(\"id\")}' 1",
    "gawk -Wsource='BEGIN{system(\"id\")}' 1",
    "gawk -W exec=notes.txt",
    "awk -W exec=notes.txt",
    "gawk -bnW exec notes.txt",
    // xxd: the second file name is written, -r turns hex back into bytes.
    "xxd notes.txt out.txt",
    "xxd -r notes.txt out.txt",
    "xxd -revert notes.txt",
    "xxd -ps notes.txt out.txt",
    // uniq's second operand is its output.
    "uniq notes.txt out.txt",
    "uniq -c notes.txt out.txt",
    "uniq notes.txt -c out.txt",
    // sed scripts that write or run.
    "sed -n 'w out.txt' notes.txt",
    "sed 's/a/b/w out.txt' notes.txt",
    "sed -ne 's/a/b/e' notes.txt",
    "sed -nie p notes.txt",
    "sed -sni p notes.txt",
    "sed -n p -i notes.txt",
    "sed 'r /etc/shadow' notes.txt",
    "sed '1R /etc/shadow' notes.txt",
    "sed --posix -i p notes.txt",
    "sed -e p --in-pl notes.txt",
    "sed $'\\55i' p notes.txt",
    "sed {-i,p} notes.txt",
    // awk programs that run or write.
    "awk 'BEGIN{system(\"id\")}'",
    "awk '{print > \"out.txt\"}' notes.txt",
    "awk '{print | \"sh\"}' notes.txt",
    "awk 'BEGIN{\"id\" | getline x}'",
    "gawk -e 'BEGIN{system(\"id\")}'",
    "gawk -be'BEGIN{system(\"id\")}'",
    "gawk --so='BEGIN{system(\"id\")}'",
    // date: a bare argument sets the clock.
    "date 010100002030",
    "date -u 010100002030",
    // env and command run their operands.
    "env touch p",
    "env -i touch p",
    "command touch p",
    "printf -v PATH x",
    "printf -vPATH x",
    // find's actions.
    "find . -delete",
    "find . {-delete,-print}",
    "find . $'\\55delete'",
    "find . -exec rm {} +",
    "find . -execdir rm {} +",
    "find . -ok rm {} ;",
    "find . -okdir rm {} ;",
    "find . -fprint out.txt",
    "find . -fprint0 out.txt",
    "find . -fprintf out.txt %p",
    "find . -fls out.txt",
    "find . -name x -o -delete",
    "find . -d''elete",
    "find . -{delete,print}",
    "find . -de{l,}ete",
    "find . {-de,-x}lete",
    "find . -{d..d}elete",
    "find . {,-delete}",
    "find . {{-delete,a},b}",
    "find . {-delete,}",
    "find . -{de,}lete",
    "find . $'\\x2ddelete'",
    "find . $'\\x2Ddelete'",
    "find . $'\\u002ddelete'",
    "find . $'\\U2d'delete",
    "find . $'\\055delete'",
    "find . $'\\55'delete",
    "find . $'\\x2d\\x64elete'",
    "find . $'\\x2dd'elete",
    "find . $'\\55\\144elete'",
    "find . $'\\x2D\\x64\\x65\\x6c\\x65\\x74\\x65'",
    "find . $'\\u2d'delete",
    "find . $'\\u002d'delete",
    "find . $'\\U0000002D'delete",
    "find . $'\\x2d'$'\\x64'elete",
    "find . -$'\\144'elete",
    "find . $'-'$'d'\\elete",
    "sort $'-\\157' out.txt notes.txt",
    "sort $'\\55o'out.txt notes.txt",
    "cat ~/$'\\x2e'ssh/id_rsa",
    "cat ~/$'\\u002e'config/koi/koi.toml",
    "cat $'\\56\\145nv'",
    "cat $'\\x2e'env",
    "grep -r KEY $'\\x2fproc'/self",
    "grep -r KEY $'/\\x70roc'",
    "find . $'-\\x64\\x65lete'",
    "find . \\-delete",
    "find . -\\delete",
    "find . \"-delete\"",
    "find . '-'delete",
    "find . $\"-delete\"",
    "find . -exe''c rm {} +",
    "find . $'\\55exec' rm {} +",
    "find . -{exec,print} rm {} +",
    "find . -fpr{int,} out.txt",
    "sort -{o,r} out.txt notes.txt",
    "sort -o{out.txt,} notes.txt",
    "sort --outpu{t,}=out.txt notes.txt",
    "sort {-r,-o} out.txt notes.txt",
    "sed -{i,n} p notes.txt",
    "sed -{n,i} p notes.txt",
    "gawk -{b,e} 'BEGIN{system(\"id\")}'",
    // git's state changes and programs.
    "git -c core.pager='touch p' log",
    "git -ccore.pager='touch p' log",
    "git --exec-path=clean log",
    "git diff --output=out.txt",
    "git log --output=out.txt",
    "git log --out=out.txt",
    "git diff --ext-diff",
    "git log -p --ext-diff",
    "git grep -O foo",
    "git grep -Otouch foo",
    "git grep --open-files-in-pager=touch foo",
    "git cat-file --textconv HEAD:README.md",
    "git config core.pager 'touch p'",
    "git config -f.git/config core.pager x",
    "git stash",
    "git stash -- list",
    "git branch -D main",
    "git tag x",
    "git checkout .",
    // jq's file readers.
    "jq --rawfile k /etc/shadow -n '$k'",
    "jq --slurpfile k /etc/shadow -n '$k'",
    "jq -n 'import \"x\" as $x; 1'",
    "jq -n 'include \"x\"; 1'",
    // ps's environment printers.
    "ps e",
    "ps auxe",
    "ps eww",
    // sort's writers after operands and in clusters.
    "sort notes.txt -o out.txt",
    "sort -ro out.txt notes.txt",
    "sort -rnoout.txt notes.txt",
    "sort --ou=out.txt notes.txt",
    "sort --{output,x}=out.txt notes.txt",
    "sort {--output=out.txt,notes.txt}",
    "sort $'--\\x6futput=out.txt' notes.txt",
    "sort --out''put=out.txt notes.txt",
    // Recursive walks into places the floor protects, however spelled.
    "grep -r KEY /proc/self",
    "grep -R KEY /proc/self",
    "grep -rn KEY /proc/self",
    "grep --recursive KEY /proc/self",
    "grep --recur KEY /proc/self",
    "grep --dereference-recursive KEY /proc/self",
    "grep -d recurse KEY /proc/self",
    "grep -drecurse KEY /proc/self",
    "grep --directories=recurse KEY /proc/self",
    "grep --dir recurse KEY /proc/self",
    "grep KEY /proc/self -r",
    "grep -r KEY /proc",
    "grep -r KEY /sys/kernel",
    "grep -r KEY /./proc/self",
    "grep -r KEY /usr/../proc/self",
    "grep -r KEY $'\\57proc'/self",
    "grep -r KEY /{proc,tmp}",
    "grep -r KEY links/proc",
    "grep -R KEY links",
    "grep -r KEY /",
    "grep -r key ~/.ssh",
    "grep -r key ~/.config/koi",
    "grep -r key ~/.config",
    "grep -r key ~",
    "rg KEY /proc/self",
    "rg KEY /",
    "rg -uuu KEY ~/.ssh",
    "rg --files /proc",
    "fdfind . /proc",
    "fdfind -H . ~/.ssh",
    "find /proc -name environ",
    "find / -name x",
    "find ~/.ssh",
    "ls -R /proc",
    "ls --recursive /proc/self",
    "ls -laR /proc",
    "ls --recu /proc",
    // ls -F is a flag (only --classify takes a value): -FR recurses.
    "ls -FR /proc",
    "ls -aFR /proc/self",
    "du -a /proc",
    "du /sys",
    "tree /proc",
    "diff -r /proc/self /proc/1",
    "diff /proc/self /proc/1",
    "diff --recursive /proc/self /proc/1",
    "diff --recur /proc/self /proc/1",
    "diff -qr /proc/self /proc/1",
    // A directory change carries over to the next command.
    "cd /proc/self && grep -r KEY .",
    "cd /proc/self; cat environ",
    "cd /; grep -r KEY proc/self",
    "cd ~/.ssh && cat id_rsa",
    "cd links && grep -r KEY proc",
    "cd - && grep -r KEY .",
    "cd && grep -r KEY .",
    "cd; cat .ssh/id_rsa",
    "cd ~ && cat .ssh/id_rsa",
    "cd -P links/proc && cat environ",
    "cd -L links/proc/.. && grep -r KEY .",
    "pushd /proc/self && cat environ",
    "cd /proc/self || cat environ",
    "cd /tmp; cd /proc/self; cat environ",
    "cd $'\\x2fproc' && grep -r KEY .",
    "cd {/proc,/tmp} && grep -r KEY .",
    "cd \"$OLDPWD\" && grep -r KEY .",
    "cd .. && cd .. && grep -r KEY /proc/self",
    "cd /proc && cd self && cat environ",
    "cd /proc/self && grep -r KEY",
    "cd /proc/self && rg KEY",
    "cd /proc/self && ls -R",
    "cd /proc/self && du -a",
    "cd /proc/self && tree",
    "cd /proc/self && fdfind",
    "cd /proc/self && find",
    // Walks whose roots come from elsewhere.
    "find -files0-from names0 -name x",
    "find . -files0-from names0",
    "du --files0-from=names0 -a",
    "git -C /proc/self grep --no-index environ",
    "git grep --no-index KEY /proc/self",
    // More writers and runners from the manuals.
    "git log --ext-diff -p",
    "git show --textconv HEAD",
    "git log --show-signature",
    "git log --format=%G?",
    "git log --pretty=format:%GS",
    "git diff --output out.txt",
    "git -p log",
    "git --paginate log",
    "git --config-env=core.pager=X log",
    "git --work-tree=/ status",
    "git grep -Ovim KEY",
    "git grep --open-files-in-pager KEY",
    "git cat-file --filters HEAD:README.md",
    "git blame --contents=/etc/shadow README.md",
    "git archive HEAD -o out.zip",
    "git format-patch -1",
    "git bundle create out.b HEAD",
    "git fetch",
    "git pull",
    "git gc",
    "git reflog expire --all",
    "git reflog delete HEAD@{0}",
    "git remote add x y",
    "git notes add -m x",
    "git worktree add x",
    "git submodule update",
    "git update-ref HEAD HEAD",
    "git symbolic-ref HEAD refs/heads/x",
    "git branch newb",
    "git branch -v newb",
    "git branch -a newb",
    "git branch -r newb",
    "git branch -i newb",
    "git branch --no-abbrev newb",
    "git branch --sort=refname newb",
    "git branch newb HEAD",
    "git tag newt",
    "git tag -i newt",
    "git tag --sort=refname newt",
    "git tag newt HEAD",
    "git remote add x y",
    "git remote -v add x y",
    "git remote rename a b",
    "git remote remove a",
    "git remote set-url a b",
    "git remote prune origin",
    "git remote update",
    "git remote show origin",
    "git remote -v show origin",
    "git remote -n prune origin",
    "git ls-remote origin",
    "git config a.b c",
    "git config --local a.b c",
    "git config --global a.b c",
    "git config --system a.b c",
    "git config --worktree a.b c",
    "git config -f notes.txt a.b c",
    "git config --file=notes.txt a.b c",
    "git config --bool a.b true",
    "git config --type=bool a.b true",
    "git config --includes a.b c",
    "git config --path a.b c",
    "git config --int a.b 1",
    "git config -z a.b c",
    "git config a.b c d",
    "git config --unset a.b",
    "git config --add a.b c",
    "git config --edit",
    "git config --rename-section a b",
    "git config set a.b c",
    "git config unset a.b",
    "git stash show -p stash@{0} --output=out.txt",
    "git stash drop",
    "git stash pop",
    "git stash clear",
    "git stash -v",
    "git worktree prune",
    "git worktree remove x",
    "git worktree lock x",
    "git notes remove HEAD",
    "git notes -v add",
    "git reflog expire",
    "git reflog -v delete HEAD@{1}",
    "rg --pre=sh KEY",
    "rg --pre sh KEY",
    "rg KEY --pre=sh",
    "rg -z KEY",
    "rg -nz KEY",
    "rg --search-zip KEY",
    "rg --hostname-bin=sh KEY",
    "rg --pre-glob='*' --pre=sh KEY",
    "fdfind -x rm",
    "fdfind -X rm",
    "fdfind . -x rm",
    "fdfind -Hx rm",
    "fdfind --exec rm",
    "fdfind --exec-batch=rm",
    "fdfind -l",
    "fdfind --list-details",
    "file -C -m notes.txt",
    "file -z notes.txt",
    "file -bz notes.txt",
    "file --uncompress notes.txt",
    "file --unc notes.txt",
    "file -p notes.txt",
    "file --preserve-date notes.txt",
    "hostname newname",
    "hostname -F notes.txt",
    "hostname -b x",
    "hostname --file notes.txt",
    "hostname --fi notes.txt",
    "date --set=2001-01-01",
    "date --se=2001-01-01",
    "date -s 2001-01-01",
    "date -us 2001-01-01",
    "date -s2001-01-01",
    "date +%s -s 2001-01-01",
    "jq -f notes.txt notes.txt",
    "jq -nf notes.txt",
    "jq --from-file notes.txt",
    "jq -L clean -n 1",
    "jq -Lclean -n 1",
    "jq -n --rawfile k notes.txt '$k'",
    "jq -n --slurpfile k notes.txt '$k'",
    "strings @notes.txt",
    "strings -a @notes.txt",
    "tree -o out.txt",
    "tree -ao out.txt",
    "tree clean -o out.txt",
    "tree -R -H . clean",
    "tree -H . -o out.txt",
    "env -S 'touch p'",
    "env -iS 'touch p'",
    "env --split-string='touch p'",
    "env --sp='touch p'",
    "env -C / touch p",
    "env X=1 touch p",
    "sort -T clean notes.txt",
    "sort -Tclean notes.txt",
    "sort --temp=clean notes.txt",
    "sort --compress-program=sh notes.txt",
    "sort --com=sh notes.txt",
    "sort --files0-from=names0",
    "sort --files0=names0",
    "sort --fi=names0",
    "sed --in-place p notes.txt",
    "sed --in p notes.txt",
    "sed --i p notes.txt",
    "sed -i.bak p notes.txt",
    "sed -Ei p notes.txt",
    "sed -f notes.txt notes.txt",
    "sed -nf notes.txt notes.txt",
    "sed --file=notes.txt notes.txt",
    "sed --fi=notes.txt notes.txt",
    "sed --expr='w out.txt' notes.txt",
    "sed -n -e p -e 'w out.txt' notes.txt",
    "sed '1!G;h;$!d;w out.txt' notes.txt",
    "sed '/a/w out.txt' notes.txt",
    "sed '/a/ W out.txt' notes.txt",
    "sed 's|a|b|w out.txt' notes.txt",
    "sed 's/a/b/gw out.txt' notes.txt",
    "sed 'e id' notes.txt",
    "sed '1e id' notes.txt",
    "sed 's/a/id/e' notes.txt",
    "sed '$e id' notes.txt",
    "sed '{w out.txt\n}' notes.txt",
    // Each script GNU sed 4.9 was seen to open out.txt for (w files open
    // when the script is read, even after q).
    "sed -n 's/a/b/ w out.txt' notes.txt",
    "sed -n ':a;w out.txt' notes.txt",
    "sed -n 'ba;:a;w out.txt' notes.txt",
    "sed -n 'bla;:la;w out.txt' notes.txt",
    "sed -n 'tla;:la;w out.txt' notes.txt",
    "sed -n $'1a foo\\nw out.txt' notes.txt",
    "sed -n $'1i\\\\\\nfoo\\nw out.txt' notes.txt",
    "sed -n $'/a/{a foo\\nw out.txt\\n}' notes.txt",
    "sed -n 'y/a/b/;w out.txt' notes.txt",
    "sed -n '1~1w out.txt' notes.txt",
    "sed -n 's/a/b/mw out.txt' notes.txt",
    "sed -n 's/a/b/3w out.txt' notes.txt",
    "sed -n '$!N;w out.txt' notes.txt",
    "sed -n 'l;w out.txt' notes.txt",
    "sed -n 'l 5;w out.txt' notes.txt",
    "sed -n 'q;w out.txt' notes.txt",
    "sed -n '{p};w out.txt' notes.txt",
    "sed -n $'#n\\nw out.txt' notes.txt",
    "sed -n 'b;w out.txt' notes.txt",
    "sed -n 'T;w out.txt' notes.txt",
    "sed -n $'ta ;:a\\nw out.txt' notes.txt",
    "sed -n '0~0w out.txt' notes.txt",
    "sed -n 'b end;:end;w out.txt' notes.txt",
    "sed -n -e '/x/{p;w out.txt' -e '}' notes.txt",
    "gawk -d notes.txt",
    "gawk -dout.txt 1 notes.txt",
    "gawk --dump=out.txt 1 notes.txt",
    "gawk -p 1 notes.txt",
    "gawk --prof=out.txt 1 notes.txt",
    "gawk -o 1 notes.txt",
    "gawk --pretty=out.txt 1 notes.txt",
    "gawk -lfilefuncs 1 notes.txt",
    "gawk --lo=filefuncs 1 notes.txt",
    "gawk -i inplace 1 notes.txt",
    "gawk -iinplace 1 notes.txt",
    "gawk --inc=inplace 1 notes.txt",
    "gawk -E notes.txt",
    "gawk --ex=notes.txt",
    "gawk -D 1 notes.txt",
    "gawk '@load \"filefuncs\"; 1' notes.txt",
    "gawk '@include \"x\"' notes.txt",
    "awk -v x=1 'BEGIN{system(\"id\")}'",
    "awk '{printf \"%s\", $0 > \"out.txt\"}' notes.txt",
    "awk '{print $0 >> \"out.txt\"}' notes.txt",
    "awk '{print | \"cat 1>&2\"}' notes.txt",
    "awk '{\"date\" | getline d}' notes.txt",
    "awk '{getline line < \"/etc/shadow\"}' notes.txt",
    "awk 'BEGIN{ARGV[1]=\".env\"; ARGC=2} 1' notes.txt",
    "awk '{print ENVIRON[\"HOME\"]}' notes.txt",
    "awk '{x=a++ / 2; system(\"id\"); y=1 / 3}' notes.txt",
    "awk '{print > (\"out\" \".txt\")}' notes.txt",
    "mawk -W exec notes.txt",
    "mawk -Wexec notes.txt",
    "mawk -f notes.txt notes.txt",
    "mawk 'BEGIN{system(\"id\")}'",
    "diff -l notes.txt README.md",
    "diff --paginate notes.txt README.md",
    "diff --pag notes.txt README.md",
    "diff -ql notes.txt README.md",
    "diff notes.txt README.md -l",
    "xxd -r -p notes.txt out.txt",
    "xxd -c 4 notes.txt out.txt",
    "xxd notes.txt -c 4 out.txt",
    "uniq -u notes.txt out.txt",
    "uniq --count notes.txt out.txt",
    "ps eaux",
    "ps -e e",
    "printf -v x %s y",
    "printf -vx %s y",
    "tail --pid=1 -f notes.txt > out.txt",
    "cat notes.txt > out.txt",
    "cat notes.txt >| out.txt",
    "cat notes.txt &> out.txt",
    "cat notes.txt 2> out.txt",
    "cat notes.txt | tee out.txt",
    "cat $'\\56env'",
    "cat .e''nv",
    "cat {.env,notes.txt}",
    "cat ~/$'\\56'config/koi/koi.toml",
    "head -c 100 /proc/self/environ",
    "cat /proc/1/environ",
    "tr -d x < /proc/self/environ",
    "cat < /proc/self/environ",
    "grep -a KEY < /proc/self/environ",
    "sort < ~/.ssh/id_rsa",
    "head 0</proc/self/environ",
    "cat 0< .env",
    "cat <.env",
    "cat < $'\\x2e'env",
    "cat < {.env,x}",
    "base64 < .env",
    "xxd < .env",
    "od -c .env",
    "strings .env",
    "hexdump -C .env",
    "cut -c1- .env",
    "nl .env",
    "tail .env",
    "sed -n p .env",
    "awk 1 .env",
    "grep -h . .env",
    "rg -uu KEY .env",
    "sort .env",
    "cat ./.env",
    "cat src/../.env",
    "cat link_to_key",
    "cat escape/server.pem",
    "cat /proc/self/cwd/.env",
    "cat /proc/self/root/etc/shadow",
    "cat links/proc/environ",
    "cat /dev/fd/0 < .env",
    "git show HEAD:.env",
    "git cat-file -p HEAD:.env",
    "git diff --no-index .env notes.txt",
    "diff .env notes.txt",
    "cmp -l .env notes.txt",
    "comm .env notes.txt",
    "join .env notes.txt",
    "paste .env",
    "sort -m .env notes.txt",
    "jq -R . .env",
    "file -f .env",
    "date -f .env",
    "sed -n p --file=.env notes.txt",
    "grep -f .env notes.txt",
    "cd /proc/self && git grep --no-index KEY",
    "sha256sum -c .env",
    // Wrappers hand the rest to the program they run.
    "timeout 5 sort -o out.txt notes.txt",
    "timeout -s KILL 5 sort --out=out.txt notes.txt",
    "timeout --sig=KILL 5 sort -oout.txt notes.txt",
    "timeout -k5 5 sed -i p notes.txt",
    "timeout 5s find . -delete",
    "nice -n5 sort -o out.txt notes.txt",
    "nice --adj=5 find . -delete",
    "nice -5 find . -delete",
    "nohup find . -delete",
    "time find . -delete",
    "command find . -delete",
    "command -p find . -delete",
    "exec find . -delete",
    "builtin find . -delete",
    "stdbuf -o0 find . -delete",
    "stdbuf -oL sort -o out.txt notes.txt",
    "ionice -c3 find . -delete",
    "xargs rm < notes.txt",
    "xargs -a notes.txt rm",
    "echo . | xargs find -delete",
    "env find . -delete",
    "env -u X find . -delete",
    "env -- find . -delete",
    "setsid find . -delete",
    "watch find . -delete",
    "strace -o out.txt ls",
    "sudo ls",
    // What bash expands before the program sees it.
    "cat <(touch p)",
    "cat $(touch p)",
    "cat `touch p`",
    "echo ${x:=y}",
    "echo $((x=1))",
    "echo $[x=1]",
    "echo ${x=$(touch p)}",
    "cat notes.txt >&out.txt",
    "cat notes.txt >& out.txt",
    "ls &>>out.txt",
    "ls 2>>out.txt",
    "ls >&$x",
    "ls 1<>out.txt",
    "ls <>out.txt",
    "exec 3>out.txt",
    "f() { touch p; }; f",
    "eval touch p",
    "source notes.txt",
    ". notes.txt",
    "(cd /proc/self && cat environ)",
    "{ cd /proc/self; cat environ; }",
    "coproc touch p",
    "PATH=. ls",
    "LD_PRELOAD=./x.so ls",
    "GIT_PAGER='touch p' git log",
    "PAGER='touch p' git log",
    "GIT_EXTERNAL_DIFF='touch p' git diff",
    "GIT_CONFIG_GLOBAL=notes.txt git log",
    "BASH_ENV=notes.txt ls",
    "x=1; ls",
    "IFS=/ ls",
    // Names bash globs into options after a change of directory.
    "cd dashes && find *",
    "cd dashes; find * -print",
    "cd dashes && find ./ *",
    "find dashes/.. -delete",
];

/// Safe spellings that must still be allowed (the audit fails both ways).
const SAFE: &[&str] = &[
    "sort notes.txt",
    "sort -rn notes.txt",
    "sort -t, -k2 notes.txt",
    "sort --reverse --numeric-sort notes.txt",
    "sort --rev notes.txt",
    "sort -k 1,1 -u notes.txt",
    "sed -n p notes.txt",
    "sed -n 's/a/b/p' notes.txt",
    "sed -ne 1p notes.txt",
    "sed --quiet -e 1p notes.txt",
    "sed -E 's/(a)/\\1/' notes.txt",
    // c's text runs to the end of the line: `;w out.txt` is text.
    "sed 'cfoo;w out.txt' notes.txt",
    "gawk '{print $1}' notes.txt",
    "gawk -F, '{print $2}' notes.txt",
    "gawk -e '{print}' notes.txt",
    "gawk --field-sep=, '{print}' notes.txt",
    "awk -F: -v x=1 '{print x}' notes.txt",
    "awk 'NR==1' notes.txt",
    "mawk '{print}' notes.txt",
    "date",
    "date -u +%s",
    "date --utc +%F",
    "date -d yesterday +%F",
    "diff notes.txt README.md",
    "diff -u notes.txt README.md",
    "diff --brief notes.txt README.md",
    "file notes.txt",
    "file -b --mime-type notes.txt",
    "hostname",
    "hostname -s",
    "rg foo",
    "rg -n foo src",
    "rg --files",
    "rg -i -g '*.rs' main",
    "fdfind main",
    "fdfind -e rs",
    "tree",
    "tree -L 2",
    "tree -a -L 2 clean",
    "jq . notes.txt",
    "jq -r .a notes.txt",
    "jq -n --arg x 1 '$x'",
    "git log --oneline -5",
    "git status --short",
    "git diff --stat",
    "git -C src log -1",
    "git config --get-regexp a b",
    "git config a.b",
    "git branch --list",
    "git tag -l",
    "git remote -v",
    "git stash list",
    "git log -- --output=out.txt",
    "git status --porcelain -- x --output=out.txt",
    "xxd notes.txt",
    "xxd -l 16 notes.txt",
    "uniq -c notes.txt",
    "ls -la",
    "ls -R src",
    "ls -F src",
    "ls -Fa src",
    "ls --classify=auto src",
    "tail -fn5 notes.txt",
    "du -sh src",
    "df -h",
    "stat notes.txt",
    "stat -c %s notes.txt",
    "grep -rn main src",
    "grep -r --include='*.rs' main src",
    "grep -e a -e b notes.txt",
    "grep -c a notes.txt",
    "grep -A2 a notes.txt",
    "find . -name '*.rs'",
    "find src -type f -print",
    "find . -maxdepth 1",
    "head -n 5 notes.txt",
    "head -5 notes.txt",
    "tail -n+2 notes.txt",
    "wc -lw notes.txt",
    // wc prints counts and names, never what it read.
    "wc --files0-from=names0",
    "cut -d, -f1 notes.txt",
    "tr a-z A-Z",
    "nl -ba notes.txt",
    "od -c notes.txt",
    "hexdump -C notes.txt",
    "base64 notes.txt",
    "cmp notes.txt README.md",
    "cat -n notes.txt",
    "ps aux",
    "ps -ef",
    "printf '%s\\n' x",
    "echo {a,b}",
    "cat {notes.txt,README.md}",
    "cat $'notes.txt'",
];

/// Every spelling of one dangerous option.
fn spellings(x: &Danger) -> Vec<String> {
    let mut out = Vec::new();
    let prog = x.prog;
    let ops = x.operands;
    let v = x.value.map(shell_quote);
    if let Some(long) = x.long {
        let mut names: Vec<String> = (1..=long.len())
            .map(|n| long[..n].to_string())
            .filter(|p| !x.shadowed.contains(&p.as_str()))
            .collect();
        names.dedup();
        for name in &names {
            match &v {
                Some(v) => {
                    out.push(format!("{prog} --{name}={v} {ops}"));
                    if !x.optional {
                        out.push(format!("{prog} --{name} {v} {ops}"));
                    }
                }
                None => out.push(format!("{prog} --{name} {ops}")),
            }
        }
        let eq = match &v {
            Some(v) => format!("={v}"),
            None => String::new(),
        };
        let (head, tail) = long.split_at(long.len().min(2));
        out.push(format!("{prog} --{head}''{tail}{eq} {ops}"));
        out.push(format!("{prog} \"--\"{long}{eq} {ops}"));
        out.push(format!("{prog} $'\\55\\55{long}'{eq} {ops}"));
        out.push(format!("{prog} $'\\x2d-{long}'{eq} {ops}"));
        out.push(format!("{prog} $'\\x2D\\x2D{long}'{eq} {ops}"));
        out.push(format!("{prog} $'\\055\\055{long}'{eq} {ops}"));
        out.push(format!("{prog} $'\\u2d\\u002D{long}'{eq} {ops}"));
        out.push(format!("{prog} $'\\U0000002d-{long}'{eq} {ops}"));
        out.push(format!("{prog} $\"--{long}\"{eq} {ops}"));
        out.push(format!("{prog} --{head}\\{tail}{eq} {ops}"));
        out.push(format!("{prog} --\"{head}\"{tail}{eq} {ops}"));
        out.push(format!("{prog} --{long}{{,}}{eq} {ops}"));
        out.push(format!("{prog} --{{{long},{long}}}{eq} {ops}"));
        out.push(format!("{prog} {{--{long}{eq},}} {ops}"));
        out.push(format!("{prog} {}", braced(&format!("--{long}{eq}"), ops)));
        if x.permute && !ops.is_empty() {
            out.push(format!("{prog} {ops} --{long}{eq}"));
        }
    }
    if let Some(s) = x.short {
        let c = x.cluster;
        match &v {
            Some(v) => {
                out.push(format!("{prog} -{s}{v} {ops}"));
                out.push(format!("{prog} -{{{s}..{s}}}{v} {ops}"));
                out.push(format!("{prog} $'\\x2d{s}'{v} {ops}"));
                out.push(format!("{prog} $'-{s}'{v} {ops}"));
                out.push(format!("{prog} {{-{s}{v},}} {ops}"));
                out.push(format!("{prog} {}", braced(&format!("-{s}{v}"), ops)));
                if !c.is_empty() {
                    out.push(format!("{prog} -{c}{s}{v} {ops}"));
                }
                if !x.optional {
                    out.push(format!("{prog} -{s} {v} {ops}"));
                    out.push(format!("{prog} $'\\55{s}' {v} {ops}"));
                    if !c.is_empty() {
                        out.push(format!("{prog} -{c}{s} {v} {ops}"));
                    }
                    if x.permute && !ops.is_empty() {
                        out.push(format!("{prog} {ops} -{s} {v}"));
                    }
                }
            }
            None => {
                out.push(format!("{prog} -{s} {ops}"));
                out.push(format!("{prog} -{{{s}..{s}}} {ops}"));
                out.push(format!("{prog} \\-{s} {ops}"));
                out.push(format!("{prog} $'\\55{s}' {ops}"));
                out.push(format!("{prog} {{-{s},}} {ops}"));
                out.push(format!("{prog} {}", braced(&format!("-{s}"), ops)));
                out.push(format!("{prog} -''{s} {ops}"));
                if !c.is_empty() {
                    out.push(format!("{prog} -{c}{s} {ops}"));
                    out.push(format!("{prog} -{s}{c} {ops}"));
                }
                if x.permute && !ops.is_empty() {
                    out.push(format!("{prog} {ops} -{s}"));
                }
            }
        }
    }
    out
}

/// `{OPT,FIRST} REST`: brace expansion puts the option before the first
/// operand (a brace holding a space would not expand).
fn braced(opt: &str, ops: &str) -> String {
    match ops.split_once(' ') {
        Some((first, rest)) => format!("{{{opt},{first}}} {rest}"),
        None if ops.is_empty() => format!("{{{opt},{opt}}}"),
        None => format!("{{{opt},{ops}}}"),
    }
}

/// Quote a value for the command line unless it already is quoted.
fn shell_quote(v: &str) -> String {
    if v.starts_with('\'')
        || v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._/=,-".contains(c))
    {
        v.to_string()
    } else {
        format!("'{v}'")
    }
}

fn fixture() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    policy_table::write_fixture(&root, &dir.path().join("outside")).unwrap();
    let ws = Workspace::new(&root).unwrap();
    (dir, ws)
}

#[test]
fn dangerous_options_are_never_auto_allowed() {
    let (_dir, ws) = fixture();
    let mut commands: Vec<String> = DANGERS.iter().flat_map(spellings).collect();
    commands.extend(RAW_DANGERS.iter().map(|s| s.to_string()));
    let allowed: Vec<&String> = commands
        .iter()
        .filter(|c| policy::check_command_in(c, Mode::Default, &ws).is_allow())
        .collect();
    println!(
        "option audit: {} dangerous spellings over {} programs, {} allowed",
        commands.len(),
        {
            let mut p: Vec<&str> = DANGERS.iter().map(|x| x.prog).collect();
            p.sort_unstable();
            p.dedup();
            p.len()
        },
        allowed.len()
    );
    assert!(allowed.is_empty(), "auto-allowed: {allowed:#?}");
}

#[test]
fn safe_spellings_still_run() {
    let (_dir, ws) = fixture();
    let refused: Vec<(&str, String)> = SAFE
        .iter()
        .filter_map(|c| match policy::check_command_in(c, Mode::Default, &ws) {
            d if d.is_allow() => None,
            d => Some((*c, format!("{d:?}"))),
        })
        .collect();
    assert!(refused.is_empty(), "refused: {refused:#?}");
}

/// The spellings are real: bash, given each one, hands the program a word
/// that is an option (so the audit is not passing on words bash would
/// never produce). Skips where bash is missing.
#[test]
fn bash_turns_every_spelling_into_an_option() {
    let spelled: Vec<String> = DANGERS.iter().flat_map(spellings).collect();
    let script: String = spelled
        .iter()
        .map(|c| format!("printf '[%s]' {}; echo\n", c.split_once(' ').unwrap().1))
        .collect();
    let out = match std::process::Command::new("bash")
        .arg("-c")
        .arg(&script)
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            eprintln!("skipped: no bash ({e})");
            return;
        }
    };
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(
        lines.len(),
        spelled.len(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bad: Vec<(&String, &String)> = spelled
        .iter()
        .zip(&lines)
        .filter(|(_, words)| !words.contains("[-"))
        .collect();
    assert!(
        bad.is_empty(),
        "spellings bash does not make an option of: {bad:#?}"
    );
}
