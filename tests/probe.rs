//! `opm` invoked as `grpc_health_probe` (through a link of that name, as catalog images carry
//! it) against real gRPC servers: Python's grpcio with a health service whose statuses the
//! tests pick (`probe_server.py`), plain, over TLS and mutual TLS, and `opm serve`. Every
//! expected line is the original grpc-health-probe's (v0.4.56, Go's `flag` package for
//! command-line errors).

use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// What Go's `flag` package prints for the probe's flags.
const USAGE: &str = "Usage:
  -addr string
    \t(required) tcp host:port to connect
  -alts
    \tuse ALTS (default: false, INSECURE plaintext transport)
  -connect-timeout duration
    \ttimeout for establishing connection (default 1s)
  -gzip
    \tuse GZIPCompressor for requests and GZIPDecompressor for response (default: false)
  -rpc-header value
    \tadditional RPC headers in 'name: value' format. May specify more than one via multiple flags.
  -rpc-timeout duration
    \ttimeout for health check rpc (default 1s)
  -service string
    \tservice name to check (default: \"\")
  -spiffe
    \tuse SPIFFE to obtain mTLS credentials
  -tls
    \tuse TLS (default: false, INSECURE plaintext transport)
  -tls-ca-cert string
    \t(with -tls, optional) file containing trusted certificates for verifying server
  -tls-client-cert string
    \t(with -tls, optional) client certificate for authenticating to the server (requires -tls-client-key)
  -tls-client-key string
    \t(with -tls) client private key for authenticating to the server (requires -tls-client-cert)
  -tls-no-verify
    \t(with -tls) don't verify the certificate (INSECURE) presented by the server (default: false)
  -tls-server-name string
    \t(with -tls) override the hostname used to verify the server certificate
  -user-agent string
    \tuser-agent header value of health check requests (default \"grpc_health_probe\")
  -v\tverbose logs
  -version
    \tshow probe version and exit
";

fn repo(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// What a probe run printed and how it exited.
#[derive(Debug)]
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    took: Duration,
}

/// A directory holding `grpc_health_probe`, a link to the built `opm`.
fn probe_link() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let link = dir.path().join("grpc_health_probe");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_opm"), &link).expect("link the probe");
    (dir, link)
}

/// Runs the probe with `args` after generous timeouts (which `args` may override), so that a
/// loaded machine does not turn an answer into a timeout.
fn probe(args: &[&str]) -> Run {
    probe_as_given(&[&["-connect-timeout=30s", "-rpc-timeout=30s"], args].concat())
}

/// Runs the probe with exactly `args`.
fn probe_as_given(args: &[&str]) -> Run {
    let (_dir, link) = probe_link();
    let started = Instant::now();
    let output = Command::new(&link)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run grpc_health_probe");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        took: started.elapsed(),
    }
}

/// Asserts the exit code and the exact stderr (stdout empty).
fn expect(run: &Run, code: i32, stderr: &str) {
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (code, "", stderr),
        "{run:?}"
    );
}

/// Whether Python's grpcio and grpc_tools are there; if not, the calling test is skipped.
fn have_grpcio() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    let found = *FOUND.get_or_init(|| {
        Command::new("/usr/bin/python3")
            .args(["-c", "import grpc, grpc_tools.protoc"])
            .output()
            .is_ok_and(|out| out.status.success())
    });
    if !found {
        crate::util::skip(
            "needs Python's grpcio (apt-get install python3-grpcio python3-grpc-tools)",
        );
    }
    found
}

/// A running `probe_server.py`, killed when dropped.
struct HealthServer {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl HealthServer {
    fn start(options: &[&str]) -> HealthServer {
        let dir = tempfile::tempdir().expect("temporary directory");
        let log = std::fs::File::create(dir.path().join("stderr")).expect("log file");
        let mut child = Command::new("/usr/bin/python3")
            .arg(repo("tests/probe_server.py"))
            .arg(dir.path())
            .args(options)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("start probe_server.py");
        let mut line = String::new();
        let read =
            std::io::BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line);
        let port = line
            .trim()
            .strip_prefix("PORT ")
            .and_then(|p| p.parse().ok());
        let Some(port) = port.filter(|_| read.is_ok()) else {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = std::fs::read_to_string(dir.path().join("stderr")).unwrap_or_default();
            panic!("probe_server.py did not start: {line:?}\n{stderr}");
        };
        HealthServer { child, port, dir }
    }

    fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The metadata of every call so far, as `(key, value)` pairs per call.
    fn calls(&self) -> Vec<Vec<(String, String)>> {
        let text = std::fs::read_to_string(self.dir.path().join("calls.jsonl")).unwrap_or_default();
        text.lines()
            .map(|line| {
                let call: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
                call["metadata"]
                    .as_array()
                    .expect("metadata")
                    .iter()
                    .map(|pair| {
                        (
                            pair[0].as_str().unwrap_or_default().to_string(),
                            pair[1].as_str().unwrap_or_default().to_string(),
                        )
                    })
                    .collect()
            })
            .collect()
    }
}

impl HealthServer {
    /// For every call so far, the seconds its deadline left when it arrived (-1 without one).
    fn time_remaining(&self) -> Vec<f64> {
        let text = std::fs::read_to_string(self.dir.path().join("calls.jsonl")).unwrap_or_default();
        text.lines()
            .map(|line| {
                let call: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
                call["time_remaining"].as_f64().unwrap_or(-1.0)
            })
            .collect()
    }
}

impl Drop for HealthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port nothing listens on (bound, then released).
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address").port()
}

#[test]
fn probe_reports_each_health_status_with_the_original_s_line_and_exit_code() {
    if !have_grpcio() {
        return;
    }
    let server = HealthServer::start(&[]);
    let addr = server.addr();
    let port = server.port.to_string();
    for address in [
        addr.clone(),
        format!("localhost:{port}"),
        format!(":{port}"),
    ] {
        expect(&probe(&["-addr", &address]), 0, "status: SERVING\n");
    }
    expect(
        &probe(&[&format!("-addr={addr}"), "-service=sick"]),
        4,
        "service unhealthy (responded with \"NOT_SERVING\")\n",
    );
    expect(
        &probe(&["--addr", &addr, "--service", "unknown-status"]),
        4,
        "service unhealthy (responded with \"SERVICE_UNKNOWN\")\n",
    );
    // grpcio's health servicer answers NOT_FOUND, without a message, for a service it does not know.
    expect(
        &probe(&["-addr", &addr, "-service", "nobody"]),
        3,
        "error: health rpc failed: rpc error: code = NotFound desc = \n",
    );
    // Compression as -gzip asks it.
    expect(&probe(&["-addr", &addr, "-gzip"]), 0, "status: SERVING\n");
    // Parsing stops at the first non-flag argument: the rest is ignored, as the original ignores it.
    expect(
        &probe(&["-addr", &addr, "extra", "-service=sick"]),
        0,
        "status: SERVING\n",
    );
}

