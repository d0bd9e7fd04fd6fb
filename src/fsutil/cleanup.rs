//! Clean-up on SIGINT and SIGTERM. While a command has something half-done on disk (a temporary
//! file or directory, a replaced file whose backup is kept for an undo), it registers how to
//! undo it here and drops the returned [`Guard`] once the state is final. The first
//! registration starts a thread that waits for SIGINT or SIGTERM; when one arrives, every
//! registered action runs, newest first, and the process exits with 130 (SIGINT) or 143
//! (SIGTERM), as a shell reports a process killed by the signal.
//!
//! Commands that never register anything keep the default signal behaviour. A command that
//! handles the signals itself once its files are in place (`serve`) turns the exit off with
//! [`exit_on_signal`]; registered actions still run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Whether the listener ends the process after cleaning up.
static EXIT: AtomicBool = AtomicBool::new(true);
/// Whether that exit reports success rather than the signal.
static EXIT_SUCCESS: AtomicBool = AtomicBool::new(false);

/// Whether a signal, once the registered actions ran, ends the process (the default). Turned
/// off by a command that stops gracefully on its own.
pub fn exit_on_signal(exit: bool) {
    EXIT.store(exit, Ordering::SeqCst);
}

/// From now on SIGINT and SIGTERM end the process (after the clean-up) with exit status 0:
/// for a server still starting, which is asked to stop before it serves (a pod deleted while
/// it loads its catalog). Without the listener (it could not be started) the signals keep
/// their default action.
pub fn exit_successfully_on_signal() {
    EXIT_SUCCESS.store(true, Ordering::SeqCst);
    let mut state = state();
    if !state.listening {
        state.listening = listen().is_ok();
    }
}

/// What to do with a registered path when a signal arrives.
#[derive(Debug)]
enum Action {
    /// Remove a file or a directory tree.
    Remove(PathBuf),
    /// Rename a backup over the file it was taken of.
    Restore { backup: PathBuf, target: PathBuf },
    /// Remove a directory if it is empty (one a command created for its output).
    RemoveEmptyDir(PathBuf),
}

#[derive(Debug, Default)]
struct State {
    next: u64,
    actions: BTreeMap<u64, Action>,
    listening: bool,
}

static STATE: Mutex<State> = Mutex::new(State {
    next: 0,
    actions: BTreeMap::new(),
    listening: false,
});

fn state() -> MutexGuard<'static, State> {
    // A panic elsewhere must not stop the clean-up.
    STATE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Keeps an action registered; dropping it unregisters the action.
#[derive(Debug)]
#[must_use = "the action is unregistered when the guard is dropped"]
pub struct Guard(u64);

impl Drop for Guard {
    fn drop(&mut self) {
        state().actions.remove(&self.0);
    }
}

fn register(action: Action) -> Guard {
    let mut state = state();
    if !state.listening {
        // Without the listener the signal keeps its default action (the process dies and
        // leaves the temporary files); nothing else can be done then.
        state.listening = listen().is_ok();
    }
    let id = state.next;
    state.next += 1;
    state.actions.insert(id, action);
    Guard(id)
}

/// On a signal, remove `path` (a file or a whole directory).
pub fn remove_on_signal(path: &Path) -> Guard {
    register(Action::Remove(path.to_path_buf()))
}

/// On a signal, move `backup` back over `target`.
pub fn restore_on_signal(backup: &Path, target: &Path) -> Guard {
    register(Action::Restore {
        backup: backup.to_path_buf(),
        target: target.to_path_buf(),
    })
}

/// On a signal, remove the directory `dir` if it is empty by then.
pub fn remove_empty_dir_on_signal(dir: &Path) -> Guard {
    register(Action::RemoveEmptyDir(dir.to_path_buf()))
}

