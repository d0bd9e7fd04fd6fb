#!/usr/bin/python3
"""A gRPC client we did not write (Python's grpcio, with stubs that grpc_tools compiles from
our proto/registry.proto) asks `opm serve` every question of api.Registry,
api.ExperimentalRegistry and grpc.health.v1.Health, and checks the answers.

Usage: serve_client.py PROTO_DIR CUSTOM_ADDRESS CORPUS_ADDRESS
CUSTOM_ADDRESS serves testdata/serve/custom; CORPUS_ADDRESS serves a real catalog (every
bundle of every channel is fetched and checked there). Prints `N checks passed`; exits 1 on
the first wrong answer."""
import json, os, subprocess, sys, tempfile

import grpc

proto_dir, custom, corpus = sys.argv[1:4]
gen = tempfile.mkdtemp()
with open(os.path.join(gen, "health.proto"), "w") as f:
    f.write('syntax = "proto3"; package grpc.health.v1;\n'
            'message HealthCheckRequest { string service = 1; }\n'
            'message HealthCheckResponse { enum ServingStatus { UNKNOWN = 0; SERVING = 1; '
            'NOT_SERVING = 2; SERVICE_UNKNOWN = 3; } ServingStatus status = 1; }\n'
            'service Health { rpc Check(HealthCheckRequest) returns (HealthCheckResponse); }\n')
for d, name in ((proto_dir, "registry.proto"), (gen, "health.proto")):
    subprocess.check_call([sys.executable, "-m", "grpc_tools.protoc", f"-I{d}", f"--python_out={gen}",
                           f"--grpc_python_out={gen}", name])
sys.path.insert(0, gen)
import registry_pb2 as pb, registry_pb2_grpc as pbg, health_pb2 as hp, health_pb2_grpc as hpg

checks = 0


def expect(got, want, what):
    global checks
    if got != want:
        sys.exit(f"{what}: got {got!r}, want {want!r}")
    checks += 1


def error(call, what):
    """The status code and message of a call that must fail."""
    try:
        result = call()
        if hasattr(result, "__iter__") and not hasattr(result, "ListFields"):
            list(result)
    except grpc.RpcError as e:
        return e.code(), e.details()
    sys.exit(f"{what}: the call succeeded")


def channel(address):
    return grpc.insecure_channel(address, options=[("grpc.max_receive_message_length", 1 << 30)])


# --- the custom catalog: exact answers -------------------------------------------------------
ch = channel(custom)
s, x = pbg.RegistryStub(ch), pbg.ExperimentalRegistryStub(ch)
health = hpg.HealthStub(ch)
for service in ("", "api.Registry"):
    expect(health.Check(hp.HealthCheckRequest(service=service), timeout=10).status,
           hp.HealthCheckResponse.SERVING, f"health {service!r}")

expect([p.name for p in s.ListPackages(pb.ListPackageRequest(), timeout=30)], ["app", "other"], "ListPackages")
pkg = s.GetPackage(pb.GetPackageRequest(name="app"), timeout=30)
expect([(c.name, c.csvName, c.deprecation.message) for c in pkg.channels],
       [("fast", "app.v2.0.0", "the fast channel is deprecated."), ("stable", "app.v1.1.0", "")], "GetPackage channels")
expect((pkg.defaultChannelName, pkg.deprecation.message), ("stable", "app is deprecated; use other."), "GetPackage")
expect(error(lambda: s.GetPackage(pb.GetPackageRequest(name="nope"), timeout=30), "GetPackage nope"),
       (grpc.StatusCode.UNKNOWN, 'package "nope" not found'), "GetPackage nope")

b = s.GetBundle(pb.GetBundleRequest(pkgName="app", channelName="stable", csvName="app.v1.0.0"), timeout=30)
csv = json.loads(b.csvJson)
expect((csv["kind"], csv["metadata"]["name"], csv["spec"]["replicas"]), ("ClusterServiceVersion", "app.v1.0.0", 15),
       "GetBundle csvJson")
expect([json.loads(o)["kind"] for o in b.object], ["ClusterServiceVersion", "CustomResourceDefinition"], "GetBundle object")
expect([(d.type, json.loads(d.value)) for d in b.dependencies],
       [("olm.gvk", {"group": "example.com", "kind": "Db", "version": "v1"}),
        ("olm.package", {"packageName": "other", "version": ">=0.1.0"})], "GetBundle dependencies")
expect([p.type for p in b.properties],
       ["olm.package", "olm.gvk", "olm.gvk.required", "olm.package.required", "olm.maxOpenShiftVersion"],
       "GetBundle properties")
