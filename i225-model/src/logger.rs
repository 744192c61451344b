// SPDX-License-Identifier: GPL-2.0

//! A minimal stderr logger for the `log` facade.

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use log::{LevelFilter, Log, Metadata, Record};

struct StderrLogger;

impl Log for StderrLogger {
    fn enabled(&self, _: &Metadata) -> bool {
        true
    }

    fn log(&self, record: &Record) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let t = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        let thread = std::thread::current();
        let _ = writeln!(
            std::io::stderr().lock(),
            "{}.{:06} {:5} [{}] {}",
            t.as_secs(),
            t.subsec_micros(),
            record.level(),
            thread.name().unwrap_or("-"),
            record.args()
        );
    }

    fn flush(&self) {}
}

/// Installs the logger with `level` (later calls are ignored).
pub fn init(level: LevelFilter) {
    static LOGGER: StderrLogger = StderrLogger;
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(level);
    }
}
