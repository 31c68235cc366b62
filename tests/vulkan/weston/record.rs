//! weston's own record of a run, read from its log with the `timeline` and `proto` scopes: the
//! frames (commits) one client's toplevel surface sent, which of them weston showed, and when
//! (`vblank_monotonic` of the repaint that showed it, CLOCK_MONOTONIC nanoseconds).
//!
//! weston writes both scopes to one log as things happen, so their order is the compositor's
//! order. The rules that tie them together:
//! - a commit of the toplevel's `wl_surface` with a buffer attached is a frame, its size that
//!   of the buffer (`wl_shm_pool.create_buffer`; lavapipe's WSI presents through wl_shm);
//! - FIFO commits wait for the previous one's refresh (`wp_fifo_v1`), so a repaint that
//!   flushes the surface's damage shows the oldest frame not yet shown (taken at the flush:
//!   weston may release that frame's buffer before the repaint finishes);
//! - `wl_buffer.release` of a frame's buffer means a newer frame replaced it: it and every
//!   older frame are done (shown, or replaced unseen). Buffers of a destroyed swapchain are
//!   never released; the repaints account for those. Buffer ids are recycled, so a release
//!   counts only for the newest toplevel frame of that id since the id was last created.

use std::collections::{HashMap, VecDeque};

use anyhow::{ensure, Result};

/// One frame weston showed.
#[derive(Clone, Copy, Debug)]
pub struct Shown {
    /// When (the repaint's `vblank_monotonic`), ns.
    pub at_ns: u64,
    /// The frame's size.
    pub size: (u32, u32),
    /// Which repaint showed it (index into [`Record::repaints`]).
    pub repaint: usize,
}

/// What weston saw and showed of the client's toplevel.
#[derive(Debug, Default)]
pub struct Record {
    /// Every frame's size, in commit order.
    pub frames: Vec<(u32, u32)>,
    /// The frames shown, in order.
    pub shown: Vec<Shown>,
    /// Every repaint of the output (`vblank_monotonic`, ns), whether it showed a frame or not.
    pub repaints: Vec<u64>,
    /// Where weston's repaint loop went idle (nothing to show: no frame had come in time), as
    /// the number of repaints before it.
    pub idle_after_repaints: Vec<usize>,
    /// At each frame whose size differs from the frame before (the first frame of a new
    /// swapchain after a resize): how many older frames were still waiting to be shown.
    pub older_frames_waiting_at_resize: Vec<usize>,
}

/// The parser's state.
#[derive(Default)]
struct Reader {
    record: Record,
    toplevel_ws: Option<u64>,
    toplevel_wl: Option<u64>,
    /// The toplevel's client (weston's pointer for it); other clients (a desktop shell's panel)
    /// have objects with the same ids.
    toplevel_client: Option<String>,
    buffer_sizes: HashMap<(String, u64), (u32, u32)>,
    attached: Option<u64>,
    /// The newest toplevel frame of each buffer id (ids are recycled: a new buffer with an old
    /// id, say a window decoration's, forgets the old frame).
    buffer_frame: HashMap<u64, usize>,
    waiting: VecDeque<usize>,
    /// The frame the repaint in progress flushed, shown when the repaint finishes.
    flushed: Option<usize>,
}

/// Whether weston's repaint loop went idle after the last commit in `log`: every frame it was
/// sent has been shown or dropped, so the log holds the whole record.
pub fn settled(log: &str) -> bool {
    let idle = log.rfind("\"N\":\"core_repaint_exit_loop\"");
    let commit = log.rfind(".commit()");
    idle.is_some_and(|idle| commit.is_none_or(|commit| idle > commit))
}

impl Record {
    /// Reads weston's log.
    pub fn parse(log: &str) -> Result<Self> {
        let mut r = Reader::default();
        for line in log.lines() {
            if line.starts_with('{') {
                r.timeline(line);
            } else if line.contains("][proto] client") {
                r.protocol(line);
            }
        }
        ensure!(
            r.toplevel_wl.is_some() && r.toplevel_ws.is_some(),
            "no toplevel in weston's log: was it started with the record on?"
        );
        Ok(r.record)
    }

