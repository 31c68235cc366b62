//! The configuration file's syntax: `key = value` lines, `#` comments, `[executable]` sections.

use super::SettingError;

/// One `key = value` line of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEntry {
    /// The `[section]` it is in (an executable's file name); `None`: before any section.
    pub section: Option<String>,
    /// The key, lowercased.
    pub key: String,
    /// The value, trimmed.
    pub value: String,
    /// Its line number, from 1.
    pub line: usize,
}

/// The entries of `text`, in order, and the lines that are none.
pub fn parse_file(text: &str) -> (Vec<FileEntry>, Vec<SettingError>) {
    let mut entries = Vec::new();
    let mut errors = Vec::new();
    let mut section = None;
    for (index, raw) in text.lines().enumerate() {
        let line = strip_comment(raw).trim();
        if line.is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = Some(name.trim().to_string());
            continue;
        }
        match line.split_once('=') {
            Some((key, value)) if !key.trim().is_empty() => entries.push(FileEntry {
                section: section.clone(),
                key: key.trim().to_ascii_lowercase(),
                value: value.trim().to_string(),
                line: index + 1,
            }),
            _ => errors.push(SettingError::Malformed {
                source_name: format!("pacing.conf line {}", index + 1),
                line: raw.to_string(),
            }),
        }
    }
    (entries, errors)
}

/// The line up to a `#` (values hold no `#`: paths with one cannot be written in the file, the
/// environment variable takes them).
fn strip_comment(line: &str) -> &str {
    line.split_once('#').map_or(line, |(before, _)| before)
}