expect([(g.group, g.version, g.kind) for g in b.providedApis], [("example.com", "v1", "App")], "providedApis")
expect([(g.group, g.version, g.kind) for g in b.requiredApis], [("example.com", "v1", "Db")], "requiredApis")
expect((b.version, b.bundlePath, b.replaces, list(b.skips), b.deprecation.message),
       ("1.0.0", "quay.io/example/app-bundle:v1.0.0", "", [], "app.v1.0.0 is deprecated."), "GetBundle fields")
b = s.GetBundle(pb.GetBundleRequest(pkgName="app", channelName="stable", csvName="app.v1.1.0"), timeout=30)
csv = json.loads(b.csvJson)
expect((csv["spec"]["install"]["strategy"], csv["spec"]["description"], csv["spec"]["relatedImages"][0]["image"],
        csv["spec"]["icon"][0]["mediatype"], list(b.object) == [b.csvJson], b.skipRange),
       ("deployment", "The example app operator.", "quay.io/example/app:v1.1.0", "image/svg+xml", True,
        ">=1.0.0 <1.1.0"), "GetBundle from olm.csv.metadata")
for request, message in [
        (("nope", "stable", "x"), 'package "nope" not found'),
        (("app", "nope", "x"), 'package "app", channel "nope" not found'),
        (("app", "stable", "app.v2.0.0"), 'package "app", channel "stable", bundle "app.v2.0.0" not found')]:
    req = pb.GetBundleRequest(pkgName=request[0], channelName=request[1], csvName=request[2])
    expect(error(lambda: s.GetBundle(req, timeout=30), "GetBundle"), (grpc.StatusCode.UNKNOWN, message),
           f"GetBundle {request}")

head = s.GetBundleForChannel(pb.GetBundleInChannelRequest(pkgName="app", channelName="fast"), timeout=30)
expect((head.csvName, json.loads(head.csvJson)["spec"]["maturity"]), ("app.v2.0.0", "stable"), "GetBundleForChannel")
expect(error(lambda: s.GetBundleForChannel(pb.GetBundleInChannelRequest(pkgName="nope", channelName="x"), timeout=30),
             "GetBundleForChannel nope"), (grpc.StatusCode.UNKNOWN, 'package "nope" not found'), "GetBundleForChannel nope")


def entries(stream):
    return [(e.packageName, e.channelName, e.bundleName, e.replaces) for e in stream]


expect(entries(s.GetChannelEntriesThatReplace(pb.GetAllReplacementsRequest(csvName="app.v1.0.0"), timeout=30)),
       [("app", "fast", "app.v2.0.0", "app.v1.1.0"), ("app", "stable", "app.v1.1.0", "app.v1.0.0")],
       "GetChannelEntriesThatReplace")
expect(error(lambda: s.GetChannelEntriesThatReplace(pb.GetAllReplacementsRequest(csvName="app.v2.0.0"), timeout=30),
             "GetChannelEntriesThatReplace head"),
       (grpc.StatusCode.UNKNOWN, "no channel entries found that replace app.v2.0.0"), "GetChannelEntriesThatReplace head")
r = s.GetBundleThatReplaces(pb.GetReplacementRequest(csvName="app.v1.1.0", pkgName="app", channelName="fast"), timeout=30)
expect((r.csvName, r.replaces), ("app.v2.0.0", ""), "GetBundleThatReplaces")
expect(error(lambda: s.GetBundleThatReplaces(pb.GetReplacementRequest(csvName="x", pkgName="nope", channelName="x"),
                                             timeout=30), "GetBundleThatReplaces nope"),
       (grpc.StatusCode.UNKNOWN, "package nope not found"), "GetBundleThatReplaces nope")

gvk = dict(group="example.com", version="v1", kind="App")
expect(entries(s.GetChannelEntriesThatProvide(pb.GetAllProvidersRequest(**gvk), timeout=30)),
       [("app", "fast", "app.v1.1.0", ""), ("app", "stable", "app.v1.0.0", ""),
        ("app", "stable", "app.v1.1.0", "app.v1.0.0"), ("other", "stable", "other.v0.1.0", "")],
       "GetChannelEntriesThatProvide")
expect(entries(s.GetLatestChannelEntriesThatProvide(pb.GetLatestProvidersRequest(**gvk), timeout=30)),
       [("app", "stable", "app.v1.1.0", "app.v1.0.0"), ("other", "stable", "other.v0.1.0", "")],
       "GetLatestChannelEntriesThatProvide")
