#!/usr/bin/env python3
"""make check-layering: every module imports exactly what README's module table says it may.

Reads the table under "## Modules" in README.md (a row per module: the module in backticks, what it holds, and the
modules it may import, each in backticks, or "—" for none), then every `import` line of every Swift file of each
module (scoped, `@_exported`, `public`, `package` and `@testable` imports included, inside `#if` or not). It fails when a
module imports one that its row does not list, when a row lists one that the module never imports (so the table stays
true), and when a module has Swift sources but no row. `Foundation` in the table stands for the guarded pair
`FoundationEssentials`/`Foundation`, and `libc` for the platform's C library (`Glibc`, `Musl`, `Darwin`).

It also reads each target's `dependencies` in Package.swift and fails when they differ from the package modules
its row lists: an import the table allows must be declared (or it would not build), and a declared dependency the
table does not list would let the compiler accept an import that the table forbids.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALIASES = {"FoundationEssentials": "Foundation", "Glibc": "libc", "Musl": "libc", "Darwin": "libc"}
IMPORT = re.compile(
    r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
    r"(?:(?:struct|class|enum|protocol|typealias|func|let|var)\s+)?(\w+)")


def table():
    """{module: (folder, set of allowed imports)} from README's module table."""
    lines = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read().split("\n")
    start = lines.index("## Modules")
    rows = {}
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        if not line.startswith("| `"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        names = re.findall(r"`([^`]+)`", cells[0])
        module = names[0]
        folder = names[1].rstrip("/") if len(names) > 1 else os.path.join("Sources", module)
        allowed = set(re.findall(r"`([^`]+)`", cells[-1]))
        if "libc" in cells[-1].replace("`", "").split(", "):
            allowed.add("libc")
        rows[module] = (folder, allowed)
    return rows


def imports(folder):
    """{imported module: first file:line that imports it} over every Swift file under folder."""
    found = {}
    for directory, _, files in sorted(os.walk(os.path.join(ROOT, folder))):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(directory, name)
            for number, line in enumerate(open(path, encoding="utf-8"), 1):
                match = IMPORT.match(line)
                if match:
                    module = ALIASES.get(match.group(1), match.group(1))
                    found.setdefault(module, f"{os.path.relpath(path, ROOT)}:{number}")
    return found


TARGET = re.compile(r'\.(?:target|executableTarget|systemLibrary)\(\s*name:\s*"(\w+)"(.*?)\)(?:,|\s*\])', re.S)


def declared():
    """{target: set of its dependencies} for every non-test target of Package.swift."""
    text = open(os.path.join(ROOT, "Package.swift"), encoding="utf-8").read()
    targets = {}
    for match in TARGET.finditer(text):
        dependencies = re.search(r"dependencies:\s*\[(.*?)\]", match.group(2), re.S)
        targets[match.group(1)] = set(re.findall(r'"(\w+)"', dependencies.group(1))) if dependencies else set()
    return targets


def main():
    rows = table()
    problems = []
    targets = declared()
    for module, (_, allowed) in rows.items():
        if module not in targets:
            problems.append(f"README lists `{module}`, but Package.swift declares no such target")
            continue
        wanted = {name for name in allowed if name in targets}
        for missing in sorted(wanted - targets[module]):
            problems.append(f"Package.swift: `{module}` does not depend on `{missing}`, which README's table lists")
        for extra in sorted(targets[module] - wanted):
            problems.append(f"Package.swift: `{module}` depends on `{extra}`, which README's table does not list")
    for module, (folder, allowed) in rows.items():
        if not os.path.isdir(os.path.join(ROOT, folder)):
            problems.append(f"README lists `{module}`, but {folder}/ does not exist")
            continue
        used = imports(folder)
        for imported, where in sorted(used.items()):
            if imported not in allowed:
                problems.append(f"{where}: `{module}` imports `{imported}`, which README's table does not allow it")
        for listed in sorted(allowed - set(used)):
            problems.append(f"README's table lets `{module}` import `{listed}`, which it never imports: remove it")
    known = {folder for folder, _ in rows.values()}
    for folder in ["Simulator"] + [os.path.join("Sources", name) for name in os.listdir(os.path.join(ROOT, "Sources"))]:
        path = os.path.join(ROOT, folder)
        has_swift = any(name.endswith(".swift") for _, _, files in os.walk(path) for name in files)
        if has_swift and folder not in known:
            problems.append(f"{folder}/ holds a module that README's table does not list")
    for problem in problems:
        print("check-layering: " + problem)
    if problems:
        print("check-layering: each module may import only what README's module table lists (see README, Modules)")
        return 1
    print(f"check-layering: the imports of {len(rows)} modules match README's table")
    return 0


if __name__ == "__main__":
    sys.exit(main())
