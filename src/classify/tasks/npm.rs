//! `package.json` scripts: what `npm test`, `npm run X` (and pnpm, yarn and bun alike) run.
//! npm runs `preX`, `X` and `postX`; the others run fewer, so judging all three is never
//! too lenient.

use super::{Plan, Unread};

/// Returns the commands running script `name` of a `package.json` would run: its `pre`
/// and `post` scripts with it, the words given after the name appended to it (quoted, as
/// npm does). A script the file does not have runs nothing (npm fails), but `npm start`
/// without one runs `node server.js`.
pub(crate) fn plan(package_json: &str, name: &str, extra: &[String]) -> Plan {
    let v: serde_json::Value = serde_json::from_str(package_json).map_err(|_| Unread::Malformed)?;
    let scripts = match v.get("scripts") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::Object(m)) => Some(m),
        Some(_) => return Err(Unread::Malformed),
    };
    let script = |n: &str| -> Result<Option<String>, Unread> {
        match scripts.and_then(|m| m.get(n)) {
            None => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(Unread::Malformed),
        }
    };
    let Some(main) = script(name)? else {
        return Ok(if name == "start" {
            vec!["node server.js".to_owned()]
        } else {
            Vec::new()
        });
    };
    let mut out = Vec::new();
    out.extend(script(&format!("pre{name}"))?);
    let mut main = main;
    for w in extra {
        main.push_str(" '");
        main.push_str(&w.replace('\'', "'\\''"));
        main.push('\'');
    }
    out.push(main);
    out.extend(script(&format!("post{name}"))?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_with_its_pre_and_post_scripts() {
        let pj = r#"{"name":"x","scripts":{"pretest":"rm -rf ~","test":"vitest run","posttest":"echo done","build":"tsc"}}"#;
        assert_eq!(
            plan(pj, "test", &[]).unwrap(),
            vec!["rm -rf ~", "vitest run", "echo done"]
        );
        assert_eq!(plan(pj, "build", &[]).unwrap(), vec!["tsc"]);
        let extra = ["--out=it's".to_owned(), "; rm -rf ~".to_owned()];
        assert_eq!(
            plan(pj, "build", &extra).unwrap(),
            vec![r#"tsc '--out=it'\''s' '; rm -rf ~'"#]
        );
        assert_eq!(plan(pj, "lint", &[]).unwrap(), Vec::<String>::new());
        assert_eq!(plan(pj, "start", &[]).unwrap(), vec!["node server.js"]);
        assert_eq!(plan("{", "test", &[]), Err(Unread::Malformed));
        assert_eq!(
            plan(r#"{"scripts":{"test":1}}"#, "test", &[]),
            Err(Unread::Malformed)
        );
        assert_eq!(
            plan(r#"{"name":"x"}"#, "test", &[]).unwrap(),
            Vec::<String>::new()
        );
    }
}
