//! GNU coreutils and the shell's own read-only builtins, with their full
//! option lists (from each program's `--help` on a current GNU system).

use super::opts::{Parsed, Style, GNU, POSIX};
use super::{Decl, Judgement, Operands, Recursion};

/// GNU, with `-5` meaning a count (head, tail, seq's negative numbers).
const GNU_NUMERIC: Style = Style {
    numeric: true,
    ..GNU
};

const fn decl(names: &'static [&'static str], opts: &'static str, operands: Operands) -> Decl {
    Decl {
        names,
        opts,
        style: GNU,
        operands,
        recursion: Recursion::Never,
        check: None,
    }
}

const HASH_OPTS: &str =
    "b,binary c,check tag t,text z,zero ignore-missing quiet status strict w,warn help version";

/// The coreutils family.
pub const DECLS: &[Decl] = &[
    Decl {
        names: &["ls"],
        opts: "a,all A,almost-all author b,escape block-size= B,ignore-backups c C color? \
               d,directory D,dired f F classify? file-type format= full-time g \
               group-directories-first G,no-group h,human-readable si H,dereference-command-line \
               dereference-command-line-symlink-to-dir hide= hyperlink? indicator-style= i,inode \
               I,ignore= k,kibibytes l L,dereference m n,numeric-uid-gid N,literal o p \
               q,hide-control-chars show-control-chars Q,quote-name quoting-style= r,reverse \
               R,recursive!R s,size S sort= time= time-style= t T,tabsize= u U v w,width= x X \
               Z,context zero 1 help version",
        style: GNU,
        operands: Operands::Meta,
        recursion: Recursion::ByOption,
        check: Some(follow_if_dereference),
    },
    decl(
        &["cat"],
        "A,show-all b,number-nonblank e E,show-ends n,number s,squeeze-blank t T,show-tabs u \
         v,show-nonprinting help version",
        Operands::Content,
    ),
    Decl {
        names: &["head"],
        opts: "c,bytes= n,lines= q,quiet silent v,verbose z,zero-terminated help version",
        style: GNU_NUMERIC,
        operands: Operands::Content,
        recursion: Recursion::Never,
        check: None,
    },
    Decl {
        names: &["tail"],
        opts: "c,bytes= f follow? F n,lines= max-unchanged-stats= pid= q,quiet silent retry \
               s,sleep-interval= v,verbose z,zero-terminated help version",
        style: GNU_NUMERIC,
        operands: Operands::Content,
        recursion: Recursion::Never,
        check: None,
    },
    decl(
        &["wc"],
        "c,bytes m,chars l,lines files0-from=!p L,max-line-length w,words total= help version",
        Operands::Content,
    ),
    decl(
        &["pwd"],
        "L,logical P,physical help version",
        Operands::Nothing,
    ),
    decl(
        &["whoami", "logname", "arch"],
        "help version",
        Operands::Nothing,
    ),
    decl(&["groups"], "help version", Operands::NotPaths),
    decl(
        &["id"],
        "a Z,context g,group G,groups n,name r,real u,user z,zero help version",
        Operands::NotPaths,
    ),
    decl(
        &["uname"],
        "a,all s,kernel-name n,nodename r,kernel-release v,kernel-version m,machine p,processor \
         i,hardware-platform o,operating-system help version",
        Operands::Nothing,
    ),
    decl(
        &["df"],
        "a,all B,block-size= h,human-readable H,si i,inodes k l,local no-sync output? \
         P,portability sync total t,type= T,print-type x,exclude-type= v help version",
        Operands::Meta,
    ),
    Decl {
        names: &["du"],
        opts: "0,null a,all apparent-size B,block-size= b,bytes c,total D,dereference-args \
               d,max-depth= files0-from=!q H h,human-readable inodes k L,dereference \
               l,count-links m P,no-dereference S,separate-dirs si s,summarize t,threshold= \
               time? time-style= X,exclude-from=!p exclude= x,one-file-system help version",
        style: GNU,
        operands: Operands::Meta,
        recursion: Recursion::Always,
        check: Some(follow_if_dereference),
    },
    decl(
        &["stat"],
        "L,dereference f,file-system cached= c,format= printf= t,terse help version",
        Operands::Meta,
    ),
    decl(
        &["basename"],
        "a,multiple s,suffix= z,zero help version",
        Operands::NotPaths,
    ),
    decl(&["dirname"], "z,zero help version", Operands::NotPaths),
    decl(
        &["realpath"],
        "e,canonicalize-existing m,canonicalize-missing L,logical P,physical q,quiet \
         relative-to=!m relative-base=!m s,strip no-symlinks z,zero help version",
        Operands::Meta,
    ),
    decl(
        &["readlink"],
        "f,canonicalize e,canonicalize-existing m,canonicalize-missing n,no-newline q,quiet \
         s,silent v,verbose z,zero help version",
        Operands::Meta,
    ),
    decl(
        &["nl"],
        "b,body-numbering= d,section-delimiter= f,footer-numbering= h,header-numbering= \
         i,line-increment= l,join-blank-lines= n,number-format= p,no-renumber \
         s,number-separator= v,starting-line-number= w,number-width= help version",
        Operands::Content,
    ),
    decl(
        &["tac"],
        "b,before r,regex s,separator= help version",
        Operands::Content,
    ),
    decl(&["rev"], "h,help V,version", Operands::Content),
    decl(
        &["cut"],
        "b,bytes= c,characters= d,delimiter= f,fields= n complement s,only-delimited \
         output-delimiter= z,zero-terminated help version",
        Operands::Content,
    ),
    decl(
        &["tr"],
        "c,complement C d,delete s,squeeze-repeats t,truncate-set1 help version",
        Operands::NotPaths,
    ),
    decl(
        &["fold"],
        "b,bytes s,spaces w,width= help version",
        Operands::Content,
    ),
    decl(
        &["fmt"],
        "c,crown-margin p,prefix= s,split-only t,tagged-paragraph u,uniform-spacing w,width= \
         g,goal= help version",
        Operands::Content,
    ),
    decl(
        &["column"],
        "t,table n,table-name= O,table-order= N,table-columns= l,table-columns-limit= \
         E,table-noextreme= d,table-noheadings e,table-header-repeat H,table-hide= \
         R,table-right= T,table-truncate= W,table-wrap= L,keep-empty-lines J,json r,tree= \
         i,tree-id= p,tree-parent= c,output-width= o,output-separator= s,separator= x,fillrows \
         h,help V,version",
        Operands::Content,
    ),
    decl(
        &["paste"],
        "d,delimiters= s,serial z,zero-terminated help version",
        Operands::Content,
    ),
    decl(
        &["join"],
        "a= e= i,ignore-case j= o= t= v= 1= 2= check-order nocheck-order header \
         z,zero-terminated help version",
        Operands::Content,
    ),
    decl(
        &["comm"],
        "1 2 3 check-order nocheck-order output-delimiter= total z,zero-terminated help version",
        Operands::Content,
    ),
    Decl {
        names: &["diff"],
        opts: "normal q,brief s,report-identical-files c C= context? u U= unified? e,ed n,rcs \
               y,side-by-side W,width= left-column suppress-common-lines p,show-c-function \
               F,show-function-line= label= t,expand-tabs T,initial-tab tabsize= \
               suppress-blank-empty l,paginate!x r,recursive!R no-dereference N,new-file \
               unidirectional-new-file ignore-file-name-case no-ignore-file-name-case \
               x,exclude= X,exclude-from=!p S,starting-file= from-file=!p to-file=!p \
               i,ignore-case E,ignore-tab-expansion Z,ignore-trailing-space \
               b,ignore-space-change w,ignore-all-space B,ignore-blank-lines \
               I,ignore-matching-lines= a,text strip-trailing-cr D,ifdef= old-group-format= \
               new-group-format= unchanged-group-format= changed-group-format= line-format= \
               old-line-format= new-line-format= unchanged-line-format= d,minimal \
               horizon-lines= speed-large-files color? palette= help v,version",
        style: GNU,
        operands: Operands::Content,
        // Two directories are compared file by file even without -r
        // (`diff escape keys` prints every file both hold): any directory
        // operand is walked.
        recursion: Recursion::Always,
        check: Some(diff_follows_links),
    },
    decl(
        &["cmp"],
        "b,print-bytes i,ignore-initial= l,verbose n,bytes= s,quiet silent help v,version",
        Operands::Content,
    ),
    decl(
        &[
            "md5sum",
            "sha1sum",
            "sha224sum",
            "sha256sum",
            "sha384sum",
            "sha512sum",
        ],
        HASH_OPTS,
        Operands::Meta,
    ),
    decl(
        &["b2sum"],
        "b,binary c,check l,length= tag t,text z,zero ignore-missing quiet status strict \
         w,warn help version",
        Operands::Meta,
    ),
    decl(
        &["cksum"],
        "a,algorithm= c,check l,length= tag untagged z,zero ignore-missing quiet status \
         strict w,warn debug base64 raw help version",
        Operands::Meta,
    ),
    decl(
        &["base64", "base32"],
        "d,decode i,ignore-garbage w,wrap= help version",
        Operands::Content,
    ),
    decl(
        &["od"],
        "A,address-radix= endian= j,skip-bytes= N,read-bytes= S= strings? t,format= \
         v,output-duplicates w,width? traditional help version a b c d f i l o s x",
        Operands::Content,
    ),
    decl(
        &["expand"],
        "i,initial t,tabs= help version",
        Operands::Content,
    ),
    decl(
        &["unexpand"],
        "a,all first-only t,tabs= help version",
        Operands::Content,
    ),
    decl(
        &["numfmt"],
        "debug d,delimiter= field= format= from= from-unit= grouping header? invalid= \
         padding= round= suffix= to= to-unit= z,zero-terminated help version",
        Operands::NotPaths,
    ),
    Decl {
        names: &["seq"],
        opts: "f,format= s,separator= w,equal-width help version",
        style: GNU_NUMERIC,
        operands: Operands::NotPaths,
        recursion: Recursion::Never,
        check: None,
    },
    decl(&["sleep"], "help version", Operands::NotPaths),
    decl(&["nproc"], "all ignore= help version", Operands::Nothing),
    decl(&["tty"], "s,silent quiet help version", Operands::Nothing),
    decl(&["printenv"], "0,null help version", Operands::NotPaths),
    // sort's --files0-from prints the files the list names, paths the
    // checker never sees (a NUL list on stdin can name ~/.ssh/id_rsa);
    // wc only counts what it reads, so its list stays a plain path. du's
    // (above) asks: each name in it is a root du walks, and a walk's
    // roots must be seen to be kept out of /proc and credential folders.
    decl(
        &["sort"],
        "b,ignore-leading-blanks d,dictionary-order f,ignore-case g,general-numeric-sort \
         i,ignore-nonprinting M,month-sort h,human-numeric-sort n,numeric-sort R,random-sort \
         random-source=!p r,reverse sort= V,version-sort batch-size= c check? C \
         compress-program=!x debug files0-from=!q k,key= m,merge o,output=!w s,stable \
         S,buffer-size= t,field-separator= T,temporary-directory=!w parallel= u,unique \
         z,zero-terminated help version",
        Operands::Content,
    ),
    Decl {
        names: &["uniq"],
        opts: "c,count d,repeated D all-repeated? f,skip-fields= group? i,ignore-case \
               s,skip-chars= u,unique z,zero-terminated w,check-chars= help version",
        style: GNU,
        operands: Operands::Content,
        recursion: Recursion::Never,
        check: Some(one_input_no_output),
    },
    Decl {
        names: &["zcat"],
        opts: "c,stdout d,decompress f,force l,list q,quiet S,suffix= synchronous t,test \
               v,verbose n,no-name N,name k,keep help V,version",
        style: GNU,
        operands: Operands::Content,
        recursion: Recursion::Never,
        check: None,
    },
    // The shell's builtins.
    Decl {
        names: &["cd"],
        opts: "L P e @",
        style: POSIX,
        operands: Operands::Meta,
        recursion: Recursion::Never,
        check: None,
    },
    Decl {
        names: &["type"],
        opts: "a f P p t",
        style: POSIX,
        operands: Operands::NotPaths,
        recursion: Recursion::Never,
        check: None,
    },
    Decl {
        names: &["which"],
        opts: "a s",
        style: POSIX,
        operands: Operands::NotPaths,
        recursion: Recursion::Never,
        check: None,
    },
    Decl {
        names: &["command"],
        opts: "p v V",
        style: POSIX,
        operands: Operands::NotPaths,
        recursion: Recursion::Never,
        check: Some(command_lookup_only),
    },
];