    /// When a frame of `size` was first shown at or after `since_ns`.
    pub fn first_shown(&self, size: (u32, u32), since_ns: u64) -> Option<u64> {
        self.shown
            .iter()
            .find(|s| s.size == size && s.at_ns >= since_ns)
            .map(|s| s.at_ns)
    }
}

impl Reader {
    fn timeline(&mut self, line: &str) {
        if line.contains("\"type\":\"weston_surface\"")
            && line.contains("\"desc\":\"top-level window")
        {
            self.toplevel_ws = number_after(line, "\"id\":");
        } else if line.contains("\"N\":\"core_flush_damage\"") {
            let surface = number_after(line, "\"ws\":");
            if surface.is_some() && surface == self.toplevel_ws && self.flushed.is_none() {
                // Taken now: weston may release the buffer before the repaint finishes.
                self.flushed = self.waiting.pop_front();
            }
        } else if line.contains("\"N\":\"core_repaint_exit_loop\"") {
            let repaints = self.record.repaints.len();
            self.record.idle_after_repaints.push(repaints);
        } else if line.contains("\"N\":\"core_repaint_finished\"") {
            let Some(at_ns) = vblank_ns(line) else {
                return;
            };
            self.record.repaints.push(at_ns);
            if let Some(frame) = self.flushed.take() {
                self.record.shown.push(Shown {
                    at_ns,
                    size: self.record.frames[frame],
                    repaint: self.record.repaints.len() - 1,
                });
            }
        }
    }

    fn protocol(&mut self, line: &str) {
        let Some(client) = client_of(line) else {
            return;
        };
        if self.toplevel_client.as_deref().is_some_and(|c| c != client) {
            return;
        }
        if let Some(at) = line.find(".get_xdg_surface(") {
            if self.toplevel_wl.is_none() {
                self.toplevel_wl = number_after(&line[at..], "wl_surface@");
                self.toplevel_client = Some(client.to_string());
            }
        } else if let Some(at) = line.find(".create_buffer(new id wl_buffer@") {
            let args = &line[at + ".create_buffer(new id wl_buffer@".len()..];
            self.buffer_created(client, args);
        } else if line.contains(".release()") {
            if let Some(buffer) = number_after(line, "ev wl_buffer@") {
                self.released(buffer);
            }
        } else if let Some(surface) = self.toplevel_wl {
            if let Some(at) = line.find(&format!("rq wl_surface@{surface}.attach(wl_buffer@")) {
                self.attached = number_after(&line[at..], "wl_buffer@");
            } else if line.contains(&format!("rq wl_surface@{surface}.commit()")) {
                self.committed(client);
            }
        }
    }

    /// `B, offset, W, H, stride, format)`.
    fn buffer_created(&mut self, client: &str, args: &str) {
        let fields: Vec<u64> = args
            .split([',', ')'])
            .filter_map(|f| f.trim().parse().ok())
            .collect();
        if let [buffer, _offset, w, h, ..] = fields[..] {
            self.buffer_sizes
                .insert((client.to_string(), buffer), (w as u32, h as u32));
            self.buffer_frame.remove(&buffer);
        }
    }

    fn released(&mut self, buffer: u64) {
        if let Some(&frame) = self.buffer_frame.get(&buffer) {
            while self.waiting.front().is_some_and(|&f| f <= frame) {
                self.waiting.pop_front();
            }
        }
    }

    fn committed(&mut self, client: &str) {
        let Some(buffer) = self.attached.take() else {
            return;
        };
        let Some(&size) = self.buffer_sizes.get(&(client.to_string(), buffer)) else {
            return;
        };
        if self.record.frames.last().is_some_and(|&prev| prev != size) {
            self.record
                .older_frames_waiting_at_resize
                .push(self.waiting.len());
        }
        self.record.frames.push(size);
        self.buffer_frame
            .insert(buffer, self.record.frames.len() - 1);
        self.waiting.push_back(self.record.frames.len() - 1);
    }
}

/// weston's name of the client a protocol line is about (`client 0x55d4e2330300`).
fn client_of(line: &str) -> Option<&str> {
    let at = line.find("] client ")? + "] client ".len();
    line[at..].split_whitespace().next()
}

