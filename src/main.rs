fn main() -> std::process::ExitCode {
    oath::cli::main()
}