d = s.GetDefaultBundleThatProvides(pb.GetDefaultProviderRequest(**gvk), timeout=30)
expect((d.packageName, d.channelName, d.csvName), ("app", "stable", "app.v1.1.0"), "GetDefaultBundleThatProvides")
missing = dict(group="example.com", version="v9", kind="App")
message = 'no channel entries found that provide group:"example.com" version:"v9" kind:"App"'
for name, call in [
        ("GetChannelEntriesThatProvide", lambda: s.GetChannelEntriesThatProvide(pb.GetAllProvidersRequest(**missing), timeout=30)),
        ("GetLatestChannelEntriesThatProvide", lambda: s.GetLatestChannelEntriesThatProvide(pb.GetLatestProvidersRequest(**missing), timeout=30)),
        ("GetDefaultBundleThatProvides", lambda: s.GetDefaultBundleThatProvides(pb.GetDefaultProviderRequest(**missing), timeout=30))]:
    expect(error(call, name), (grpc.StatusCode.UNKNOWN, message), f"{name} missing")

listed = list(s.ListBundles(pb.ListBundlesRequest(), timeout=60))
expect([(b.channelName, b.csvName, len(b.object), bool(b.csvJson)) for b in listed],
       [("fast", "app.v1.1.0", 0, False), ("fast", "app.v2.0.0", 1, True), ("stable", "app.v1.0.0", 0, False),
        ("stable", "app.v1.1.0", 0, False), ("stable", "other.v0.1.0", 0, False)], "ListBundles")

custom_req = pb.ExperimentalListPackageCustomSchemasRequest(schema="example.note", packageName="app")
expect(list(x.ExperimentalListPackageCustomSchemas(custom_req, timeout=30)), [], "experimental without acknowledgement")
ack = [("x-acknowledge-experimental", "true")]
blobs = list(x.ExperimentalListPackageCustomSchemas(custom_req, metadata=ack, timeout=30))
expect([b["name"] for b in blobs], ["first", "second", "third"], "experimental blobs")
expect(blobs[1]["count"], 2.0, "experimental numbers")
expect(error(lambda: x.ExperimentalListPackageCustomSchemas(
    pb.ExperimentalListPackageCustomSchemasRequest(schema=""), metadata=ack, timeout=30), "experimental no schema"),
       (grpc.StatusCode.INVALID_ARGUMENT, "schema is required"), "experimental no schema")

# Requests that are not protobuf, or name nothing sensible, get a status, never a crash.
garbage = ch.unary_unary("/api.Registry/GetPackage")
code, _ = error(lambda: garbage(b"\xff\xff\xff\xff", timeout=30), "garbage request")
expect(code in (grpc.StatusCode.INTERNAL, grpc.StatusCode.INVALID_ARGUMENT), True, f"garbage request: {code}")
unknown = ch.unary_unary("/api.Registry/NoSuchMethod")
expect(error(lambda: unknown(b"", timeout=30), "unknown method")[0], grpc.StatusCode.UNIMPLEMENTED, "unknown method")
# Upstream's message repeats the names; a status travels in a header, so it is cut short.
huge = "x" * (1 << 20)
code, details = error(lambda: s.GetBundle(pb.GetBundleRequest(pkgName=huge, channelName=huge, csvName=huge),
                                          timeout=30), "huge names")
expect((code, details.startswith('package "xxx'), details.endswith("..."), len(details) < 5000),
       (grpc.StatusCode.UNKNOWN, True, True, True), "huge names")
expect(health.Check(hp.HealthCheckRequest(), timeout=10).status, hp.HealthCheckResponse.SERVING, "health afterwards")

# --- a real catalog: every bundle of every channel --------------------------------------------
s = pbg.RegistryStub(channel(corpus))
packages = [p.name for p in s.ListPackages(pb.ListPackageRequest(), timeout=60)]
expect(packages == sorted(packages) and len(packages) > 0, True, "corpus packages sorted")
total = 0
for name in packages:
    pkg = s.GetPackage(pb.GetPackageRequest(name=name), timeout=60)
    expect([c.name for c in pkg.channels], sorted(c.name for c in pkg.channels), f"{name} channels sorted")
    for c in pkg.channels:
        head = s.GetBundleForChannel(pb.GetBundleInChannelRequest(pkgName=name, channelName=c.name), timeout=60)
        expect(head.csvName, c.csvName, f"{name}/{c.name} head")
