//! Other read-only programs: system information (ps, date, hostname,
//! free, uptime, pgrep, env), file inspection (file, xxd, hexdump,
//! strings, tree) and jq.

use super::opts::{Parsed, Style, EXACT, GNU};
use super::{Decl, Judgement, Operands, PathRole, Recursion};

const fn gnu(names: &'static [&'static str], opts: &'static str, operands: Operands) -> Decl {
    Decl {
        names,
        opts,
        style: GNU,
        operands,
        recursion: Recursion::Never,
        check: None,
    }
}

/// The misc family.
pub const DECLS: &[Decl] = &[
    Decl {
        names: &["date"],
        opts: "d,date= debug f,file=!p I,iso-8601? resolution R,rfc-email rfc-3339= \
               r,reference=!m s,set=!w u,utc universal help version",
        style: GNU,
        operands: Operands::NotPaths,
        recursion: Recursion::Never,
        check: Some(date_check),
    },
    // The names and addresses hostname looks up (-a -A -d -f -i, NIS's
    // -y) go through the resolver, which may ask a DNS or NIS server:
    // a connection. -s and -I only read the kernel's name and interfaces.
    gnu(
        &["hostname"],
        "a,alias!q A,all-fqdns!q b,boot!w d,domain!q f,fqdn!q long!q F,file=!w \
         i,ip-address!q I,all-ip-addresses s,short y,yp!q nis!q h,help V,version",
        Operands::Nothing,
    ),
    gnu(
        &["free"],
        "b,bytes kilo mega giga tera peta k,kibi m,mebi g,gibi tebi pebi h,human si l,lohi \
         t,total v,committed s,seconds= c,count= w,wide help V,version",
        Operands::Nothing,
    ),
    gnu(
        &["uptime"],
        "p,pretty h,help s,since V,version",
        Operands::Nothing,
    ),
    gnu(
        &["pgrep"],
        "d,delimiter= l,list-name a,list-full v,inverse w,lightweight c,count f,full \
         g,pgroup= G,group= i,ignore-case n,newest o,oldest O,older= P,parent= s,session= \
         t,terminal= u,euid= U,uid= x,exact F,pidfile=!p L,logpidfile r,runstates= \
         A,ignore-ancestors cgroup= ns= nslist= h,help V,version",
        Operands::NotPaths,
    ),
    gnu(
        &["env"],
        "i,ignore-environment 0,null u,unset= C,chdir=!q S,split-string=!q block-signal? \
         default-signal? ignore-signal? list-signal-handling v,debug help version",
        Operands::Nothing,
    ),
    gnu(
        &["file"],
        "help v,version m,magic-file=!p z,uncompress!q Z,uncompress-noreport!q b,brief \
         c,checking-printout e,exclude= exclude-quiet= f,files-from=!p F,separator= i,mime \
         apple extension mime-type mime-encoding k,keep-going l,list L,dereference \
         h,no-dereference n,no-buffer N,no-pad 0,print0 p,preserve-date!q P,parameter= r,raw \
         s,special-files S,no-sandbox!q C,compile!w d,debug",
        Operands::Meta,
    ),
    gnu(
        &["hexdump"],
        "b,one-byte-octal c,one-byte-char C,canonical d,two-bytes-decimal o,two-bytes-octal \
         x,two-bytes-hex L,color? e,format= f,format-file=!p n,length= s,skip= \
         v,no-squeezing h,help V,version",
        Operands::Content,
    ),
    Decl {
        names: &["strings"],
        opts: "a,all d,data f,print-file-name n= bytes= t,radix= w,include-all-whitespace o \
               T,target= e,encoding= unicode= U= s,output-separator= h,help v V,version",
        style: Style {
            numeric: true,
            ..GNU
        },
        operands: Operands::Content,
        recursion: Recursion::Never,
        check: Some(no_response_files),
    },
    Decl {
        names: &["jq"],
        opts: "c,compact-output n,null-input e,exit-status s,slurp r,raw-output \
               j,join-output a,ascii-output S,sort-keys C,color-output M,monochrome-output \
               tab indent= unbuffered stream stream-errors seq f,from-file=!q L=!q arg+ \
               argjson+ slurpfile+!q rawfile+!q args jsonargs h,help V,version \
               build-configuration R,raw-input raw-output0",
        style: EXACT,
        operands: Operands::PatternThenContent,
        recursion: Recursion::Never,
        check: Some(jq_check),
    },
    Decl {
        names: &["tree"],
        opts: "a d l f x L= R!w P= I= gitignore gitfile=!p ignore-case matchdirs metafirst \
               prune info infofile=!p noreport charset= filelimit= timefmt= o=!w q N Q p u g s \
               h si du D inodes device F v t c U r dirsfirst filesfirst sort= i A S n C X J \
               H=!q T= nolinks hintro=!p houtro=!p fromfile!q fromtabfile!q fflinks help \
               version",
        style: Style {
            detached: true,
            ..EXACT
        },
        operands: Operands::Meta,
        recursion: Recursion::Always,
        check: Some(tree_check),
    },
];

