//! What the display saw: one JSON object per line for every present, written when its fate is
//! known (shown, or dropped with a reason). The file is opened in append mode, one `write` per
//! line, so several devices (or processes) can share it.
//!
//! ```json
//! {"surface":1,"swapchain":2,"seq":17,"present_id":17,"image":1,"mode":"FIFO","acquired_ns":..,
//!  "queued_ns":..,"ready_ns":..,"shown_ns":..,"dropped":false,"reason":null,"result":"SUCCESS"}
//! ```
//! Times are CLOCK_MONOTONIC nanoseconds; `shown_ns` is the refresh-grid time the image became
//! visible (null when dropped); `ready_ns` when its semaphore waits completed (null when never
//! observed, e.g. destroyed first).

use std::fs::{File, OpenOptions};
use std::io::{LineWriter, Write};
use std::path::Path;
use std::sync::Mutex;

use ash::vk;

/// Why a present was not shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// A newer image replaced it before a refresh (MAILBOX).
    Replaced,
    /// The present returned an error (out of date, surface lost, timing queue full).
    Rejected,
    /// Its swapchain was destroyed first.
    Destroyed,
}

impl DropReason {
    fn as_str(self) -> &'static str {
        match self {
            Self::Replaced => "replaced",
            Self::Rejected => "rejected",
            Self::Destroyed => "destroyed",
        }
    }
}

/// One line of the log.
#[derive(Clone, Copy, Debug)]
pub struct PresentRecord {
    /// The surface's sequence number (creation order, from 1).
    pub surface: u64,
    /// The swapchain's sequence number (creation order, from 1).
    pub swapchain: u64,
    /// The present's sequence number on its swapchain (from 1).
    pub seq: u64,
    /// The application's present id (0: none).
    pub present_id: u64,
    /// The image index.
    pub image: u32,
    /// The present mode it was presented with.
    pub mode: vk::PresentModeKHR,
    /// When the application's acquire of the image returned (the frame's start as far as an
    /// unmodified application shows it), if known.
    pub acquired_ns: Option<u64>,
    /// When `vkQueuePresentKHR` was called.
    pub queued_ns: u64,
    /// The time it was meant for, for an absolute target (converted to CLOCK_MONOTONIC, the
    /// log's clock), so a reader can judge the frames that were ready in time.
    pub target_ns: Option<u64>,
    /// The duration a relative target asked for (at least this long after the previous
    /// image became visible), if it had one.
    pub relative_ns: Option<u64>,
    /// When its queue operations completed, if seen.
    pub ready_ns: Option<u64>,
    /// When it became visible (refresh-grid time), if it did.
    pub shown_ns: Option<u64>,
    /// Why it was not shown, if it was not.
    pub dropped: Option<DropReason>,
    /// What `vkQueuePresentKHR` returned for this swapchain.
    pub result: vk::Result,
}

/// Name of a present mode as the log writes it.
pub fn mode_name(mode: vk::PresentModeKHR) -> &'static str {
    match mode {
        vk::PresentModeKHR::FIFO => "FIFO",
        vk::PresentModeKHR::FIFO_RELAXED => "FIFO_RELAXED",
        vk::PresentModeKHR::MAILBOX => "MAILBOX",
        vk::PresentModeKHR::IMMEDIATE => "IMMEDIATE",
        _ => "OTHER",
    }
}

fn result_name(r: vk::Result) -> String {
    match r {
        vk::Result::SUCCESS => "SUCCESS".into(),
        vk::Result::SUBOPTIMAL_KHR => "SUBOPTIMAL_KHR".into(),
        vk::Result::ERROR_OUT_OF_DATE_KHR => "ERROR_OUT_OF_DATE_KHR".into(),
        vk::Result::ERROR_SURFACE_LOST_KHR => "ERROR_SURFACE_LOST_KHR".into(),
        vkpace_registry::ERROR_PRESENT_TIMING_QUEUE_FULL_EXT => {
            "ERROR_PRESENT_TIMING_QUEUE_FULL_EXT".into()
        }
        other => format!("{}", other.as_raw()),
    }
}

fn opt(v: Option<u64>) -> String {
    v.map_or_else(|| "null".to_string(), |v| v.to_string())
}

impl PresentRecord {
    /// The JSON line (without the newline).
    pub fn to_json(&self) -> String {
        let reason = self
            .dropped
            .map_or_else(|| "null".to_string(), |r| format!("\"{}\"", r.as_str()));
        format!(
            "{{\"surface\":{},\"swapchain\":{},\"seq\":{},\"present_id\":{},\"image\":{},\"mode\":\"{}\",\"acquired_ns\":{},\"queued_ns\":{},\"target_ns\":{},\"relative_ns\":{},\"ready_ns\":{},\"shown_ns\":{},\"dropped\":{},\"reason\":{},\"result\":\"{}\"}}",
            self.surface,
            self.swapchain,
            self.seq,
            self.present_id,
            self.image,
            mode_name(self.mode),
            opt(self.acquired_ns),
            self.queued_ns,
            opt(self.target_ns),
            opt(self.relative_ns),
            opt(self.ready_ns),
            opt(self.shown_ns),
            self.dropped.is_some(),
            reason,
            result_name(self.result),
        )
    }
}

/// The log file of one device.
pub struct PresentLog {
    out: Mutex<LineWriter<File>>,
}

impl PresentLog {
    /// Opens (creates, appends to) `path`; `None` (and a message) if it cannot.
    pub fn open(path: &Path) -> Option<Self> {
        match OpenOptions::new().create(true).append(true).open(path) {
            Ok(f) => Some(Self {
                out: Mutex::new(LineWriter::new(f)),
            }),
            Err(e) => {
                eprintln!("vdisplay: cannot open log {}: {e}", path.display());
                None
            }
        }
    }

    /// Appends one record.
    pub fn write(&self, record: &PresentRecord) {
        let mut line = record.to_json();
        line.push('\n');
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = out.write_all(line.as_bytes()) {
            eprintln!("vdisplay: log write failed: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_is_one_json_object() {
        let r = PresentRecord {
            surface: 1,
            swapchain: 2,
            seq: 3,
            present_id: 4,
            image: 1,
            mode: vk::PresentModeKHR::MAILBOX,
            acquired_ns: Some(9),
            queued_ns: 10,
            target_ns: None,
            relative_ns: Some(5),
            ready_ns: Some(11),
            shown_ns: None,
            dropped: Some(DropReason::Replaced),
            result: vk::Result::SUCCESS,
        };
        assert_eq!(
            r.to_json(),
            "{\"surface\":1,\"swapchain\":2,\"seq\":3,\"present_id\":4,\"image\":1,\"mode\":\"MAILBOX\",\"acquired_ns\":9,\"queued_ns\":10,\"target_ns\":null,\"relative_ns\":5,\"ready_ns\":11,\"shown_ns\":null,\"dropped\":true,\"reason\":\"replaced\",\"result\":\"SUCCESS\"}"
        );
    }
}
