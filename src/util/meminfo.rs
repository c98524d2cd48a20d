//! /proc/meminfo-style facts every layer may need: physical and available memory (the engine's memory plan,
//! the GPU backend's page-locked pool cap) and `key: value kB` parsing for other /proc files.

/// A /proc file's text ("" where unreadable).
pub fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// `key: value kB` from a /proc file, in bytes.
pub fn proc_kb(text: &str, key: &str) -> u64 {
    text.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(0, |kb| kb.saturating_mul(1024))
}

/// Physical memory in bytes (0 where unknown).
pub fn memory_bytes() -> u64 {
    proc_kb(&read("/proc/meminfo"), "MemTotal:")
}

/// Memory free right now, not even holding page cache (`MemFree`), in bytes (0 where unknown).
pub fn free_bytes() -> u64 {
    proc_kb(&read("/proc/meminfo"), "MemFree:")
}

/// Memory the machine can still give without swapping: `MemAvailable`, capped by this process's cgroup
/// (`memory.max` − `memory.current`, cgroup v2) where one is set; 0 where unknown.
pub fn available_bytes() -> u64 {
    let avail = proc_kb(&read("/proc/meminfo"), "MemAvailable:");
    let cg = |f: &str| read(&format!("/sys/fs/cgroup/{f}")).trim().parse::<u64>().ok();
    match (cg("memory.max"), cg("memory.current")) {
        (Some(max), Some(cur)) => {
            let room = max.saturating_sub(cur);
            if avail == 0 {
                room
            } else {
                avail.min(room)
            }
        }
        _ => avail,
    }
}