/// `-L` (ls, du) follows symlinks inside the walk.
fn follow_if_dereference(p: &Parsed<'_>, j: &mut Judgement) -> Result<(), String> {
    if p.has("L") {
        if let Some(w) = &mut j.walk {
            w.follow = true;
        }
    }
    Ok(())
}

/// GNU diff follows every symlink inside the trees it compares (a link to
/// `../../.ssh/id_rsa` in a cloned repository is printed whole) unless
/// told `--no-dereference`.
fn diff_follows_links(p: &Parsed<'_>, j: &mut Judgement) -> Result<(), String> {
    if let Some(w) = &mut j.walk {
        w.follow = !p.has("no-dereference");
        // `--from-file=DIR` and `--to-file=DIR` are compared with every
        // operand: walked like one.
        for dir in p.values("from-file").into_iter().chain(p.values("to-file")) {
            w.roots.push(dir.to_string());
        }
    }
    Ok(())
}

/// `uniq IN OUT` writes OUT.
fn one_input_no_output(p: &Parsed<'_>, _: &mut Judgement) -> Result<(), String> {
    if p.operands().count() > 1 {
        return Err("a second file name is an output file".into());
    }
    Ok(())
}

/// `command -v NAME` only looks a name up; `command NAME` runs it (the
/// walker unwraps that form before the model is asked).
fn command_lookup_only(p: &Parsed<'_>, _: &mut Judgement) -> Result<(), String> {
    if p.has("v") || p.has("V") {
        Ok(())
    } else {
        Err("runs another program".into())
    }
}

