//! Searching programs: grep, ripgrep, fd and find. Each one that walks a
//! tree reports its roots, so the proof can keep recursive reads out of
//! `/proc`, credential directories and koi's own files.

use super::opts::{Parsed, Style, EXACT, GNU};
use super::{Decl, Judgement, Operands, PathRole, Recursion, Walk};

/// grep's `-5` means five lines of context.
const GREP_STYLE: Style = Style {
    numeric: true,
    ..GNU
};

const GREP_OPTS: &str = "E,extended-regexp F,fixed-strings G,basic-regexp P,perl-regexp \
    e,regexp=!P f,file=!F i,ignore-case y no-ignore-case w,word-regexp x,line-regexp \
    z,null-data s,no-messages v,invert-match V,version help m,max-count= b,byte-offset \
    n,line-number line-buffered H,with-filename h,no-filename label= o,only-matching \
    q,quiet silent binary-files= a,text I d,directories= D,devices= r,recursive!R \
    R,dereference-recursive!R include= exclude= exclude-from=!p exclude-dir= \
    L,files-without-match l,files-with-matches c,count T,initial-tab Z,null \
    B,before-context= A,after-context= C,context= group-separator= \
    no-group-separator color? colour? U,binary";

const RG_OPTS: &str = "A,after-context= B,before-context= C,context= auto-hybrid-regex \
    no-auto-hybrid-regex binary no-binary block-buffered no-block-buffered b,byte-offset \
    no-byte-offset s,case-sensitive color= colors= column no-column context-separator= \
    no-context-separator c,count count-matches crlf no-crlf debug trace dfa-size-limit= \
    E,encoding= no-encoding engine= field-context-separator= field-match-separator= \
    f,file=!F files l,files-with-matches files-without-match F,fixed-strings \
    no-fixed-strings L,follow no-follow generate= g,glob= glob-case-insensitive \
    no-glob-case-insensitive heading no-heading h,help .,hidden no-hidden \
    hostname-bin=!x hyperlink-format= iglob= i,ignore-case ignore-file=!p \
    ignore-file-case-insensitive no-ignore-file-case-insensitive include-zero \
    no-include-zero v,invert-match no-invert-match json no-json line-buffered \
    no-line-buffered n,line-number N,no-line-number x,line-regexp M,max-columns= \
    max-columns-preview no-max-columns-preview m,max-count= d,max-depth= maxdepth= \
    max-filesize= mmap no-mmap U,multiline no-multiline multiline-dotall \
    no-multiline-dotall no-config no-ignore ignore no-ignore-dot ignore-dot \
    no-ignore-exclude ignore-exclude no-ignore-files ignore-files no-ignore-global \
    ignore-global no-ignore-messages ignore-messages no-ignore-parent ignore-parent \
    no-ignore-vcs ignore-vcs no-messages messages no-require-git require-git no-unicode \
    unicode 0,null null-data one-file-system no-one-file-system o,only-matching passthru \
    passthrough path-separator= P,pcre2 no-pcre2 pcre2-version pcre2-unicode \
    no-pcre2-unicode pre=!x no-pre pre-glob=!q p,pretty q,quiet regex-size-limit= \
    e,regexp=!P r,replace= z,search-zip!q no-search-zip S,smart-case sort= sortr= \
    sort-files no-sort-files stats no-stats stop-on-nonmatch a,text no-text j,threads= \
    trim no-trim t,type= T,type-not= type-add= type-clear= type-list u,unrestricted \
    V,version vimgrep H,with-filename I,no-filename w,word-regexp";

const FD_OPTS: &str = "H,hidden no-hidden I,no-ignore ignore no-ignore-vcs ignore-vcs \
    no-ignore-parent no-global-ignore-file u,unrestricted s,case-sensitive i,ignore-case \
    g,glob regex F,fixed-strings and= a,absolute-path relative-path l,list-details!x \
    L,follow no-follow p,full-path 0,print0 d,max-depth= maxdepth= min-depth= \
    exact-depth= prune t,type= e,extension= S,size= changed-within= change-newer-than= \
    newer= changed-before= change-older-than= older= o,owner= format= x,exec!x \
    X,exec-batch!x batch-size= E,exclude= ignore-file=!p c,color= hyperlink? \
    j,threads= max-results= 1 q,quiet show-errors base-directory=!q path-separator= \
    search-path=!m strip-cwd-prefix? one-file-system mount xdev h,help V,version";

