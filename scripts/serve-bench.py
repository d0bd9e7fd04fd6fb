#!/usr/bin/python3
"""Measures `opm serve` the way a catalog pod uses it.

    scripts/serve-bench.py OPM CATALOG [--clients N] [-- SERVE_ARGS...]

Starts `OPM serve CATALOG -p PORT SERVE_ARGS...` on a free port and waits
until the standard gRPC health check answers SERVING. Then N clients (default
1) stream ListBundles at the same time, each on its own channel, and the
answers are compared. Then N more ListBundles streams are started, each
reading slowly (as fast as it can once the signal is sent), and once every one of them has received a bundle the server
gets SIGTERM: the time until it exits, its exit code and how each stream
ended (`OK` when it got everything, else the gRPC status code) are recorded.
Prints one JSON object:

    ready_s                  start until the health check answers SERVING
    peak_rss_after_ready_kb  VmHWM (the kernel's high-water mark of resident
                             memory) then
    list_s                   the N concurrent ListBundles
    bundles, identical       bundles each client got; whether all N answers
                             were the same bytes
    peak_rss_kb              VmHWM after those streams
    stop_s, exit_code        SIGTERM until the process ended (null: it did
                             not within 30 s and was killed), its exit code
    streams_at_stop          how the N streams in flight at SIGTERM ended,
                             e.g. {"OK": 3, "UNAVAILABLE": 61}; "HANG" for a
                             client still waiting 5 s after the server ended

Needs Debian's python3-grpcio and python3-grpc-tools.
"""
import collections
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import grpc

HERE = os.path.dirname(os.path.abspath(__file__))
HEALTH_PROTO = (
    'syntax = "proto3"; package grpc.health.v1;\n'
    "message HealthCheckRequest { string service = 1; }\n"
    "message HealthCheckResponse { enum ServingStatus { UNKNOWN = 0; SERVING = 1; "
    "NOT_SERVING = 2; SERVICE_UNKNOWN = 3; } ServingStatus status = 1; }\n"
    "service Health { rpc Check(HealthCheckRequest) returns (HealthCheckResponse); }\n"
)
# Large enough for any bundle a catalog holds.
OPTIONS = [("grpc.max_receive_message_length", 1 << 30)]


def stubs(gen):
    """Generates and imports the Python stubs of registry.proto and health."""
    with open(os.path.join(gen, "health.proto"), "w") as f:
        f.write(HEALTH_PROTO)
    proto = os.path.join(HERE, "..", "proto")
    for d, name in ((proto, "registry.proto"), (gen, "health.proto")):
        subprocess.check_call([sys.executable, "-m", "grpc_tools.protoc", f"-I{d}",
                               f"--python_out={gen}", f"--grpc_python_out={gen}", name])
    sys.path.insert(0, gen)
    import health_pb2
    import health_pb2_grpc
    import registry_pb2
    import registry_pb2_grpc
    return registry_pb2, registry_pb2_grpc, health_pb2, health_pb2_grpc


def rss(pid, field):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_ready(server, port, hp, hpg, start):
    # Plain connects until the port is open (a gRPC channel that failed to
    # connect backs off for seconds), then the health check on a fresh channel.
    while True:
        if server.poll() is not None:
            sys.exit("opm serve exited: " + server.stderr.read().decode()[-2000:])
        if time.monotonic() - start > 300:
            sys.exit("not ready within 300 s")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            time.sleep(0.002)
            continue
        with grpc.insecure_channel(f"127.0.0.1:{port}", options=OPTIONS) as channel:
            try:
                status = hpg.HealthStub(channel).Check(hp.HealthCheckRequest(), timeout=5).status
                if status == hp.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass


def list_concurrently(port, pb, pbg, clients):
    """N clients stream ListBundles at once: (bundles, identical)."""
    digests = [None] * clients
    counts = [0] * clients
    errors = []
    barrier = threading.Barrier(clients)

    def list_bundles(i):
        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}", options=OPTIONS) as ch:
                stub = pbg.RegistryStub(ch)
                barrier.wait()
                h = hashlib.sha256()
                for bundle in stub.ListBundles(pb.ListBundlesRequest(), timeout=600):
                    h.update(bundle.SerializeToString(deterministic=True))
                    counts[i] += 1
                digests[i] = h.hexdigest()
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(repr(e))
            barrier.abort()

    threads = [threading.Thread(target=list_bundles, args=(i,)) for i in range(clients)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if errors:
        sys.exit("ListBundles failed: " + errors[0])
    return counts[0], len(set(digests)) == 1 and len(set(counts)) == 1


def stop_in_flight(server, port, pb, pbg, clients):
    """SIGTERM with N slow ListBundles streams in flight: (stop_s, exit
    code, how the streams ended)."""
    outcomes = [None] * clients
    started = threading.Semaphore(0)
    stopping = threading.Event()

    def stream(i):
        first = True
        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}", options=OPTIONS) as ch:
                for _ in pbg.RegistryStub(ch).ListBundles(pb.ListBundlesRequest(), timeout=120):
                    if first:
                        first = False
                        started.release()
                    # Slow until the signal, so that the stream is still in
                    # flight; then as fast as the client goes.
                    if not stopping.is_set():
                        time.sleep(0.01)
            outcomes[i] = "OK"
        except grpc.RpcError as e:
            outcomes[i] = e.code().name
        finally:
            if first:
                started.release()

    threads = [threading.Thread(target=stream, args=(i,), daemon=True) for i in range(clients)]
    for th in threads:
        th.start()
    deadline = time.monotonic() + 60
    for _ in range(clients):
        started.acquire(timeout=max(0.0, deadline - time.monotonic()))
    t = time.monotonic()
    server.send_signal(signal.SIGTERM)
    stopping.set()
    stop_s = None
    try:
        server.wait(timeout=30)
        stop_s = round(time.monotonic() - t, 3)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
    ended = time.monotonic()
    for th in threads:
        th.join(timeout=max(0.0, ended + 5 - time.monotonic()))
    counts = collections.Counter(outcome or "HANG" for outcome in outcomes)
    return stop_s, server.returncode, dict(sorted(counts.items()))


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        at = args.index("--")
        args, extra = args[:at], args[at + 1:]
    clients = 1
    if "--clients" in args:
        at = args.index("--clients")
        clients = int(args[at + 1])
        del args[at:at + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    opm, catalog = args
    gen = tempfile.mkdtemp(prefix="opm-serve-bench-")
    server = None
    try:
        pb, pbg, hp, hpg = stubs(gen)
        port = free_port()
        start = time.monotonic()
        server = subprocess.Popen(
            [opm, "serve", catalog, "-p", str(port), "-t", os.devnull, *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        result = {}
        wait_ready(server, port, hp, hpg, start)
        result["ready_s"] = round(time.monotonic() - start, 3)
        result["peak_rss_after_ready_kb"] = rss(server.pid, "VmHWM")
        t = time.monotonic()
        result["bundles"], result["identical"] = list_concurrently(port, pb, pbg, clients)
        result["list_s"] = round(time.monotonic() - t, 3)
        result["peak_rss_kb"] = rss(server.pid, "VmHWM")
        stop_s, code, outcomes = stop_in_flight(server, port, pb, pbg, clients)
        result["stop_s"] = stop_s
        result["exit_code"] = code
        result["streams_at_stop"] = outcomes
        print(json.dumps(result))
    finally:
        if server is not None and server.poll() is None:
            server.kill()
            server.wait()
        shutil.rmtree(gen, ignore_errors=True)


if __name__ == "__main__":
    main()
