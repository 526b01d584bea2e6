#!/usr/bin/env python3
"""Part of make docs: every public symbol of the given modules has a doc comment.

Reads the symbol graphs in DIR (`swift package dump-symbol-graph` writes them) and lists every public or open
symbol of each module named on the command line that has no doc comment of its own: a summary at least. An
implementation of a protocol requirement documented by that protocol (`description`, `==`, `init(from:)` ...) counts as
documented when the compiler attached the protocol's comment to it, as DocC shows it. A property wrapper's projection
(`$name`) is documented by its property.

Usage: doc-coverage.py DIR MODULE...; prints a count per module and exits 1 when any symbol is undocumented.
"""
import glob
import json
import os
import sys


def main():
    directory, modules = sys.argv[1], sys.argv[2:]
    missing = []
    for module in modules:
        files = [os.path.join(directory, module + ".symbols.json")]
        files += glob.glob(os.path.join(directory, module + "@*.symbols.json"))
        total = 0
        for path in files:
            if not os.path.exists(path):
                if path == files[0]:
                    print(f"doc-coverage: no symbol graph for {module} in {directory}")
                    return 1
                continue
            graph = json.load(open(path, encoding="utf-8"))
            for symbol in graph["symbols"]:
                if symbol.get("accessLevel") not in ("public", "open"):
                    continue
                if symbol["names"]["title"].startswith("$"):
                    continue  # a property wrapper's projection (`$requestedFor`), documented by its property
                total += 1
                lines = (symbol.get("docComment") or {}).get("lines") or []
                if not any(line.get("text", "").strip() for line in lines):
                    location = symbol.get("location", {})
                    where = location.get("uri", "?").replace("file://", "")
                    line = location.get("position", {}).get("line", -1) + 1
                    name = ".".join(symbol.get("pathComponents", [])) or symbol["names"]["title"]
                    missing.append(f"{os.path.relpath(where)}:{line}: {module}.{name} has no doc comment")
        print(f"doc-coverage: {module}: {total} public symbols")
    for line in missing:
        print("doc-coverage: " + line)
    if missing:
        print(f"doc-coverage: {len(missing)} public symbols without a doc comment")
        return 1
    print("doc-coverage: every public symbol is documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
