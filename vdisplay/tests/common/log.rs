//! Reading the layer's JSON-lines present log (flat objects; a minimal parser).

use std::path::Path;

/// One log line.
#[derive(Clone, Debug)]
pub struct Entry {
    pub surface: u64,
    pub swapchain: u64,
    pub seq: u64,
    pub present_id: u64,
    pub image: u32,
    pub mode: String,
    pub queued_ns: u64,
    pub ready_ns: Option<u64>,
    pub shown_ns: Option<u64>,
    pub dropped: bool,
    pub reason: Option<String>,
    pub result: String,
}

fn field<'a>(line: &'a str, key: &str) -> &'a str {
    let pat = format!("\"{key}\":");
    let start = line
        .find(&pat)
        .unwrap_or_else(|| panic!("no {key} in {line}"))
        + pat.len();
    let rest = &line[start..];
    let end = rest.find([',', '}']).unwrap();
    rest[..end].trim_matches('"')
}

fn num(line: &str, key: &str) -> Option<u64> {
    let v = field(line, key);
    (v != "null").then(|| v.parse().unwrap())
}

/// Parses the log file.
pub fn read(path: &Path) -> Vec<Entry> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| Entry {
            surface: num(l, "surface").unwrap(),
            swapchain: num(l, "swapchain").unwrap(),
            seq: num(l, "seq").unwrap(),
            present_id: num(l, "present_id").unwrap(),
            image: num(l, "image").unwrap() as u32,
            mode: field(l, "mode").to_string(),
            queued_ns: num(l, "queued_ns").unwrap(),
            ready_ns: num(l, "ready_ns"),
            shown_ns: num(l, "shown_ns"),
            dropped: field(l, "dropped") == "true",
            reason: Some(field(l, "reason").to_string()).filter(|r| r != "null"),
            result: field(l, "result").to_string(),
        })
        .collect()
}
