#!/usr/bin/env python3
"""make check-portability: what would not build or run on Apple platforms, found without a Mac.

Over every Swift file of Sources/, Simulator/ and Tests/, it fails on
- a platform module (`Glibc`, `Musl`, `Darwin`, `WinSDK`, `ucrt`, `Android`, `Bionic`, and `FoundationEssentials`,
  which Apple's SDKs do not have) imported outside an `#if canImport(...)` of that module or an `#if os(...)`;
- an `#if canImport(Glibc)` with no `canImport(Darwin)` branch (every use of Glibc has its Darwin counterpart);
- a Linux-only path (`/proc/`, `/sys/`, `/dev/shm`, `/run/`) in code outside an `#if os(Linux)`;
- in the modules of the library products (PrivateCloud, DeviceStore, PrivateSync, PrivateSyncTesting and the modules
  they depend on), a call iOS does not have (`posix_spawn`, `fork`, `vfork`, `exec*`, `waitpid`, `system`) outside an
  `#if os(macOS) || os(Linux)` (or `os(Linux)`, `os(macOS)`).
Comments are not code: a path named in a comment is fine.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# FoundationEssentials is swift-foundation's module on Linux; Apple's SDKs have Foundation only.
PLATFORM_MODULES = {"Glibc", "Musl", "Darwin", "WinSDK", "ucrt", "Android", "Bionic", "FoundationEssentials"}
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
                    r"(?:(?:struct|class|enum|protocol|typealias|func|let|var)\s+)?(\w+)")
LINUX_PATH = re.compile(r'"[^"]*(/proc/|/proc"|/sys/|/dev/shm|/run/)')
NOT_ON_IOS = re.compile(r"\b(posix_spawnp?|posix_spawn_file_actions_\w+|posix_spawnattr_\w+|fork|vfork|"
                        r"execv|execve|execvp|execl|execlp|waitpid|system)\s*\(")
LIBRARY_MODULES = ["PrivateCloud", "DeviceStore", "PrivateSync", "PrivateSyncTesting", "SimulatedWorld",
                   "PrivateSyncSQLite", "PrivateSyncFileSystem"]


def code(line):
    """The line without its comment (a `//` outside a string literal)."""
    inside = False
    for index, char in enumerate(line):
        if char == '"':
            inside = not inside
        elif not inside and line.startswith("//", index):
            return line[:index]
    return line


def check(path, library):
    problems = []
    stack = []  # one entry per open #if: the condition of the branch we are in, "!" + conditions for #else
    branches = []  # one entry per open #if: every condition of its branches so far, and where it began
    for number, raw in enumerate(open(path, encoding="utf-8"), 1):
        line = code(raw)
        stripped = line.strip()
        where = f"{os.path.relpath(path, ROOT)}:{number}"
        if stripped.startswith("#if "):
            stack.append([stripped[4:].strip()])
            branches.append(([stripped[4:].strip()], where))
            continue
        if stripped.startswith("#elseif "):
            stack[-1] = ["!" + condition for condition in stack[-1] if not condition.startswith("!")] + [
                stripped[8:].strip()]
            branches[-1][0].append(stripped[8:].strip())
            continue
        if stripped == "#else":
            stack[-1] = ["!" + condition for condition in stack[-1] if not condition.startswith("!")]
            continue
        if stripped == "#endif":
            stack.pop()
            conditions, began = branches.pop()
            if any("canImport(Glibc)" in c for c in conditions) and not any("canImport(Darwin)" in c for c in conditions):
                problems.append(f"{began}: `#if canImport(Glibc)` with no `#elseif canImport(Darwin)` branch")
            continue
        active = [condition for branch in stack for condition in branch if not condition.startswith("!")]
        match = IMPORT.match(line)
        if match and match.group(1) in PLATFORM_MODULES:
            module = match.group(1)
            if not any(f"canImport({module})" in condition or "os(" in condition for condition in active):
                problems.append(f"{where}: `import {module}` outside `#if canImport({module})`")
        if LINUX_PATH.search(line) and not any("os(Linux)" in condition for condition in active):
            problems.append(f"{where}: a Linux-only path outside `#if os(Linux)`: {stripped}")
        if library and NOT_ON_IOS.search(line):
            guarded = any(("os(Linux)" in condition or "os(macOS)" in condition) and "os(iOS)" not in condition
                          for condition in active)
            if not guarded:
                problems.append(f"{where}: iOS has no `{NOT_ON_IOS.search(line).group(1)}`, and this module is part "
                                f"of a library product: put it inside `#if os(macOS) || os(Linux)`")
    return problems


def main():
    problems = []
    for top in ["Sources", "Simulator", "Tests"]:
        for directory, _, files in sorted(os.walk(os.path.join(ROOT, top))):
            relative = os.path.relpath(directory, ROOT).split(os.sep)
            library = top == "Sources" and len(relative) > 1 and relative[1] in LIBRARY_MODULES
            for name in sorted(files):
                if name.endswith(".swift"):
                    problems += check(os.path.join(directory, name), library)
    for problem in problems:
        print("check-portability: " + problem)
    if problems:
        print("check-portability: see README, Apple platforms")
        return 1
    print("check-portability: platform imports guarded, Linux-only paths inside #if os(Linux), "
          "no process spawning in the library products outside #if os(macOS) || os(Linux)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
