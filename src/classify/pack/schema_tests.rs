//! Tests of the pack schema (kept apart: `build.rs` compiles `schema.rs` itself).
use super::super::act::ACTS;
use super::*;

#[test]
fn wildcards_match_runs_of_characters() {
    for (p, t, m) in [
        ("describe-*", "describe-instances", true),
        ("describe-*", "describe-", true),
        ("describe-*", "describ", false),
        ("*-delete", "batch-delete", true),
        ("*delete*", "undelete-me", true),
        ("a*b*c", "abc", true),
        ("a*b*c", "axxbyyc", true),
        ("a*b*c", "axxbyy", false),
        ("mkfs.*", "mkfs.ext4", true),
        ("mkfs.*", "mkfs", false),
        ("*", "", true),
        ("exact", "exact", true),
        ("exact", "exactly", false),
        ("ab*ab", "ab", false),
    ] {
        assert_eq!(wildcard(p, t), m, "{p} ~ {t}");
    }
}

#[test]
fn selections_parse_and_print_back() {
    for s in [
        "args",
        "args[0]",
        "args[1:]",
        "args[:-1]",
        "args[-1]",
        "args[1:3]",
        "opt(-o,--output)",
        "cwd",
        "words",
        "opt(-o) | args[0] | cwd",
    ] {
        let sel: Sel = s.parse().unwrap();
        assert_eq!(sel.to_string(), s);
    }
    for bad in ["arg", "args[x]", "opt(o)", "args[1", ""] {
        assert!(bad.parse::<Sel>().is_err(), "{bad}");
    }
}

#[test]
fn every_act_has_its_written_name() {
    for (act, name) in ACTS {
        let parsed: Act = serde_saphyr::from_str(name).unwrap();
        assert_eq!(parsed, *act);
        assert_eq!(act.as_str(), *name);
    }
}