/// The digits right after `key` in `line`.
fn number_after(line: &str, key: &str) -> Option<u64> {
    let at = line.find(key)? + key.len();
    let digits: String = line[at..]
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// `"vblank_monotonic":[S, NS]` in ns.
fn vblank_ns(line: &str) -> Option<u64> {
    let at = line.find("\"vblank_monotonic\":[")? + "\"vblank_monotonic\":[".len();
    let mut parts = line[at..].split([',', ']']);
    let s: u64 = parts.next()?.trim().parse().ok()?;
    let ns: u64 = parts.next()?.trim().parse().ok()?;
    Some(s * 1_000_000_000 + ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A FIFO frame, a resize with one older frame still waiting, its repaints and releases.
    const LOG: &str = r#"[t][proto] client 0x1 (PID 1) rq xdg_wm_base@10.get_xdg_surface(new id xdg_surface@14, wl_surface@13)
{ "id":2, "type":"weston_surface", "desc":"top-level window 'vkpace'" }
[t][proto] client 0x1 (PID 1) rq wl_shm_pool@51.create_buffer(new id wl_buffer@52, 0, 640, 480, 2560, 1)
[t][proto] client 0x1 (PID 1) rq wl_shm_pool@53.create_buffer(new id wl_buffer@54, 0, 640, 480, 2560, 1)
[t][proto] client 0x1 (PID 1) rq wl_surface@13.attach(wl_buffer@52, 0, 0)
[t][proto] client 0x1 (PID 1) rq wl_surface@13.commit()
[t][proto] client 0x1 (PID 1) rq wl_surface@13.attach(wl_buffer@54, 0, 0)
[t][proto] client 0x1 (PID 1) rq wl_surface@13.commit()
{ "T":[1, 0], "N":"core_flush_damage", "ws":2, "wo":1 }
{ "T":[1, 0], "N":"core_repaint_finished", "wo":1, "vblank_monotonic":[10, 0] }
[t][proto] client 0x1 (PID 1) rq wl_shm_pool@55.create_buffer(new id wl_buffer@61, 0, 324, 243, 1344, 1)
[t][proto] client 0x1 (PID 1) rq wl_surface@13.attach(wl_buffer@61, 0, 0)
[t][proto] client 0x1 (PID 1) rq wl_surface@13.commit()
{ "T":[1, 0], "N":"core_flush_damage", "ws":3, "wo":1 }
{ "T":[1, 0], "N":"core_repaint_finished", "wo":1, "vblank_monotonic":[10, 16000000] }
{ "T":[1, 0], "N":"core_repaint_exit_loop", "wo":1 }
{ "T":[1, 0], "N":"core_flush_damage", "ws":2, "wo":1 }
[t][proto] client 0x1 (PID 1) ev wl_buffer@52.release()
{ "T":[1, 0], "N":"core_repaint_finished", "wo":1, "vblank_monotonic":[10, 33000000] }
{ "T":[1, 0], "N":"core_flush_damage", "ws":2, "wo":1 }
{ "T":[1, 0], "N":"core_repaint_finished", "wo":1, "vblank_monotonic":[10, 50000000] }
"#;

    #[test]
    fn the_log_is_settled_once_the_repaint_loop_idles_after_the_last_commit() {
        let end = LOG.rfind("core_repaint_exit_loop").unwrap_or(0);
        assert!(!settled(&LOG[..end]), "no idle after the last commit yet");
        assert!(settled(&LOG[..end + 40]));
        let commit_after = format!(
            "{}{}",
            &LOG[..end + 40],
            "\n[t][proto] client 0x1 (PID 1) rq wl_surface@13.commit()\n"
        );
        assert!(!settled(&commit_after), "a commit after the idle");
    }

    #[test]
    fn frames_sizes_and_showings_are_read_in_order() -> Result<()> {
        let r = Record::parse(LOG)?;
        assert_eq!(r.frames, vec![(640, 480), (640, 480), (324, 243)]);
        assert_eq!(r.older_frames_waiting_at_resize, vec![1]);
        let shown: Vec<_> = r
            .shown
            .iter()
            .map(|s| (s.at_ns, s.size, s.repaint))
            .collect();
        assert_eq!(
            shown,
            vec![
                (10_000_000_000, (640, 480), 0),
                (10_033_000_000, (640, 480), 2),
                (10_050_000_000, (324, 243), 3),
            ]
        );
        assert_eq!(
            r.repaints.len(),
            4,
            "the repaint that flushed another surface counts"
        );
        assert_eq!(r.idle_after_repaints, vec![2]);
        assert_eq!(r.first_shown((324, 243), 0), Some(10_050_000_000));
        Ok(())
    }

    #[test]
    fn a_release_retires_every_older_frame() -> Result<()> {
        // Frame 0 is replaced unseen (no repaint flushed it): its buffer's release drops it,
        // so the next repaint shows frame 1, not frame 0.
        let log = LOG.replacen(
            "{ \"T\":[1, 0], \"N\":\"core_flush_damage\", \"ws\":2, \"wo\":1 }\n{ \"T\":[1, 0], \"N\":\"core_repaint_finished\", \"wo\":1, \"vblank_monotonic\":[10, 0] }\n",
            "[t][proto] client 0x1 (PID 1) ev wl_buffer@52.release()\n",
            1,
        );
        let r = Record::parse(&log)?;
        assert_eq!(r.older_frames_waiting_at_resize, vec![1]);
        let shown: Vec<_> = r.shown.iter().map(|s| (s.at_ns, s.size)).collect();
        assert_eq!(
            shown,
            vec![(10_033_000_000, (640, 480)), (10_050_000_000, (324, 243))]
        );
        Ok(())
    }

    #[test]
    fn a_frame_released_before_its_repaint_finished_was_shown() -> Result<()> {
        // Seen on a loaded machine: weston releases the buffer it just flushed before the
        // repaint finishes.
        let log = r#"[t][proto] client 0x1 (PID 1) rq xdg_wm_base@10.get_xdg_surface(new id xdg_surface@14, wl_surface@13)
{ "id":2, "type":"weston_surface", "desc":"top-level window 'vkpace'" }
[t][proto] client 0x1 (PID 1) rq wl_shm_pool@51.create_buffer(new id wl_buffer@52, 0, 640, 480, 2560, 1)
[t][proto] client 0x1 (PID 1) rq wl_surface@13.attach(wl_buffer@52, 0, 0)
[t][proto] client 0x1 (PID 1) rq wl_surface@13.commit()
{ "T":[1, 0], "N":"core_flush_damage", "ws":2, "wo":1 }
[t][proto] client 0x1 (PID 1) ev wl_buffer@52.release()
{ "T":[1, 0], "N":"core_repaint_finished", "wo":1, "vblank_monotonic":[10, 0] }
"#;
        let r = Record::parse(log)?;
        assert_eq!(r.shown.len(), 1);
        Ok(())
    }

    #[test]
    fn another_clients_objects_with_the_same_ids_are_not_the_toplevels() -> Result<()> {
        // A desktop shell's panel: its own wl_surface@13 and wl_buffer@52.
        let panel = "[t][proto] client 0x2 (PID 2) rq wl_shm_pool@5.create_buffer(new id wl_buffer@52, 0, 1024, 32, 4096, 1)\n\
                     [t][proto] client 0x2 (PID 2) rq wl_surface@13.attach(wl_buffer@52, 0, 0)\n\
                     [t][proto] client 0x2 (PID 2) rq wl_surface@13.commit()\n";
        let log = format!("{panel}{LOG}{panel}");
        let r = Record::parse(&log)?;
        assert_eq!(r.frames, vec![(640, 480), (640, 480), (324, 243)]);
        Ok(())
    }

    #[test]
    fn a_recycled_buffer_id_does_not_retire_the_old_frame() -> Result<()> {
        // After frame 0's buffer 52 is gone, id 52 comes back as a decoration's buffer, whose
        // release says nothing about the toplevel's frames.
        let log = LOG.replacen(
            "{ \"T\":[1, 0], \"N\":\"core_flush_damage\", \"ws\":3, \"wo\":1 }\n",
            "[t][proto] client 0x1 (PID 1) rq wl_shm_pool@9.create_buffer(new id wl_buffer@54, 0, 32, 32, 128, 1)\n\
             [t][proto] client 0x1 (PID 1) ev wl_buffer@54.release()\n",
            1,
        );
        let r = Record::parse(&log)?;
        assert_eq!(r.shown.len(), 3, "frame 1 still waited and was shown");
        Ok(())
    }
}
