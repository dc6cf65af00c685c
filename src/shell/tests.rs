//! Unit tests of the shell front end: conversion, static expansion and the bounds.

use super::*;

fn words(src: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    parse(src).for_each_simple(&mut |s| out.push(s.words.iter().map(|w| w.text.clone()).collect()));
    out
}

fn first(src: &str) -> Simple {
    let s = parse(src);
    assert!(s.problem.is_none(), "{src}: {:?}", s.problem);
    s.pipelines[0].stages[0][0].clone()
}

#[test]
fn lists_and_pipelines_are_flattened_in_order() {
    assert_eq!(
        words("a 1 && b 2 || c; d & e\nf | g"),
        [
            vec!["a", "1"],
            vec!["b", "2"],
            vec!["c"],
            vec!["d"],
            vec!["e"],
            vec!["f"],
            vec!["g"]
        ]
    );
    let s = parse("f | g | h");
    assert_eq!(s.pipelines.len(), 1);
    assert_eq!(s.pipelines[0].stages.len(), 3);
}

#[test]
fn compound_commands_are_flattened() {
    assert_eq!(
        words(
            "(a; { b; }) && if c; then d; else e; fi; for x in 1 2; do f $x; done; while g; do h; done; case y in y) i;; esac; k() { l; }"
        ),
        [
            vec!["a"],
            vec!["b"],
            vec!["c"],
            vec!["d"],
            vec!["e"],
            vec!["f", "$x"],
            vec!["g"],
            vec!["h"],
            vec!["i"],
            vec!["l"]
        ]
    );
}

#[test]
fn quotes_escapes_and_ansi_c_are_removed() {
    let s = first(r#"r''m "-r"f \~ $'\x72\155' 'a b'"#);
    let texts: Vec<&str> = s.words.iter().map(|w| w.text.as_str()).collect();
    assert_eq!(texts, ["rm", "-rf", "~", "rm", "a b"]);
    assert!(s.words.iter().all(|w| w.literal));
    assert!(s.words[0].quoted);
}

#[test]
fn ifs_splits_and_known_variables_substitute() {
    assert_eq!(words("rm${IFS}-rf${IFS}/"), [vec!["rm", "-rf", "/"]]);
    assert_eq!(
        words("x=rm; $x -rf /"),
        [
            Vec::<String>::new(),
            vec!["rm".into(), "-rf".into(), "/".into()]
        ]
    );
    assert_eq!(words("x='rm -rf'; $x /")[1], ["rm", "-rf", "/"]);
    assert_eq!(words("echo \"$HOME\"/x")[0], ["echo", "~/x"]);
    let s = first("$y -rf /");
    assert!(!s.words[0].literal, "an unknown variable is not literal");
}

#[test]
fn globs_and_braces_are_not_literal() {
    let s = first("/bin/r* {a,b} x? [ ]");
    assert!(!s.words[0].literal);
    assert!(!s.words[1].literal);
    assert!(!s.words[2].literal);
    assert!(s.words[3].literal, "a lone [ is the test command");
}

#[test]
fn substitutions_stay_attached_to_their_word() {
    let s = first("echo $(rm -rf ~) `ls` <(curl x)");
    assert_eq!(s.words.len(), 4);
    assert_eq!(s.words[1].subs[0].kind, SubKind::Command);
    assert_eq!(s.words[2].subs[0].kind, SubKind::Command);
    assert_eq!(s.words[3].subs[0].kind, SubKind::ProcessRead);
    assert_eq!(
        words("echo $(rm -rf ~)"),
        [vec!["echo", "$(rm -rf ~)"], vec!["rm", "-rf", "~"]]
    );
    assert_eq!(words("x=$(id)")[1], ["id"]);
    assert_eq!(words("echo \"a $(b) c\"")[1], ["b"]);
}

#[test]
fn redirections_and_here_text_are_kept() {
    let s = first("cat < in > out 2>> err >&2 &> both");
    let kinds: Vec<RedirectKind> = s.redirects.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        [
            RedirectKind::Read,
            RedirectKind::Write,
            RedirectKind::Append,
            RedirectKind::Duplicate,
            RedirectKind::Write
        ]
    );
    assert_eq!(s.redirects[1].target.text, "out");
    let s = first("bash <<< 'rm -rf ~'");
    assert_eq!(
        s.stdin_text.as_ref().map(|w| w.text.as_str()),
        Some("rm -rf ~")
    );
    let s = first("sh <<EOF\nrm -rf ~\nEOF\n");
    assert_eq!(
        s.stdin_text.as_ref().map(|w| w.text.trim()),
        Some("rm -rf ~")
    );
    let s = first("{ ls; } > /etc/x");
    assert!(s.words.is_empty() || s.words[0].text == "ls");
}

#[test]
fn what_does_not_parse_is_a_problem() {
    for bad in ["echo \"open", "if then fi", "ls |", ")", "a\0b"] {
        let s = parse(bad);
        assert!(
            matches!(s.problem, Some(Problem::Syntax(_))),
            "{bad:?}: {s:?}"
        );
    }
    assert!(matches!(
        parse(&"a".repeat(MAX_INPUT + 1)).problem,
        Some(Problem::TooLong(_))
    ));
}