#[test]
fn probe_times_out_a_call_that_is_never_answered() {
    if !have_grpcio() {
        return;
    }
    let server = HealthServer::start(&[]);
    let run = probe(&[
        "-addr",
        &server.addr(),
        "-service=slow",
        "-rpc-timeout=300ms",
    ]);
    expect(
        &run,
        3,
        "timeout: health rpc did not complete within 300ms\n",
    );
    assert!(run.took < Duration::from_secs(10), "{run:?}");
    // The server was told the deadline (grpc-timeout).
    let remaining = server.time_remaining();
    assert!(
        remaining.len() == 1 && remaining[0] > 0.0 && remaining[0] <= 0.3,
        "{remaining:?}"
    );
    // SIGTERM during the call cancels it, as the original's context is cancelled.
    let (_dir, link) = probe_link();
    let child = Command::new(&link)
        .args(["-addr", &server.addr(), "-service=slow", "-rpc-timeout=20s"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run grpc_health_probe");
    let started = Instant::now();
    while server.time_remaining().len() < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the call never arrived"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = Command::new("kill")
        .args(["-s", "TERM", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(sent.success());
    let output = child.wait_with_output().expect("wait");
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "cancellation received (signal: terminated)\nerror: health rpc failed: rpc error: code = Canceled desc = context canceled\n"
    );
}

#[test]
fn probe_says_when_the_server_has_no_health_service() {
    if !have_grpcio() {
        return;
    }
    let server = HealthServer::start(&["--no-health"]);
    expect(
        &probe(&["-addr", &server.addr()]),
        3,
        "error: this server does not implement the grpc health protocol (grpc.health.v1.Health): Method not found!\n",
    );
}

#[test]
fn probe_sends_rpc_headers_and_user_agent() {
    if !have_grpcio() {
        return;
    }
    let server = HealthServer::start(&[]);
    let run = probe(&[
        "-addr",
        &server.addr(),
        "-rpc-header",
        "X-Probe: one",
        "-rpc-header=x-probe:two",
        "-rpc-header=authorization:Bearer  token",
        "-rpc-header=trace-bin:ab",
        "-rpc-header=te:ignored",
        "-user-agent",
        "kube-probe/1.31",
    ]);
    expect(&run, 0, "status: SERVING\n");
    let calls = server.calls();
    let call = &calls[0];
    let values = |key: &str| -> Vec<&str> {
        call.iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect()
    };
    assert_eq!(values("x-probe"), ["one", "two"], "{call:?}");
    assert_eq!(values("authorization"), ["Bearer  token"], "{call:?}");
    assert_eq!(values("trace-bin"), ["bytes:6162"], "{call:?}");
    let agent = values("user-agent");
    assert!(
        agent.len() == 1 && agent[0].starts_with("kube-probe/1.31 opm/"),
        "{call:?}"
    );
    // The default user agent.
    probe(&["-addr", &server.addr()]);
    let calls = server.calls();
    assert!(
        calls[1]
            .iter()
            .any(|(k, v)| k == "user-agent" && v.starts_with("grpc_health_probe opm/")),
        "{calls:?}"
    );
    // Metadata grpc-go refuses fails the call before it is sent.
    expect(
        &probe(&["-addr", &server.addr(), "-rpc-header", "bad key: v"]),
        3,
        "error: health rpc failed: rpc error: code = Internal desc = header key \"bad key\" contains illegal characters not in [0-9a-z-_.]\n",
    );
}

#[test]
fn probe_verbose_output_is_the_original_s() {
    if !have_grpcio() {
        return;
    }
    let server = HealthServer::start(&[]);
    let run = probe(&["-v", "-addr", &server.addr(), "-rpc-header=k:v"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{run:?}");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(
        lines[..7],
        [
            "parsed options:".to_string(),
            format!("> addr={} conn_timeout=30s rpc_timeout=30s", server.addr()),
            "> headers: {map[k:[v]]}".to_string(),
            "> tls=false".to_string(),
            "> alts=false".to_string(),
            "> spiffe=false".to_string(),
            "establishing connection".to_string(),
        ],
        "{run:?}"
    );
    let duration = r"[0-9.]+(ns|µs|ms|s)";
    let took = regex_lite(&format!(r"^connection established \(took {duration}\)$"));
    assert!(took(lines[7]), "{run:?}");
    assert!(
        regex_lite(&format!(
            "^time elapsed: connect={duration} rpc={duration}$"
        ))(lines[8]),
        "{run:?}"
    );
    assert_eq!(lines[9..], ["status: SERVING"], "{run:?}");
}

/// A tiny matcher for the duration lines: `[0-9.]+(ns|µs|ms|s)` stands for a Go duration under
/// a minute, everything else matches itself (with `\(`/`\)` for parentheses, `^`/`$` anchors).
fn regex_lite(pattern: &str) -> impl Fn(&str) -> bool {
    let pattern = pattern
        .trim_start_matches('^')
        .trim_end_matches('$')
        .replace(r"\(", "(")
        .replace(r"\)", ")");
    let parts: Vec<String> = pattern
        .split(r"[0-9.]+(ns|µs|ms|s)")
        .map(str::to_string)
        .collect();
    move |text: &str| {
        let mut rest = text;
        for (i, part) in parts.iter().enumerate() {
            let Some(after) = rest.strip_prefix(part.as_str()) else {
                return false;
            };
            rest = after;
            if i + 1 < parts.len() {
                let digits = rest
                    .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                    .unwrap_or(rest.len());
                if digits == 0 {
                    return false;
                }
                rest = &rest[digits..];
                let Some(unit) = ["ns", "µs", "ms", "s"]
                    .iter()
                    .find(|u| rest.starts_with(**u))
                else {
                    return false;
                };
                rest = &rest[unit.len()..];
            }
        }
        rest.is_empty()
    }
}

#[test]
fn probe_gives_up_connecting_after_the_connect_timeout() {
    let port = closed_port();
    let addr = format!("127.0.0.1:{port}");
    let run = probe(&["-addr", &addr, "-connect-timeout", "300ms"]);
    expect(
        &run,
        2,
        &format!("timeout: failed to connect service \"{addr}\" within 300ms\n"),
    );
    assert!(run.took >= Duration::from_millis(300), "{run:?}");
    // A server that accepts connections but never speaks HTTP/2 is no connection either.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = format!("127.0.0.1:{}", silent.local_addr().expect("address").port());
    let run = probe(&["-addr", &addr, "-connect-timeout=400ms", "-rpc-timeout=5s"]);
    expect(
        &run,
        2,
        &format!("timeout: failed to connect service \"{addr}\" within 400ms\n"),
    );
    // The default is one second.
    let addr = format!(":{port}");
    expect(
        &probe_as_given(&["-addr", &addr]),
        2,
        &format!("timeout: failed to connect service \"{addr}\" within 1s\n"),
    );
}

/// Waits until process `pid` handles SIGTERM itself (its `SigCgt` mask in /proc says so), so
/// that a SIGTERM sent next is the probe's to report, not a plain kill.
fn wait_until_it_catches_sigterm(pid: u32) {
    const SIGTERM_BIT: u64 = 1 << (15 - 1);
    let started = Instant::now();
    loop {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let caught = status
            .lines()
            .find_map(|line| line.strip_prefix("SigCgt:"))
            .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
            .unwrap_or(0);
        if caught & SIGTERM_BIT != 0 {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the probe never caught SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn probe_stops_on_sigterm_as_the_original_does() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = format!("127.0.0.1:{}", silent.local_addr().expect("address").port());
    let (_dir, link) = probe_link();
    let child = Command::new(&link)
        .args(["-addr", &addr, "-connect-timeout=20s"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run grpc_health_probe");
    wait_until_it_catches_sigterm(child.id());
    let sent = Command::new("kill")
        .args(["-s", "TERM", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(sent.success());
    let output = child.wait_with_output().expect("wait");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!("cancellation received (signal: terminated)\nerror: failed to connect service at \"{addr}\": context canceled\n")
    );
}

#[test]
fn probe_refuses_bad_arguments_as_go_s_flag_package_and_the_original_do() {
    expect(
        &probe_as_given(&["-bogus"]),
        1,
        &format!("flag provided but not defined: -bogus\n{USAGE}"),
    );
    expect(
        &probe_as_given(&["-addr"]),
        1,
        &format!("flag needs an argument: -addr\n{USAGE}"),
    );
    expect(
        &probe_as_given(&["-tls=maybe"]),
        1,
        &format!("invalid boolean value \"maybe\" for -tls: parse error\n{USAGE}"),
    );
    expect(
        &probe_as_given(&["-addr=:1", "-connect-timeout", "10"]),
        1,
        &format!("invalid value \"10\" for flag -connect-timeout: parse error\n{USAGE}"),
    );
    expect(
        &probe_as_given(&["-addr=:1", "-rpc-header", "nocolon"]),
        1,
        &format!("invalid value \"nocolon\" for flag -rpc-header: invalid RPC header, expected 'key: value', got \"nocolon\"\n{USAGE}"),
    );
    expect(
        &probe_as_given(&["---addr=:1"]),
        1,
        &format!("bad flag syntax: ---addr=:1\n{USAGE}"),
    );
    expect(&probe_as_given(&["-h"]), 1, USAGE);
    expect(&probe_as_given(&["--help"]), 1, USAGE);
    expect(&probe_as_given(&[]), 1, "error: -addr not specified\n");
    expect(
        &probe_as_given(&["-addr=:1", "-rpc-timeout=0s"]),
        1,
        "error: -rpc-timeout must be greater than zero (specified: 0s)\n",
    );
    expect(
        &probe_as_given(&["-addr=:1", "-tls-no-verify"]),
        1,
        "error: specified -tls-no-verify without specifying -tls\n",
    );
    let alts = probe_as_given(&["-addr=:1", "-alts"]);
    assert_eq!(alts.code, 1, "{alts:?}");
    assert!(
        alts.stderr
            .starts_with("error: -alts is not supported by opm's grpc_health_probe: "),
        "{alts:?}"
    );
    let spiffe = probe_as_given(&["-addr=:1", "-spiffe"]);
    assert_eq!(spiffe.code, 1, "{spiffe:?}");
    assert!(
        spiffe
            .stderr
            .starts_with("error: -spiffe is not supported by opm's grpc_health_probe: "),
        "{spiffe:?}"
    );
    // -version prints on stdout and exits 0.
    let version = probe_as_given(&["-version"]);
    assert_eq!(
        (version.code, version.stderr.as_str()),
        (0, ""),
        "{version:?}"
    );
    assert!(version.stdout.starts_with("opm v"), "{version:?}");
}

/// A CA, a server certificate for `localhost` and 127.0.0.1, and a client certificate, made
/// with `openssl` in `dir`.
fn certificates(dir: &Path) {
    let openssl = |args: &[&str]| {
        let output = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("run openssl");
        assert!(
            output.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let key = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    openssl(
        &[
            &["req", "-x509"],
            &key[..],
            &[
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem",
                "-days",
                "2",
                "-subj",
                "/CN=probe test CA",
                "-addext",
                "basicConstraints=critical,CA:TRUE",
                "-addext",
                "keyUsage=critical,keyCertSign,cRLSign",
            ],
        ]
        .concat(),
    );
    for (name, usage, san) in [
        (
            "server",
            "serverAuth",
            "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
        ),
        ("client", "clientAuth", ""),
    ] {
        std::fs::write(
            dir.join(format!("{name}.ext")),
            format!("{san}basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage={usage}\n"),
        )
        .expect("write extensions");
        openssl(
            &[
                &["req"],
                &key[..],
                &[
                    "-keyout",
                    &format!("{name}.key"),
                    "-out",
                    &format!("{name}.csr"),
                    "-subj",
                    &format!("/CN=probe test {name}"),
                ],
            ]
            .concat(),
        );
        openssl(&[
            "x509",
            "-req",
            "-in",
            &format!("{name}.csr"),
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            &format!("{name}.pem"),
            "-days",
            "2",
            "-extfile",
            &format!("{name}.ext"),
        ]);
    }
}

#[test]
fn probe_checks_tls_servers_as_the_tls_flags_say() {
    if !have_grpcio() || !crate::util::have_tool("openssl", "openssl") {
        return;
    }
    let certs = tempfile::tempdir().expect("temporary directory");
    certificates(certs.path());
    let file = |name: &str| certs.path().join(name).display().to_string();
    let server = HealthServer::start(&["--tls", &file("server.pem"), &file("server.key")]);
    let addr = server.addr();
    let localhost = format!("localhost:{}", server.port);
    let ca = file("ca.pem");
    for args in [
        vec!["-addr", &addr, "-tls", "-tls-ca-cert", &ca],
        vec!["-addr", &localhost, "-tls", "-tls-ca-cert", &ca],
        vec![
            "-addr",
            &addr,
            "-tls",
            "-tls-ca-cert",
            &ca,
            "-tls-server-name=localhost",
        ],
        vec!["-addr", &addr, "-tls", "-tls-no-verify"],
    ] {
        expect(&probe(&args), 0, "status: SERVING\n");
    }
    // What cannot be verified is no connection: the system's roots do not know this CA, the
    // certificate does not name the server name, plaintext is no TLS.
    let timeout = format!("timeout: failed to connect service \"{addr}\" within 500ms\n");
    for args in [
        vec!["-addr", &addr, "-tls"],
        vec![
            "-addr",
            &addr,
            "-tls",
            "-tls-ca-cert",
            &ca,
            "-tls-server-name=other.example",
        ],
        vec!["-addr", &addr],
    ] {
        expect(
            &probe(&[&args[..], &["-connect-timeout=500ms"]].concat()),
            2,
            &timeout,
        );
    }
    // Files that cannot be used are bad arguments.
    let missing = file("missing.pem");
    expect(
        &probe(&["-addr", &addr, "-tls", "-tls-ca-cert", &missing]),
        1,
        &format!("failed to initialize tls credentials. error=failed to load root CA certificates from file ({missing}) error=open {missing}: no such file or directory\n"),
    );
    expect(
        &probe(&["-addr", &addr, "-tls", "-tls-ca-cert", &file("server.ext")]),
        1,
        &format!(
            "failed to initialize tls credentials. error=no root CA certs parsed from file {}\n",
            file("server.ext")
        ),
    );
    expect(
        &probe(&["-addr", &addr, "-tls", "-tls-client-cert", &file("client.key"), "-tls-client-key", &file("client.pem")]),
        1,
        "failed to initialize tls credentials. error=failed to load tls client cert/key pair. error=tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched\n",
    );
    let run = probe(&["-v", "-addr", &addr, "-tls", "-tls-ca-cert", &ca]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr.starts_with(&format!(
            "parsed options:\n> addr={addr} conn_timeout=30s rpc_timeout=30s\n> tls=true\n  > no-verify=false \n  > ca-cert={ca}\n  > client-cert=\n  > client-key=\n  > server-name=\n> alts=false\n> spiffe=false\nestablishing connection\n"
        )),
        "{run:?}"
    );
}

#[test]
fn probe_trusts_a_self_signed_server_certificate_given_as_the_ca() {
    if !have_grpcio() || !crate::util::have_tool("openssl", "openssl") {
        return;
    }
    // What `openssl req -x509` makes: a certificate that says it is a CA, used by the server.
    let certs = tempfile::tempdir().expect("temporary directory");
    let output = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
        ])
        .args([
            "-keyout",
            "self.key",
            "-out",
            "self.pem",
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
        ])
        .args(["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
        .current_dir(certs.path())
        .output()
        .expect("run openssl");
    assert!(output.status.success(), "{output:?}");
    let file = |name: &str| certs.path().join(name).display().to_string();
    let server = HealthServer::start(&["--tls", &file("self.pem"), &file("self.key")]);
    let addr = server.addr();
    expect(
        &probe(&["-addr", &addr, "-tls", "-tls-ca-cert", &file("self.pem")]),
        0,
        "status: SERVING\n",
    );
    // It must still name the server.
    expect(
        &probe(&[
            "-addr",
            &addr,
            "-tls",
            "-tls-ca-cert",
            &file("self.pem"),
            "-tls-server-name=other",
            "-connect-timeout=300ms",
        ]),
        2,
        &format!("timeout: failed to connect service \"{addr}\" within 300ms\n"),
    );
}

#[test]
fn probe_authenticates_with_a_client_certificate() {
    if !have_grpcio() || !crate::util::have_tool("openssl", "openssl") {
        return;
    }
    let certs = tempfile::tempdir().expect("temporary directory");
    certificates(certs.path());
    let file = |name: &str| certs.path().join(name).display().to_string();
    let server = HealthServer::start(&[
        "--tls",
        &file("server.pem"),
        &file("server.key"),
        "--client-ca",
        &file("ca.pem"),
    ]);
    let addr = server.addr();
    let ca = file("ca.pem");
    expect(
        &probe(&[
            "-addr",
            &addr,
            "-tls",
            "-tls-ca-cert",
            &ca,
            "-tls-client-cert",
            &file("client.pem"),
            "-tls-client-key",
            &file("client.key"),
        ]),
        0,
        "status: SERVING\n",
    );
    // Without a certificate the server hangs up: no connection.
    expect(
        &probe(&[
            "-addr",
            &addr,
            "-tls",
            "-tls-ca-cert",
            &ca,
            "-connect-timeout=500ms",
        ]),
        2,
        &format!("timeout: failed to connect service \"{addr}\" within 500ms\n"),
    );
}

#[test]
fn probe_reaches_unix_sockets() {
    if !have_grpcio() {
        return;
    }
    let sockets = tempfile::tempdir().expect("temporary directory");
    let socket = sockets.path().join("health.sock").display().to_string();
    let _server = HealthServer::start(&["--also", &format!("unix:{socket}")]);
    expect(
        &probe(&["-addr", &format!("unix://{socket}")]),
        0,
        "status: SERVING\n",
    );
    expect(
        &probe(&["-addr", &format!("unix:{socket}"), "-service=sick"]),
        4,
        "service unhealthy (responded with \"NOT_SERVING\")\n",
    );
    // Linux's abstract namespace: a name no other test run uses.
    let name = format!("opm-probe-test-{}-{}", std::process::id(), closed_port());
    let _server = HealthServer::start(&["--also", &format!("unix-abstract:{name}")]);
    expect(
        &probe(&["-addr", &format!("unix-abstract:{name}")]),
        0,
        "status: SERVING\n",
    );
}

#[test]
fn probe_reports_opm_serve_serving() {
    let server = crate::serve::Server::start(&repo("testdata/serve/custom"), &[]);
    expect(
        // As OLM runs it.
        &probe_as_given(&[&format!("-addr=:{}", server.port)]),
        0,
        "status: SERVING\n",
    );
    expect(
        &probe(&[
            "-addr",
            &format!("localhost:{}", server.port),
            "-service",
            "api.Registry",
        ]),
        0,
        "status: SERVING\n",
    );
}

#[test]
fn opm_under_its_own_name_is_not_the_probe() {
    let output = Command::new(env!("CARGO_BIN_EXE_opm"))
        .arg("-addr=:1")
        .output()
        .expect("run opm");
    assert_eq!(output.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&output.stderr).contains("flag provided but not defined"));
}
