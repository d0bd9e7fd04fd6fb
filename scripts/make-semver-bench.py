#!/usr/bin/env python3
"""Makes the inputs of the template benchmark from a catalog of real bundles:
a catalog of one package with COUNT versions of a real bundle (its CSV and CRDs
as `olm.bundle.object`s, one `replaces` chain) and a semver template that lists
the same images, so `render-template --reuse-bundles` renders it from the catalog.

usage: make-semver-bench.py SOURCE_CATALOG OUT_DIR [COUNT]
"""
import json
import os
import sys

source, out = sys.argv[1], sys.argv[2]
count = int(sys.argv[3]) if len(sys.argv) > 3 else 300

bundle = None
for package in sorted(os.listdir(source)):
    path = os.path.join(source, package, "catalog.json")
    if not os.path.exists(path):
        continue
    decoder, text, pos = json.JSONDecoder(), open(path).read(), 0
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        blob, pos = decoder.raw_decode(text, pos)
        if blob.get("schema") == "olm.bundle":
            bundle = blob
            break
    if bundle:
        break
if bundle is None:
    sys.exit("no bundle found in " + source)

name = "bench-operator"
versions = [f"{x}.{y}.{z}" for x in range(1, 4) for y in range(10) for z in range(10)][:count]
os.makedirs(os.path.join(out, "catalog", name), exist_ok=True)
with open(os.path.join(out, "catalog", name, "catalog.json"), "w") as f:
    json.dump({"schema": "olm.package", "name": name, "defaultChannel": "stable"}, f, indent=4)
    f.write("\n")
    entries = []
    for i, version in enumerate(versions):
        entry = {"name": f"{name}.v{version}"}
        if i:
            entry["replaces"] = f"{name}.v{versions[i - 1]}"
        entries.append(entry)
    json.dump({"schema": "olm.channel", "name": "stable", "package": name, "entries": entries}, f, indent=4)
    f.write("\n")
    for version in versions:
        blob = json.loads(json.dumps(bundle))
        blob["name"] = f"{name}.v{version}"
        blob["package"] = name
        blob["image"] = f"registry.invalid/{name}-bundle:v{version}"
        for prop in blob["properties"]:
            if prop["type"] == "olm.package":
                prop["value"] = {"packageName": name, "version": version}
        json.dump(blob, f, indent=4)
        f.write("\n")
with open(os.path.join(out, "semver.yaml"), "w") as f:
    f.write("schema: olm.semver\ngenerateMajorChannels: true\ngenerateMinorChannels: true\nstable:\n  bundles:\n")
    for version in versions:
        f.write(f"  - image: registry.invalid/{name}-bundle:v{version}\n")