fn listen() -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::Builder::new()
        .name("opm-signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                let state = clean_up();
                if EXIT.load(Ordering::SeqCst) {
                    // Nothing may be registered (and left behind) after the clean-up.
                    std::mem::forget(state);
                    let status = if EXIT_SUCCESS.load(Ordering::SeqCst) {
                        0
                    } else {
                        128 + signal
                    };
                    std::process::exit(status);
                }
            }
        })?;
    Ok(())
}

/// Runs every registered action, newest first; returns the lock, so that the caller can keep
/// anything new from being registered before the process exits.
fn clean_up() -> MutexGuard<'static, State> {
    let mut state = state();
    let actions = std::mem::take(&mut state.actions);
    for (_, action) in actions.into_iter().rev() {
        match action {
            Action::Remove(path) => remove(&path),
            Action::Restore { backup, target } => {
                let _ = std::fs::rename(&backup, &target);
            }
            Action::RemoveEmptyDir(dir) => {
                let _ = std::fs::remove_dir(&dir);
            }
        }
    }
    state
}

fn remove(path: &Path) {
    match path.symlink_metadata() {
        Ok(metadata) if metadata.is_dir() => {
            // Another thread may still be writing into it: try again a few times.
            for _ in 0..3 {
                if std::fs::remove_dir_all(path).is_ok() || !path.exists() {
                    break;
                }
            }
        }
        Ok(_) => {
            let _ = std::fs::remove_file(path);
        }
        Err(_) => {}
    }
}

/// A temporary directory removed when dropped, and on SIGINT/SIGTERM.
#[derive(Debug)]
pub struct TempDir {
    // Unregistered before the directory goes.
    _guard: Guard,
    dir: tempfile::TempDir,
}

impl TempDir {
    /// A new directory `<prefix>XXXXXX` in `parent`, or in the system's temporary directory.
    pub fn new(prefix: &str, parent: Option<&Path>) -> std::io::Result<TempDir> {
        let mut builder = tempfile::Builder::new();
        builder.prefix(prefix);
        let dir = match parent {
            Some(parent) => builder.tempdir_in(parent)?,
            None => builder.tempdir()?,
        };
        Ok(TempDir {
            _guard: remove_on_signal(dir.path()),
            dir,
        })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Removes the directory now, reporting a failure.
    pub fn close(self) -> std::io::Result<()> {
        let TempDir { _guard, dir } = self;
        dir.close()
    }

    /// Keeps the directory (it was renamed into place): neither dropping nor a signal removes
    /// it any more.
    pub fn keep(self) -> PathBuf {
        let TempDir { _guard, dir } = self;
        dir.keep()
    }
}

/// A temporary file removed when dropped, and on SIGINT/SIGTERM, until it is persisted.
#[derive(Debug)]
pub struct TempFile {
    guard: Guard,
    file: tempfile::NamedTempFile,
}

impl TempFile {
    /// A new file `<prefix>XXXXXX` in `dir`.
    pub fn new_in(dir: &Path, prefix: &str) -> std::io::Result<TempFile> {
        let file = tempfile::Builder::new().prefix(prefix).tempfile_in(dir)?;
        Ok(TempFile {
            guard: remove_on_signal(file.path()),
            file,
        })
    }

    pub fn path(&self) -> &Path {
        self.file.path()
    }

    pub fn as_file(&self) -> &std::fs::File {
        self.file.as_file()
    }

    pub fn as_file_mut(&mut self) -> &mut std::fs::File {
        self.file.as_file_mut()
    }

    /// Renames the file to `path`, replacing what is there.
    pub fn persist(self, path: &Path) -> Result<(), tempfile::PersistError> {
        let TempFile { guard, file } = self;
        file.persist(path)?;
        drop(guard);
        Ok(())
    }

    /// Renames the file to `path` unless something is there.
    pub fn persist_noclobber(self, path: &Path) -> Result<(), tempfile::PersistError> {
        let TempFile { guard, file } = self;
        file.persist_noclobber(path)?;
        drop(guard);
        Ok(())
    }
}
