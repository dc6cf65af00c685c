//! The report's page: one self-contained HTML document (inline CSS, SVG and a small script; a
//! Content-Security-Policy that forbids loading anything) made from a [`Model`].
//!
//! The page's size grows with the calls only through three strings: one SVG path per
//! decision (a short subpath per call), one polyline per trust domain and level, and the
//! calls' details as a compact JSON array (texts interned) that the script reads on hover and
//! click. The DOM has a few hundred nodes whatever the number of calls.

use std::collections::HashMap;
use std::fmt::Write;

use serde_json::{Value, json};

use super::model::{Call, Mark, Model};
use crate::clock::Timestamp;

const CSS: &str = include_str!("report.css");
const JS: &str = include_str!("report.js");

/// Height of a lane in the marks chart, in pixels (and viewBox units).
const LANE: usize = 18;

/// Colours of the trust lines, one per domain in turn.
const PALETTE: [&str; 8] = [
    "#0969da", "#bf3989", "#1a7f37", "#9a6700", "#8250df", "#cf222e", "#1b7c83", "#57606a",
];

/// What the page says about itself.
#[derive(Debug, Clone)]
pub struct Meta {
    /// The project's folder name.
    pub project: String,
    /// What was read: `session 2a8a8413…`, `since …`.
    pub scope: String,
    /// When the report was made.
    pub generated: Timestamp,
}

/// Escapes text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Returns JSON safe inside a `<script>` element: `<`, `>` and `&` (found only in strings)
/// written as escapes, so no `</script>` or `<!--` can end or change it.
pub fn script_json(v: &Value) -> String {
    let text = v.to_string();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The lanes of the marks chart: each decision that occurs (all four always), then the
/// failure, strike and escalation rows.
fn lanes(model: &Model) -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<(&str, &str)> = Mark::ALL
        .iter()
        .filter(|m| **m != Mark::Ungated || model.calls.iter().any(|c| c.mark == **m))
        .map(|m| (m.as_str(), m.label()))
        .collect();
    out.extend([
        ("fail", "failure"),
        ("strike", "strike 2+"),
        ("esc", "escalation"),
    ]);
    out
}

/// Renders the page.
pub fn render(model: &Model, meta: &Meta) -> String {
    let mut h = String::with_capacity(64 * 1024 + model.calls.len() * 160);
    let title = match model.sessions.as_slice() {
        [one] => format!("oath report: {} (session {})", meta.project, short(one)),
        _ => format!("oath report: {} ({})", meta.project, meta.scope),
    };
    let _ = write!(
        h,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src {}; img-src data:\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{CSS}</style></head><body>\n",
        script_source(),
        esc(&title)
    );
    header(&mut h, model, meta);
    totals(&mut h, model);
    timeline(&mut h, model);
    kpt(&mut h, model);
    let _ = write!(
        h,
        "<script type=\"application/json\" id=\"calls\">{}</script>\n<script>{JS}</script>\n</body></html>\n",
        script_json(&calls_json(model))
    );
    h
}