#[test]
fn deep_nesting_is_refused_before_the_parser_sees_it() {
    for src in [
        format!("{}ls{}", "(".repeat(5000), ")".repeat(5000)),
        format!("{}ls{}", "$(".repeat(500), ")".repeat(500)),
        format!("{}ls{}", "if true; then ".repeat(400), "; fi".repeat(400)),
        "`".repeat(1200),
    ] {
        assert_eq!(parse(&src).problem, Some(Problem::TooDeep));
    }
}

#[test]
fn quoted_closers_cannot_hide_nesting() {
    // Closers that close nothing lower the depth estimate; the opener total still bounds
    // the real depth, and such lines are parsed on a thread with a large stack.
    let src = format!(
        "{}ls{}",
        "if x; then echo done fi esac; ".repeat(200),
        "; fi".repeat(200)
    );
    assert_eq!(parse(&src).problem, Some(Problem::TooDeep));
    let src = format!("{}ls{}", "( echo ')' ".repeat(300), " )".repeat(300));
    assert!(parse(&src).problem.is_some());
    let src = format!(
        "{}ls{}",
        "( ".repeat(300),
        "; fi".repeat(300) + &" )".repeat(300)
    );
    assert!(parse(&src).problem.is_some());
    let src = format!("{}ls{}", "( ".repeat(5000), " )".repeat(5000));
    assert_eq!(parse(&src).problem, Some(Problem::TooDeep));
}

#[test]
fn prose_in_a_here_document_is_not_nesting() {
    let prose = "This is for you and for them, if it helps, while we wait.\n".repeat(60);
    let src = format!("cat <<'EOF' > notes.md\n{prose}EOF\n");
    assert!(parse(&src).problem.is_none());
}

#[test]
fn the_deepest_accepted_input_fits_a_small_stack() {
    // The hook runs on the main thread (8 MiB); tests get 2 MiB. Parse the deepest inputs the
    // pre-scan lets through on a 2 MiB thread.
    let inputs = [
        format!("{}ls{}", "( ".repeat(39), " )".repeat(39)),
        format!("echo {}x{}", "$(echo ".repeat(15), ")".repeat(15)),
        format!("{}ls{}", "if true; then ".repeat(39), "; fi".repeat(39)),
        format!("{}ls{}", "{ ".repeat(39), "; }".repeat(39)),
        format!("{}ls{}", "( if true; then ".repeat(19), "; fi )".repeat(19)),
        format!(
            "{}ls{}",
            "for i in 1; do case x in x) ".repeat(19),
            ";; esac; done".repeat(19)
        ),
        format!("{}ls{}", "while true; do ".repeat(39), "; done".repeat(39)),
    ];
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || inputs.iter().map(|i| parse(i).problem).collect::<Vec<_>>())
        .expect("spawn");
    let problems = handle.join().expect("no stack overflow");
    assert!(problems.iter().all(Option::is_none), "{problems:?}");
}

#[test]
fn nested_reparse_depth_is_bounded() {
    assert_eq!(
        parse_nested("ls", MAX_DEPTH + 1).problem,
        Some(Problem::TooDeep)
    );
    assert!(parse_nested("ls", MAX_DEPTH).problem.is_none());
}

#[test]
fn ansi_c_decoding() {
    assert_eq!(decode_ansi_c(r"\x72\x6d\040\u00e9\n\\\q"), "rm é\n\\\\q");
}

#[test]
fn hidden_deep_process_substitutions_are_bounded() {
    let src = format!("{}ls{}", "cat <( echo ')' ".repeat(300), " )".repeat(300));
    let s = parse(&src);
    assert_eq!(s.problem, Some(Problem::TooDeep));
}

#[test]
fn heredoc_operators_get_one_blank_before_their_delimiter() {
    for (input, want) in [
        ("cat <<  EOF", "cat << EOF"),
        ("cat <<-\t\tEOF", "cat <<- EOF"),
        ("$(<<  h ", "$(<< h "),
        ("cat << EOF", "cat << EOF"),
        ("cat <<<   word", "cat <<<   word"),
        ("a <<  b <<   c", "a << b << c"),
        ("no heredoc", "no heredoc"),
    ] {
        assert_eq!(super::convert::heredoc_spacing(input), want, "{input:?}");
    }
}

#[test]
fn a_parse_over_its_budget_is_too_slow() {
    let line = "echo a && ".repeat(4000) + "echo b";
    let s = super::convert::parse_watched(&line, 0, false, std::time::Duration::ZERO);
    assert_eq!(s.problem, Some(Problem::TooSlow));
    // Within the budget the same line parses.
    let s = super::convert::parse_watched(&line, 0, false, super::PARSE_BUDGET * 40);
    assert_eq!(s.problem, None);
}

