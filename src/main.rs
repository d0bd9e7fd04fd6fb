fn main() -> std::process::ExitCode {
    opm::run(std::env::args_os())
}