/// `date STRING` (without `+`) sets the clock.
fn date_check(p: &Parsed<'_>, _: &mut Judgement) -> Result<(), String> {
    if p.operands().any(|o| !o.starts_with('+')) {
        return Err("a bare argument sets the clock".into());
    }
    Ok(())
}

/// jq's `import "NAME" as $x {search: "DIR"};` and `include` read
/// `DIR/NAME.json` (or `.jq`) from any directory, `~/.docker/config.json`
/// among them, a path the argument list never shows; `modulemeta` loads a
/// module too. A program naming any of them is not proven (a program read
/// with `-f` is not seen at all, so that option asks on its own).
fn jq_check(p: &Parsed<'_>, _: &mut Judgement) -> Result<(), String> {
    let Some(program) = p.operands().next() else {
        return Ok(());
    };
    // A word after `.` or `$` is a field or a variable (`.import`), not
    // the directive.
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut directive = None;
    let mut before = ' ';
    for (i, c) in program.char_indices() {
        if is_word(c) && !is_word(before) && before != '.' && before != '$' {
            let word: String = program[i..].chars().take_while(|&c| is_word(c)).collect();
            if matches!(word.as_str(), "import" | "include" | "modulemeta") {
                directive = Some(word);
                break;
            }
        }
        before = c;
    }
    match directive {
        Some(d) => Err(format!(
            "the program's {d} reads a module file from any directory"
        )),
        None => Ok(()),
    }
}

/// binutils read more options from `@file`.
fn no_response_files(p: &Parsed<'_>, _: &mut Judgement) -> Result<(), String> {
    if p.operands().any(|o| o.starts_with('@')) {
        return Err("@FILE reads options from a file".into());
    }
    Ok(())
}

/// tree follows symlinks with -l.
fn tree_check(p: &Parsed<'_>, j: &mut Judgement) -> Result<(), String> {
    if let Some(w) = &mut j.walk {
        w.follow = p.has("l");
        w.hidden = p.has("a");
    }
    Ok(())
}

/// procps `ps`: BSD words (`aux`), UNIX options (`-ef`) and GNU long
/// options, each from a known set. The BSD `e` modifier (and `-e`'s
/// cousins that print environments) shows other processes' environments,
/// koi's API key among them.
pub fn ps(args: &[String]) -> Result<Judgement, String> {
    /// BSD letters that only select or format.
    const BSD: &str = "auxfwjlrTSUgchmnsvLHZX";
    /// BSD letters whose value is the next argument.
    const BSD_VALUE: &str = "oOUpt";
    /// UNIX flags.
    const UNIX: &str = "eAadNfFljHwLTmycMZxP";
    /// UNIX options with a value.
    const UNIX_VALUE: &str = "uUpgGtsoOCq";
    const LONG: &[&str] = &[
        "forest",
        "no-headers",
        "headers",
        "cols",
        "columns",
        "width",
        "sort",
        "format",
        "pid",
        "ppid",
        "user",
        "group",
        "tty",
        "help",
        "version",
        "info",
        "cumulative",
        "lines",
        "rows",
        "deselect",
        "sid",
        "quick-pid",
    ];
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if let Some(long) = a.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            if !LONG.contains(&name) {
                return Err(format!("ps --{name} is not an option the checker knows"));
            }
            continue;
        }
        let (letters, flags, with_value) = match a.strip_prefix('-') {
            Some(rest) => (rest, UNIX, UNIX_VALUE),
            None => (a, BSD, BSD_VALUE),
        };
        for (k, c) in letters.char_indices() {
            if with_value.contains(c) {
                if k + c.len_utf8() == letters.len() {
                    i += 1;
                }
                break;
            }
            if c == 'e' && flags == BSD {
                return Err("the e option shows other processes' environments".into());
            }
            if !flags.contains(c) {
                return Err(format!("ps {c} is not an option the checker knows"));
            }
        }
    }
    Ok(Judgement::default())
}

/// `xxd [options] [infile [outfile]]`: xxd's own parser takes options
/// by unique prefix of their long spelling (`-ps`, `-cols`); only the
/// common ones are modelled. A second file name is written.
pub fn xxd(args: &[String]) -> Result<Judgement, String> {
    const FLAGS: &[&str] = &[
        "-a", "-b", "-C", "-E", "-e", "-i", "-u", "-d", "-p", "-ps", "-v",
    ];
    const VALUED: &[&str] = &["-c", "-g", "-l", "-s", "-o", "-n"];
    let mut j = Judgement::default();
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if !a.starts_with('-') || a == "-" {
            files.push(a.to_string());
            continue;
        }
        if FLAGS.contains(&a) {
            continue;
        }
        if let Some(v) = VALUED.iter().find(|v| a.starts_with(*v)) {
            if a.len() == v.len() {
                i += 1;
            }
            continue;
        }
        return Err(format!("xxd {a} is not an option the checker knows"));
    }
    if files.len() > 1 {
        return Err("a second file name is an output file".into());
    }
    j.paths = files
        .iter()
        .map(|f| (f.clone(), PathRole::Content))
        .collect();
    j.operands = files;
    Ok(j)
}