#[test]
fn open_here_documents_inside_substitutions_end() {
    // Each sent brush-parser 0.4 into an endless, memory-eating loop.
    for line in [
        "$(<<  h ",
        "$( << | { #",
        "$(<< ( bash #",
        "x $( << ; a b #",
        "$(<< >x \\",
        "$(<< >= \\",
        "<( 2>&1 sudo $( / << )) \\",
    ] {
        let s = parse(line);
        assert!(
            matches!(s.problem, Some(Problem::Syntax(_))),
            "{line:?}: {:?}",
            s.problem
        );
    }
}

#[test]
fn open_substitutions_with_here_documents_are_found() {
    use super::convert::open_substitution_with_heredoc as open;
    assert!(open("$(cat <<EOF"));
    assert!(open("`cat <<EOF"));
    assert!(!open("$(cat <<EOF\nx\nEOF\n)"));
    assert!(!open("cat <<< '('"), "a here-string is not a here-document");
    assert!(
        !open("echo '(' && cat <<EOF\nx\nEOF"),
        "a quoted ( does not open"
    );
    assert!(
        !open("echo \\( <<EOF\nx\nEOF"),
        "an escaped ( does not open"
    );
    assert!(!open("echo $(( 1 << 2 ))"));
}

#[test]
fn a_simple_command_text_is_brushs_rendering() {
    use brush_parser::ast;
    // User rules match this text: it must stay what brush renders, words one space apart.
    let lines = [
        "FOO=bar   rm  -rf   /tmp/x",
        "terraform\tdestroy  -auto-approve",
        "echo \"é  ü\" && echo  'ü'   ñ | tr a b",
        "a=(1  2)  b+=3 echo $x \"${y}\" $(date)",
        "cat  >out x 2>&1",
        "diff <(a) b",
        "rm  -rf \\\n  /x",
        "x=1",
        "FOO=bar",
        "! ls  -la",
    ];
    for line in lines {
        let opts = brush_parser::ParserOptions::default();
        let program = brush_parser::Parser::new(std::io::Cursor::new(line.as_bytes()), &opts)
            .parse_program()
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        for item in program.complete_commands.iter().flat_map(|c| &c.0) {
            for pipeline in &item.0 {
                for command in &pipeline.1.seq {
                    if let ast::Command::Simple(sc) = command {
                        assert_eq!(convert::simple_text(sc), sc.to_string(), "{line}");
                    }
                }
            }
        }
    }
    let texts = |src: &str| {
        let mut out = Vec::new();
        parse(src).for_each_simple(&mut |s| out.push(s.text.clone()));
        out
    };
    assert_eq!(texts("terraform  destroy"), ["terraform destroy"]);
    assert_eq!(texts("FOO=bar\trm  -rf /x"), ["FOO=bar rm -rf /x"]);
}

/// brush-parser 0.4 panics on an I/O number that overflows an `i32` (an `unwrap` in its
/// grammar), found by the `shell` fuzz target: the guard turns the panic into a problem, which
/// classification never approves.
#[test]
fn a_parser_panic_is_a_problem() {
    for src in [
        "9999999999999999<me",
        "echo hi 4294967296>out",
        "ls && 99999999999>&2",
    ] {
        assert_eq!(parse(src).problem, Some(Problem::ParserPanic), "{src}");
    }
}

/// brush-parser is patched to skip its assignment parser for words without `=`
/// (vendor/brush-parser/PATCHED.md). Assignments must still be found where Bash finds them:
/// before the command, and as arguments, where their values feed later words.
#[test]
fn assignments_are_found_before_and_after_the_command_name() {
    let s = first("A=1 B+=2 C[0]=x env D=/tmp --e=f \"g=h\" i");
    let names: Vec<&str> = s.assigns.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["A", "B", "C"]);
    let texts: Vec<&str> = s.words.iter().map(|w| w.text.as_str()).collect();
    assert_eq!(texts, ["env", "D=/tmp", "--e=f", "g=h", "i"]);
    // An assignment argument is an assignment: its value reaches a later `$D` (a plain word
    // `D=/` would leave `$D` unknown, not literal).
    assert_eq!(words("export D=/; rm -rf $D")[1], ["rm", "-rf", "/"]);
    assert_eq!(words("declare -r R=/x; rm -rf $R")[1], ["rm", "-rf", "/x"]);
    assert_eq!(words("a=(1 2) b=3; echo $b")[1], ["echo", "3"]);
}

#[test]
fn variables_expand_within_a_budget() {
    let mut line = String::from("a=xxxxxxxxxx; v0=$a");
    for i in 1..8 {
        line.push_str(&format!(
            "; v{i}=$v{p}$v{p}$v{p}$v{p}$v{p}$v{p}$v{p}$v{p}$v{p}$v{p}",
            p = i - 1
        ));
    }
    line.push_str("; echo $v7");
    let s = parse(&line);
    assert_eq!(s.problem, Some(Problem::TooLarge));
    let echoed: usize = s
        .pipelines
        .iter()
        .flat_map(|p| p.stages.iter().flatten())
        .flat_map(|c| c.words.iter())
        .map(|w| w.text.len())
        .sum();
    assert!(
        echoed <= super::MAX_EXPANSION + line.len(),
        "{echoed} bytes"
    );
    // Within the budget values are known.
    let s = parse("d=/tmp/x; rm -rf $d");
    assert_eq!(s.problem, None);
}