for b in s.ListBundles(pb.ListBundlesRequest(), timeout=300):
    full = s.GetBundle(pb.GetBundleRequest(pkgName=b.packageName, channelName=b.channelName, csvName=b.csvName),
                       timeout=60)
    csv = json.loads(full.csvJson)
    expect((csv["kind"], csv["metadata"]["name"]), ("ClusterServiceVersion", b.csvName), f"{b.csvName} csvJson")
    expect((full.version, full.bundlePath, len(full.providedApis)), (b.version, b.bundlePath, len(b.providedApis)),
           f"{b.csvName} fields")
    total += 1
expect(total > 0, True, "corpus bundles")

# Replacements and providers, checked against the channel entries ListBundles gave.
listed = list(s.ListBundles(pb.ListBundlesRequest(), timeout=300))
for b in listed:
    for target in [b.replaces, *b.skips]:
        if not target:
            continue
        found = entries(s.GetChannelEntriesThatReplace(pb.GetAllReplacementsRequest(csvName=target), timeout=60))
        expect((b.packageName, b.channelName, b.csvName, b.replaces) in found, True, f"{b.csvName} replaces {target}")
        r = s.GetBundleThatReplaces(pb.GetReplacementRequest(csvName=target, pkgName=b.packageName,
                                                             channelName=b.channelName), timeout=60)
        replacer = next(x for x in listed if (x.packageName, x.channelName, x.csvName) ==
                        (b.packageName, b.channelName, r.csvName))
        expect(target == replacer.replaces or target in replacer.skips, True, f"GetBundleThatReplaces {target}")
apis = sorted({(g.group, g.version, g.kind) for b in listed for g in b.providedApis})
for group, version, kind in apis:
    q = dict(group=group, version=version, kind=kind)
    providers = {(b.packageName, b.channelName, b.csvName) for b in listed
                 if any((g.group, g.version, g.kind) == (group, version, kind) for g in b.providedApis)}
    found = entries(s.GetChannelEntriesThatProvide(pb.GetAllProvidersRequest(**q), timeout=60))
    expect({e[:3] for e in found}, providers, f"providers of {kind}")
    heads = {(p, c.name, c.csvName) for p in packages
             for c in s.GetPackage(pb.GetPackageRequest(name=p), timeout=60).channels}
    latest_request = pb.GetLatestProvidersRequest(**q)
    if providers & heads:
        latest = entries(s.GetLatestChannelEntriesThatProvide(latest_request, timeout=60))
        expect({e[:3] for e in latest}, providers & heads, f"latest providers of {kind}")
    else:
        expect(error(lambda: s.GetLatestChannelEntriesThatProvide(latest_request, timeout=60), kind)[0],
               grpc.StatusCode.UNKNOWN, f"no latest provider of {kind}")
    try:
        d = s.GetDefaultBundleThatProvides(pb.GetDefaultProviderRequest(**q), timeout=60)
        pkg = s.GetPackage(pb.GetPackageRequest(name=d.packageName), timeout=60)
        expect(d.channelName == pkg.defaultChannelName and (d.packageName, d.channelName, d.csvName) in providers,
               True, f"default provider of {kind}")
    except grpc.RpcError as e:
        expect(e.code(), grpc.StatusCode.UNKNOWN, f"default provider of {kind}")
expect(len(apis) > 0, True, "corpus provided APIs")
name = packages[0]
first_channel = s.GetPackage(pb.GetPackageRequest(name=name), timeout=60).channels[0].name
for call, message in [
        (lambda: s.GetPackage(pb.GetPackageRequest(name="no-such-package"), timeout=60),
         'package "no-such-package" not found'),
        (lambda: s.GetBundle(pb.GetBundleRequest(pkgName=name, channelName="no-such-channel", csvName="x"), timeout=60),
         f'package "{name}", channel "no-such-channel" not found'),
        (lambda: s.GetBundle(pb.GetBundleRequest(pkgName=name, channelName=first_channel, csvName="no-such-bundle"), timeout=60),
         f'package "{name}", channel "{first_channel}", bundle "no-such-bundle" not found')]:
    expect(error(call, message), (grpc.StatusCode.UNKNOWN, message), message)
corpus_x = pbg.ExperimentalRegistryStub(grpc.insecure_channel(corpus))
for metadata in ([], ack):
    expect(list(corpus_x.ExperimentalListPackageCustomSchemas(
        pb.ExperimentalListPackageCustomSchemasRequest(schema="olm.bundle", packageName=name), metadata=metadata,
        timeout=60)), [], f"corpus custom schemas {metadata}")
expect(hpg.HealthStub(grpc.insecure_channel(corpus)).Check(hp.HealthCheckRequest(), timeout=10).status,
       hp.HealthCheckResponse.SERVING, "corpus health")
print(f"{checks} checks passed ({total} corpus bundle entries)")
