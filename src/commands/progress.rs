//! A progress line on stderr while a catalog loads, only when stderr is a
//! terminal and only once loading has taken a moment: small catalogs and
//! piped runs never see it.

use crate::declcfg::load::LoadProgress;
use std::io::IsTerminal as _;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// How long a load runs before its progress is shown.
const DELAY: Duration = Duration::from_millis(500);
/// How often the line is redrawn.
const INTERVAL: Duration = Duration::from_millis(100);

/// Draws `Loading <what>: N of M files, X MB` until dropped, then clears it.
pub(crate) struct Ticker {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Ticker {
    /// Shows the progress of loads counted in `progress` (when stderr is a
    /// terminal; otherwise does nothing).
    pub(crate) fn start(what: String, progress: Arc<LoadProgress>) -> Ticker {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let thread = std::io::stderr().is_terminal().then(|| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                draw(&what, &progress, &stop, DELAY, &mut |line| match line {
                    Some(line) => crate::output::progress(&line),
                    None => crate::output::progress_clear(),
                });
            })
        });
        Ticker { stop, thread }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        let (stopped, wake) = &*self.stop;
        if let Ok(mut stopped) = stopped.lock() {
            *stopped = true;
        }
        wake.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Redraws the line (`show(Some(line))`) while a load is under way, from
/// `delay` on, until told to stop; clears it (`show(None)`) when done.
fn draw(
    what: &str,
    progress: &LoadProgress,
    stop: &(Mutex<bool>, Condvar),
    delay: Duration,
    show: &mut dyn FnMut(Option<String>),
) {
    let (stopped, wake) = stop;
    let mut shown = false;
    let mut wait = delay;
    loop {
        let Ok(guard) = stopped.lock() else {
            return;
        };
        let Ok((guard, _)) = wake.wait_timeout_while(guard, wait, |stopped| !*stopped) else {
            return;
        };
        if *guard {
            break;
        }
        drop(guard);
        wait = INTERVAL;
        let (done, files, bytes) = progress.snapshot();
        // Only while files are being read (not while an image is pulled).
        if done < files {
            show(Some(line(what, done, files, bytes)));
            shown = true;
        } else if shown {
            show(None);
            shown = false;
        }
    }
    if shown {
        show(None);
    }
}

/// `Loading catalog: 120 of 440 files, 35 MB`.
fn line(what: &str, done: usize, files: usize, bytes: u64) -> String {
    format!(
        "Loading {what}: {done} of {files} files, {} MB",
        bytes / 1_000_000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines appear while files are loading, and are cleared at the end.
    #[test]
    fn progress_is_drawn_while_loading_then_cleared() {
        let progress = Arc::new(LoadProgress::default());
        progress.add_files(4);
        progress.file_done(2_500_000);
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let shown = Arc::new(Mutex::new(Vec::new()));
        let thread = {
            let (progress, stop, shown) = (progress.clone(), stop.clone(), shown.clone());
            std::thread::spawn(move || {
                draw("c", &progress, &stop, Duration::ZERO, &mut |line| {
                    shown.lock().unwrap().push(line);
                });
            })
        };
        while shown.lock().unwrap().is_empty() {
            std::thread::sleep(Duration::from_millis(5));
        }
        for _ in 0..3 {
            progress.file_done(1_000_000);
        }
        *stop.0.lock().unwrap() = true;
        stop.1.notify_all();
        thread.join().unwrap();
        let shown = shown.lock().unwrap();
        assert_eq!(shown[0].as_deref(), Some("Loading c: 1 of 4 files, 2 MB"));
        assert_eq!(shown.last(), Some(&None), "cleared: {shown:?}");
    }

    /// Nothing is drawn before the delay.
    #[test]
    fn a_quick_load_shows_nothing() {
        let progress = LoadProgress::default();
        progress.add_files(1);
        let stop = (Mutex::new(true), Condvar::new());
        let mut shown = Vec::new();
        draw(
            "c",
            &progress,
            &stop,
            Duration::from_secs(60),
            &mut |line| {
                shown.push(line);
            },
        );
        assert!(shown.is_empty());
    }

    #[test]
    fn the_line_counts_files_and_megabytes() {
        assert_eq!(
            line("catalog", 120, 440, 35_400_000),
            "Loading catalog: 120 of 440 files, 35 MB"
        );
    }
}