/// The policy's source for the page's one script: its SHA-256, so that no other inline script
/// runs. Styles stay `'unsafe-inline'`: the charts place and colour elements by their `style`
/// attributes, and a style runs no code.
fn script_source() -> String {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(JS.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

fn header(h: &mut String, model: &Model, meta: &Meta) {
    let span = match model.span {
        Some((a, b)) => format!(
            "{} – {} UTC",
            a.iso_seconds().replace('T', " ").trim_end_matches('Z'),
            b.iso_seconds().replace('T', " ").trim_end_matches('Z')
        ),
        None => "no records".into(),
    };
    let sessions: Vec<String> = model
        .sessions
        .iter()
        .map(|s| format!("<code title=\"{0}\">{1}</code>", esc(s), esc(&short(s))))
        .collect();
    let mut parts = vec![if sessions.is_empty() {
        "no session".to_owned()
    } else if sessions.len() == 1 {
        format!("session {}", sessions[0])
    } else {
        format!("{} sessions: {}", sessions.len(), sessions.join(", "))
    }];
    if !meta.scope.is_empty() {
        parts.push(esc(&meta.scope));
    }
    parts.push(esc(&span));
    parts.push(format!(
        "made {} by oath {}",
        esc(&meta.generated.iso_seconds()),
        env!("CARGO_PKG_VERSION")
    ));
    let _ = writeln!(
        h,
        "<header><h1>oath session report: {}</h1><p class=\"sub\">{}</p></header>",
        esc(&meta.project),
        parts.join(" · ")
    );
}

fn short(s: &str) -> String {
    s.chars().take(8).collect()
}

fn totals(h: &mut String, model: &Model) {
    let t = &model.totals;
    let cards = [
        (t.calls, "tool calls", "calls"),
        (t.allowed, "prompts avoided", "prompts-avoided"),
        (t.no_opinion, "no opinion", "no-opinion"),
        (t.asked, "asked", "asks"),
        (t.denied, "denied", "denials"),
        (t.failures, "failed", "failures"),
        (t.strikes, "strikes (2+)", "strikes"),
        (t.escalations, "escalations", "escalations"),
        (t.prompts, "user prompts", "prompts"),
    ];
    h.push_str("<section id=\"totals\" class=\"cards\">");
    for (n, label, key) in cards {
        let _ = write!(
            h,
            "<div class=\"card\" data-total=\"{key}\" title=\"{}\"><b>{n}</b><span>{label}</span></div>",
            card_help(key)
        );
    }
    h.push_str("</section>\n");
}

/// Least distance between two threshold labels, in percent of the trust chart's height.
const LABEL_GAP: f64 = 6.5;

/// Height of the trust chart in viewBox units: a score of 1 at 5, 0 at 105.
const TRUST_H: f64 = 110.0;

/// Returns the viewBox y of a trust score.
fn trust_y(score: f64) -> f64 {
    5.0 + (1.0 - score.clamp(0.0, 1.0)) * 100.0
}

fn card_help(key: &str) -> &'static str {
    match key {
        "calls" => "tool calls in the audit trail (one mark each on the timeline)",
        "prompts-avoided" => "calls oath allowed: each ran without a permission prompt",
        "no-opinion" => "calls left to the client's own permission rules",
        "asks" => "calls oath asked the user about",
        "denials" => "calls oath denied",
        "failures" => "calls whose outcome was a failure",
        "strikes" => "failures that repeated an error (3-strike count 2 or more)",
        "escalations" => {
            "3-strike escalations: failures at strike 3 and calls asked because of one"
        }
        _ => "human prompts (UserPromptSubmit)",
    }
}

fn fmt_x(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

fn timeline(h: &mut String, model: &Model) {
    let n = model.calls.len();
    h.push_str("<section id=\"timeline\"><h2>Timeline</h2>\n");
    if n == 0 {
        h.push_str(
            "<p class=\"empty\">No tool calls in this part of the audit trail.</p></section>\n",
        );
        return;
    }
    let lanes = lanes(model);
    let row: HashMap<&str, usize> = lanes.iter().enumerate().map(|(i, l)| (l.0, i)).collect();
    // Legend.
    h.push_str("<div class=\"legend\">");
    for (cls, label) in &lanes {
        let _ = write!(
            h,
            "<span><i style=\"background:var(--{})\"></i>{}</span>",
            if *cls == "esc" { "esc" } else { cls },
            esc(label)
        );
    }
    if !model.prompts.is_empty() {
        h.push_str("<span><i style=\"background:#0969da;opacity:.5\"></i>user prompt</span>");
    }
    h.push_str("</div>\n");
    let zoom_max = (n / 50).clamp(1, 64);
    let _ = writeln!(
        h,
        "<div class=\"tools\"><label for=\"zoom\">zoom</label><input id=\"zoom\" type=\"range\" \
         min=\"1\" max=\"{zoom_max}\" step=\"1\" value=\"1\"><span>{} · one column per call, \
         oldest left; hover or click a call for its details</span></div>",
        if n == 1 {
            "1 call".to_owned()
        } else {
            format!("{n} calls")
        }
    );
    // Left column: lane names, then the trust scale and thresholds.
    h.push_str("<div class=\"chart\"><div class=\"labels\">");
    for (_, label) in &lanes {
        let _ = write!(h, "<div>{}</div>", esc(label));
    }
    let trust_top = lanes.len() * LANE + 8;
    let _ = write!(
        h,
        "<div style=\"position:absolute;top:{trust_top}px;left:0;right:0;height:200px\">"
    );
    for (score, label) in [(1.0, "trust 1.0"), (0.5, "0.5"), (0.0, "0.0")] {
        let _ = write!(
            h,
            "<div class=\"tl\" style=\"top:{:.2}%\">{label}</div>",
            trust_y(score) / TRUST_H * 100.0
        );
    }
    // Threshold labels top-down, each at least a line below the one above it.
    let mut labels: Vec<(f64, &super::model::Threshold)> = model
        .thresholds
        .iter()
        .map(|t| (trust_y(t.trust) / TRUST_H * 100.0, t))
        .collect();
    labels.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut floor = f64::MIN;
    for (top, t) in labels {
        let top = top.max(floor);
        floor = top + LABEL_GAP;
        let _ = write!(
            h,
            "<div class=\"tl\" style=\"top:{:.2}%;color:var(--{})\">{} {} {}{:.2}</div>",
            top,
            t.kind,
            t.kind,
            t.risk.as_str(),
            if t.kind == "allow" { "&gt;" } else { "&lt;" },
            t.trust
        );
    }
    h.push_str("</div></div>\n");
    // The scrolled, zoomed part.
    let height = lanes.len() * LANE;
    let _ = write!(
        h,
        "<div class=\"scroll\"><div class=\"canvas\" id=\"canvas\" tabindex=\"0\" \
         aria-label=\"tool calls: click one, then the arrow keys move between calls\">\
         <div id=\"cursor\" hidden></div>\
         <svg class=\"marks\" style=\"--mh:{height}px\" viewBox=\"0 0 {n} {height}\" \
         preserveAspectRatio=\"none\" role=\"img\" aria-label=\"one mark per tool call, by decision\">"
    );
    for (i, _) in lanes.iter().enumerate() {
        let _ = write!(
            h,
            "<rect class=\"lane{}\" x=\"0\" y=\"{}\" width=\"{n}\" height=\"{LANE}\"/>",
            if i % 2 == 1 { " odd" } else { "" },
            i * LANE
        );
    }
    if !model.prompts.is_empty() {
        let mut d = String::new();
        for p in &model.prompts {
            let _ = write!(d, "M{p} 0V{height}");
        }
        let _ = write!(h, "<path class=\"prompt\" d=\"{d}\"/>");
    }
    // One path per decision, one subpath per call; then the failure, strike and
    // escalation rows.
    let mut paths: Vec<(&str, String, usize)> =
        lanes.iter().map(|l| (l.0, String::new(), 0)).collect();
    let mut mark = |cls: &str, i: usize| {
        let r = row[cls];
        let (_, d, count) = &mut paths[r];
        let _ = write!(d, "M{i}.5 {}v{}", r * LANE + 3, LANE - 6);
        *count += 1;
    };
    for (i, c) in model.calls.iter().enumerate() {
        mark(c.mark.as_str(), i);
        if c.failed() {
            mark("fail", i);
        }
        if c.strike.is_some_and(|s| s >= 2) {
            mark("strike", i);
        }
        if is_escalation(c) {
            mark("esc", i);
        }
    }
    for (i, (cls, d, count)) in paths.iter().enumerate() {
        // The decision rows hold the call marks; the rows after them are annotations.
        let kind = if i < lanes.len() - 3 { "call" } else { "note" };
        let _ = write!(
            h,
            "<path class=\"{cls}\" data-kind=\"{kind}\" data-count=\"{count}\" d=\"{d}\"/>"
        );
    }
    h.push_str("</svg>\n");
    // Trust per domain.
    let _ = write!(
        h,
        "<svg class=\"trust\" viewBox=\"0 0 {n} {TRUST_H}\" preserveAspectRatio=\"none\" role=\"img\" \
         aria-label=\"trust per domain\">"
    );
    for score in [0.0, 0.5, 1.0] {
        let y = trust_y(score);
        let _ = write!(
            h,
            "<line class=\"grid\" x1=\"0\" x2=\"{n}\" y1=\"{y}\" y2=\"{y}\"/>"
        );
    }
    for t in &model.thresholds {
        let y = trust_y(t.trust);
        let _ = write!(
            h,
            "<line class=\"{}\" data-risk=\"{}\" x1=\"0\" x2=\"{n}\" y1=\"{y:.2}\" y2=\"{y:.2}\"><title>{} {} {:.3} for {} risk</title></line>",
            t.kind,
            t.risk.as_str(),
            t.kind,
            if t.kind == "ask" { "below" } else { "above" },
            t.trust,
            t.risk.as_str()
        );
    }
    for (i, line) in model.trust.iter().enumerate() {
        let mut pts = String::with_capacity(line.points.len() * 10);
        for (k, (x, s)) in line.points.iter().enumerate() {
            if k > 0 {
                pts.push(' ');
            }
            let _ = write!(pts, "{},{}", fmt_x(*x), fmt_x(trust_y(*s)));
        }
        let _ = write!(
            h,
            "<polyline data-domain=\"{}\" data-level=\"{}\" data-points=\"{}\" stroke=\"{}\" points=\"{pts}\"><title>{}</title></polyline>",
            esc(&line.domain),
            esc(&line.level),
            line.points.len(),
            PALETTE[i % PALETTE.len()],
            esc(&line.label())
        );
    }
    h.push_str("</svg>\n<div class=\"ticks\">");
    let ticks = 8.min(n);
    for k in 0..ticks {
        let i = k * n / ticks;
        if let Some(t) = model.calls[i].time {
            let clock = t.iso_seconds();
            let _ = write!(
                h,
                "<span style=\"left:{:.3}%{}\">{}</span>",
                (i as f64 + 0.5) / n as f64 * 100.0,
                if k == 0 { ";transform:none" } else { "" },
                esc(clock.get(11..19).unwrap_or(&clock))
            );
        }
    }
    h.push_str("</div></div></div></div>\n<div class=\"legend\">");
    for (i, line) in model.trust.iter().enumerate() {
        let last = line.points.last().map_or(0.0, |p| p.1);
        let _ = write!(
            h,
            "<span><i style=\"background:{}\"></i>{} {:.2}</span>",
            PALETTE[i % PALETTE.len()],
            esc(&line.label()),
            last
        );
    }
    if model.trust.is_empty() {
        h.push_str("<span>no trust change in this part of the trail</span>");
    } else {
        h.push_str("<span>dashed: trust above which oath allows (green) and below which it asks (amber) reversible calls of that risk</span>");
    }
    h.push_str("</div>\n<div id=\"tip\" hidden></div><div id=\"detail\"><span class=\"empty\">Click a call for its details.</span></div></section>\n");
}

fn is_escalation(c: &Call) -> bool {
    c.escalation
        || c.strike
            .is_some_and(|s| s >= crate::strike::store::ESCALATE_AT)
}

fn intern<'a>(texts: &mut Vec<&'a str>, index: &mut HashMap<&'a str, usize>, s: &'a str) -> usize {
    *index.entry(s).or_insert_with(|| {
        texts.push(s);
        texts.len() - 1
    })
}

/// The calls' details: `{"t0": ms, "s": [texts], "c": [[...], ...]}`, each call's texts as
/// indexes into `s` (see report.js for the order).
pub fn calls_json(model: &Model) -> Value {
    let mut texts: Vec<&str> = vec![""];
    let mut index: HashMap<&str, usize> = HashMap::from([("", 0)]);
    let t0 = model
        .calls
        .iter()
        .find_map(|c| c.time)
        .map_or(0, |t| t.unix_millis());
    let mut rows = Vec::with_capacity(model.calls.len());
    for c in &model.calls {
        let (before, after) = match c.trust {
            Some((b, a)) => (json!(b), json!(a)),
            None => (Value::Null, Value::Null),
        };
        rows.push(json!([
            c.time.map(|t| t.unix_millis() - t0).map(|d| d as i64),
            Mark::ALL.iter().position(|m| *m == c.mark).unwrap_or(4),
            intern(&mut texts, &mut index, &c.tool),
            intern(&mut texts, &mut index, &c.target),
            intern(&mut texts, &mut index, &c.domain),
            intern(&mut texts, &mut index, &c.risk),
            intern(&mut texts, &mut index, &c.rule),
            intern(&mut texts, &mut index, &c.reason),
            intern(&mut texts, &mut index, &c.outcome),
            intern(&mut texts, &mut index, &c.refused_by),
            intern(&mut texts, &mut index, &c.error),
            before,
            after,
            c.strike.unwrap_or(0),
            u8::from(c.escalation),
            intern(&mut texts, &mut index, &c.session),
        ]));
    }
    json!({"t0": t0 as i64, "s": texts, "c": rows})
}

fn list(h: &mut String, title: &str, items: &[(String, String)]) {
    let _ = write!(h, "<h3>{}</h3>", esc(title));
    if items.is_empty() {
        h.push_str("<p class=\"empty\">none</p>");
        return;
    }
    h.push_str("<ul>");
    for (main, note) in items {
        let _ = write!(h, "<li>{}", esc(main));
        if !note.is_empty() {
            let _ = write!(h, "<br><small>{}</small>", esc(note));
        }
        h.push_str("</li>");
    }
    h.push_str("</ul>");
}

fn kpt(h: &mut String, model: &Model) {
    let Some(r) = &model.kpt else {
        return;
    };
    let outcome = serde_json::to_value(r.outcome)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let _ = write!(
        h,
        "<section id=\"kpt\" class=\"kpt\"><h2>Retrospective {} ({})</h2><p>{}</p>",
        esc(&r.id),
        esc(&outcome),
        esc(&r.session_summary)
    );
    let goals: Vec<(String, String)> = r
        .task_goals
        .iter()
        .map(|g| (g.clone(), String::new()))
        .collect();
    list(h, "Goals", &goals);
    let keep: Vec<(String, String)> = r
        .keep
        .iter()
        .map(|k| (format!("{}: {}", k.id, k.description), k.evidence.clone()))
        .collect();
    list(h, "Keep", &keep);
    let problem: Vec<(String, String)> = r
        .problem
        .iter()
        .map(|p| (format!("{}: {}", p.id, p.description), p.evidence.clone()))
        .collect();
    list(h, "Problem", &problem);
    let tries: Vec<(String, String)> = r
        .tries
        .iter()
        .map(|t| {
            (
                format!("{}: {}", t.id, t.description),
                if t.addresses.is_empty() {
                    String::new()
                } else {
                    format!("addresses {}", t.addresses.join(", "))
                },
            )
        })
        .collect();
    list(h, "Try", &tries);
    h.push_str("</section>\n");
}
