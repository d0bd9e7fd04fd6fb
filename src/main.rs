fn main() -> std::process::ExitCode {
    #[cfg(target_env = "musl")]
    allocator::tune();
    opm::run(std::env::args_os())
}

/// The static (musl) build's allocator, mimalloc (see Cargo.toml), set to
/// give memory back to the system soon: a catalog pod requests 50 MiB, and
/// mimalloc's defaults keep freed memory for a second and commit whole
/// arenas (the merged corpus catalog was served in 66 MiB; with these, in
/// 26 MiB and as fast). Giving it back at once (a delay of 0) costs
/// `render` of large JSON catalogs twice the time; 10 ms costs little.
#[cfg(target_env = "musl")]
mod allocator {
    #[global_allocator]
    static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

    /// mimalloc 3's option numbers (`mi_option_e` in `mimalloc.h`).
    const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
    const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

    pub fn tune() {
        // SAFETY: setting an option is a store into mimalloc's option table;
        // options are read when used, so these apply from here on.
        unsafe {
            libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
            libmimalloc_sys::mi_option_set(PURGE_DELAY, 10);
        }
    }
}
