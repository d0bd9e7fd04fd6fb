#!/usr/bin/python3
"""A gRPC health server for the grpc_health_probe tests: Python's grpcio (a server we did not
write), with stubs that grpc_tools compiles from the health proto into WORK_DIR.

Usage: probe_server.py WORK_DIR [--tls CERT KEY] [--client-ca CA] [--no-health] [--also ADDRESS]

Listens on 127.0.0.1 at a free port (and, in plaintext, on a grpcio ADDRESS such as
`unix:PATH` or `unix-abstract:NAME`) and prints `PORT N` as its first line. The services it
knows (grpcio's own health servicer keeps the same table and answers NOT_FOUND for others):
"" SERVING, "sick" NOT_SERVING, "unknown-status" SERVICE_UNKNOWN, "slow" SERVING after 30 s.
With --no-health the Health service is not registered (every call is UNIMPLEMENTED). Each
call appends its service name, metadata and the time its deadline leaves (None without
one), as one JSON object per line, to
WORK_DIR/calls.jsonl. Runs until killed."""
import json, os, sys, threading, time
from concurrent import futures

import grpc
from grpc_tools import protoc

work = sys.argv[1]
options = sys.argv[2:]
with open(os.path.join(work, "health.proto"), "w") as f:
    f.write('syntax = "proto3"; package grpc.health.v1;\n'
            'message HealthCheckRequest { string service = 1; }\n'
            'message HealthCheckResponse { enum ServingStatus { UNKNOWN = 0; SERVING = 1; '
            'NOT_SERVING = 2; SERVICE_UNKNOWN = 3; } ServingStatus status = 1; }\n'
            'service Health { rpc Check(HealthCheckRequest) returns (HealthCheckResponse); }\n')
if protoc.main(["protoc", f"-I{work}", f"--python_out={work}", f"--grpc_python_out={work}",
                os.path.join(work, "health.proto")]) != 0:
    sys.exit("protoc failed")
sys.path.insert(0, work)
import health_pb2 as hp, health_pb2_grpc as hpg

Status = hp.HealthCheckResponse
STATUSES = {"": Status.SERVING, "sick": Status.NOT_SERVING,
            "unknown-status": Status.SERVICE_UNKNOWN, "slow": Status.SERVING}
lock = threading.Lock()


class Health(hpg.HealthServicer):
    def Check(self, request, context):
        metadata = [[key, value if isinstance(value, str) else "bytes:" + value.hex()]
                    for key, value in context.invocation_metadata()]
        with lock, open(os.path.join(work, "calls.jsonl"), "a") as f:
            f.write(json.dumps({"service": request.service, "metadata": metadata,
                                "time_remaining": context.time_remaining()}) + "\n")
        if request.service == "slow":
            time.sleep(30)
        status = STATUSES.get(request.service)
        if status is None:
            context.set_code(grpc.StatusCode.NOT_FOUND)
            return Status()
        return Status(status=status)


def option(name, count=1):
    if name not in options:
        return None
    at = options.index(name)
    return options[at + 1:at + 1 + count]


def read(path):
    with open(path, "rb") as f:
        return f.read()


server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
if "--no-health" not in options:
    hpg.add_HealthServicer_to_server(Health(), server)
tls, client_ca = option("--tls", 2), option("--client-ca")
if tls:
    credentials = grpc.ssl_server_credentials(
        [(read(tls[1]), read(tls[0]))],
        root_certificates=read(client_ca[0]) if client_ca else None,
        require_client_auth=bool(client_ca))
    port = server.add_secure_port("127.0.0.1:0", credentials)
else:
    port = server.add_insecure_port("127.0.0.1:0")
also = option("--also")
if also and not server.add_insecure_port(also[0]):
    sys.exit(f"cannot listen on {also[0]}")
server.start()
print(f"PORT {port}", flush=True)
server.wait_for_termination()
