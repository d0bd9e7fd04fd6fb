//! The only place that writes to the terminal: data to stdout, messages to
//! stderr.
#![expect(clippy::print_stderr, reason = "this module owns terminal output")]

use std::io::Write as _;

/// Writes data to stdout (locked, buffered by the caller) and flushes it.
pub fn stdout(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()
}

/// Writes text to stderr as it is (the lines of `grpc_health_probe`, which end in their own
/// newlines); a closed stderr is not an error worth stopping for.
pub fn stderr(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// Prints a failure as `Error: <message>`.
pub fn error(message: &str) {
    eprintln!("Error: {message}");
}

/// Prints a command's usage after an error about its arguments (stderr).
pub fn usage(text: &str) {
    eprint!("{text}");
}

/// Prints the next step after an error (`hint: ...`).
pub fn hint(text: &str) {
    eprintln!("hint: {text}");
}

/// Prints a warning line.
pub fn warning(message: &str) {
    eprintln!("warning: {message}");
}

/// Prints a progress line (upstream: a logrus info message), without
/// upstream's timestamp and level framing.
pub fn info(message: &str) {
    eprintln!("{message}");
}

/// Overwrites the current stderr line with a progress message (callers only
/// use it when stderr is a terminal).
pub fn progress(message: &str) {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "\r{message}\x1b[K");
    let _ = err.flush();
}

/// Clears the line a [`progress`] message was written on.
pub fn progress_clear() {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "\r\x1b[K");
    let _ = err.flush();
}
