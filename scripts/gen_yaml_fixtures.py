#!/usr/bin/env python3
"""Builds round-trip fixtures for the YAML writer from recorded upstream opm output.

For every conformance case whose command asks for YAML output (`-o yaml`, `--output yaml`,
`--output=yaml`), the recorded stdout is split into documents. Each document is parsed with
PyYAML's YAML 1.1 composer and converted to JSON by hand, so that number texts stay exactly as
printed (12345678901234567890, 0.25, ...). The pair `<area>--<case>--<n>.json` /
`<area>--<case>--<n>.yaml` holds the JSON input and the exact expected bytes of one document
(without the `---` line that the caller prints before it).

Usage: gen_yaml_fixtures.py CASES_DIR OUT_DIR
"""
import json
import os
import re
import sys

import yaml

OUTPUT_YAML = re.compile(r"(^|\s)(-o\s*=?\s*yaml|--output(\s+|=)yaml)(\s|$)")
JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?\Z")


class RawNumber:
    def __init__(self, text):
        self.text = text


def convert(node):
    if isinstance(node, yaml.ScalarNode):
        if node.style is None:  # plain scalar
            text = node.value
            if JSON_NUMBER.match(text):
                return RawNumber(text)
            if text == "true":
                return True
            if text == "false":
                return False
            if text == "null":
                return None
        return node.value
    if isinstance(node, yaml.SequenceNode):
        return [convert(item) for item in node.value]
    if isinstance(node, yaml.MappingNode):
        out = {}
        for key_node, value_node in node.value:
            key = convert(key_node)
            if not isinstance(key, str):
                raise ValueError("non-string key %r" % (key,))
            out[key] = convert(value_node)
        return out
    raise ValueError("unexpected node %r" % (node,))


def to_json(value):
    if isinstance(value, RawNumber):
        return value.text
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(to_json(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + to_json(v)
                              for k, v in value.items()) + "}"
    raise ValueError("unexpected value %r" % (value,))


def split_documents(text):
    """Returns (documents, framing) where framing is 'stream' or 'validate'."""
    if text.startswith("---\n"):
        docs = re.split(r"(?m)^---\n", text)[1:]
        if "".join("---\n" + d for d in docs) != text:
            raise ValueError("document split does not reassemble")
        return docs, "stream"
    # `validate -o yaml` prints one document and an extra empty line.
    if not text.endswith("\n\n"):
        raise ValueError("unexpected validate framing")
    return [text[:-1]], "validate"


def main():
    cases_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    for name in os.listdir(out_dir):
        if name.endswith((".json", ".yaml")):
            os.remove(os.path.join(out_dir, name))
    count = 0
    for area in sorted(os.listdir(cases_dir)):
        area_dir = os.path.join(cases_dir, area)
        if not os.path.isdir(area_dir):
            continue
        for case in sorted(os.listdir(area_dir)):
            case_dir = os.path.join(area_dir, case)
            try:
                with open(os.path.join(case_dir, "cmd"), encoding="utf-8") as f:
                    cmd = f.read()
                with open(os.path.join(case_dir, "stdout"), encoding="utf-8") as f:
                    stdout = f.read()
            except FileNotFoundError:
                continue
            if not OUTPUT_YAML.search(cmd) or not stdout:
                continue
            docs, _ = split_documents(stdout)
            for i, doc in enumerate(docs):
                node = yaml.compose(doc, Loader=yaml.SafeLoader)
                value = convert(node)
                stem = "%s--%s--%03d" % (area, case, i)
                with open(os.path.join(out_dir, stem + ".json"), "w", encoding="utf-8") as f:
                    f.write(to_json(value) + "\n")
                with open(os.path.join(out_dir, stem + ".yaml"), "w", encoding="utf-8",
                          newline="") as f:
                    f.write(doc)
                count += 1
    print("wrote %d fixture pairs to %s" % (count, out_dir))


if __name__ == "__main__":
    main()