/// Builtins whose arguments are never options or paths the checker need
/// look at: `echo` prints any word (`printf -v`, which sets a shell
/// variable such as PATH, is refused before this list is consulted).
pub const FREE_ARGS: &[&str] = &["echo", "printf", "true", "false", ":", "expr"];

/// Builtins whose arguments are an expression over files (metadata only).
pub const TEST: &[&str] = &["test", "["];

/// `test -v NAME` and `test -R NAME` look a variable up, and bash
/// evaluates an array subscript in NAME as arithmetic, which runs command
/// substitutions: `test -v 'a[$(cat ~/.ssh/id_rsa >&2)]'`. Only a plain
/// variable name (or none at all: `test -v` alone tests a string) is
/// proven.
pub fn test_names_plain(args: &[String]) -> Result<(), String> {
    for (i, a) in args.iter().enumerate() {
        if a != "-v" && a != "-R" {
            continue;
        }
        let Some(name) = args.get(i + 1) else {
            continue;
        };
        if name == "]" && i + 2 == args.len() {
            continue;
        }
        if !is_plain_name(name) {
            return Err(format!(
                "test {a} {name:?}: bash evaluates what is not a plain variable name \
                 (an array subscript is arithmetic, which can run commands)"
            ));
        }
    }
    Ok(())
}

/// A shell variable name: a letter or `_`, then letters, digits and `_`.
pub fn is_plain_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