/// The search family.
pub const DECLS: &[Decl] = &[
    Decl {
        names: &["grep", "egrep", "fgrep"],
        opts: GREP_OPTS,
        style: GREP_STYLE,
        operands: Operands::PatternThenContent,
        recursion: Recursion::ByOption,
        check: Some(grep_check),
    },
    Decl {
        names: &["rg"],
        opts: RG_OPTS,
        style: EXACT,
        operands: Operands::PatternThenContent,
        recursion: Recursion::Always,
        check: Some(rg_check),
    },
    Decl {
        names: &["fd", "fdfind"],
        opts: FD_OPTS,
        style: EXACT,
        operands: Operands::PatternThenContent,
        recursion: Recursion::Always,
        check: Some(fd_check),
    },
];

fn grep_check(p: &Parsed<'_>, j: &mut Judgement) -> Result<(), String> {
    for v in p.values("directories") {
        match v {
            "recurse" => j.walk = Some(walk_over(j, true)),
            "read" | "skip" => {}
            other => return Err(format!("--directories={other} is not known")),
        }
    }
    if let Some(w) = &mut j.walk {
        w.follow = p.has("dereference-recursive");
    }
    Ok(())
}

fn rg_check(p: &Parsed<'_>, j: &mut Judgement) -> Result<(), String> {
    if p.has("files") || p.has("type-list") {
        // No pattern: every operand is a root, and only names are read.
        let roots: Vec<String> = p.operands().map(String::from).collect();
        j.paths = roots.iter().map(|r| (r.clone(), PathRole::Meta)).collect();
        j.operands = roots;
        j.walk = Some(walk_over(j, false));
    }
    let unrestricted = p.opts().filter(|(s, _)| s.is("unrestricted")).count();
    // Any `--no-ignore*` switches some ignore files off (`--no-ignore-vcs`
    // alone puts a gitignored `.env` in reach), and a later `--ignore-vcs`
    // is not relied on to switch it back: the walk is judged without
    // ignore files. `--no-require-git` only adds ignore rules.
    let no_ignore = p.opts().any(|(s, _)| {
        s.long.is_some_and(|l| {
            l.starts_with("no-ignore")
                && !matches!(l, "no-ignore-messages" | "no-ignore-file-case-insensitive")
        })
    });
    if let Some(w) = &mut j.walk {
        w.hidden = p.has("hidden") || unrestricted >= 2;
        w.ignore_files = !(no_ignore || unrestricted >= 1);
        w.follow = p.has("follow");
    }
    Ok(())
}

fn fd_check(p: &Parsed<'_>, j: &mut Judgement) -> Result<(), String> {
    // fd reads names only; its roots are the operands after the pattern
    // and every --search-path.
    let mut roots = j.operands.clone();
    roots.extend(p.values("search-path").into_iter().map(String::from));
    for (_, role) in &mut j.paths {
        *role = PathRole::Meta;
    }
    j.operands = roots;
    let mut w = walk_over(j, false);
    w.hidden = p.has("hidden") || p.has("unrestricted");
    let no_ignore = p.opts().any(|(s, _)| {
        s.long
            .is_some_and(|l| l.starts_with("no-ignore") || l == "no-global-ignore-file")
    });
    w.ignore_files = !(no_ignore || p.has("unrestricted"));
    w.follow = p.has("follow");
    j.walk = Some(w);
    Ok(())
}

/// A walk over the judgement's operands (`.` when there are none).
pub fn walk_over(j: &Judgement, content: bool) -> Walk {
    let mut roots = j.operands.clone();
    if roots.is_empty() {
        roots.push(".".into());
    }
    Walk {
        roots,
        content,
        hidden: true,
        ignore_files: false,
        follow: false,
    }
}
