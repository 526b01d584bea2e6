#!/usr/bin/env python3
"""make check-portability: what would not build or run on Apple platforms, found without a Mac.

Over every Swift file of Sources/, Simulator/ and Tests/, it fails on
- a platform module (`Glibc`, `Musl`, `Darwin`, `WinSDK`, `ucrt`, `Android`, `Bionic`, and `FoundationEssentials`,
  which Apple's SDKs do not have) imported outside an `#if canImport(...)` of that module or an `#if os(...)`;
- an `#if canImport(Glibc)` with no `canImport(Darwin)` branch (every use of Glibc has its Darwin counterpart);
- a Linux-only path (`/proc/`, `/sys/`, `/dev/shm`, `/run/`) in code outside an `#if os(Linux)`;
- in the modules of the library products (PrivateCloud, PrivateCloudFaults, DeviceStore, PrivateSync, PrivateSyncTesting
  and the modules they depend on), a call iOS does not have (`posix_spawn`, `fork`, `vfork`, `exec*`, `waitpid`,
  `system`) outside an `#if os(macOS) || os(Linux)` (or `os(Linux)`, `os(macOS)`);
- a name only Glibc has (GLIBC_ONLY below: `stat`'s `st_mtim`, `st_ctim`, `st_atim`, `dirent`'s `d_off`, `environ`,
  `pipe2`, `O_TMPFILE`, `fdatasync`, `CLOCK_REALTIME_COARSE`, `epoll_*`, Glibc's enum-typed constants such as
  `RUSAGE_SELF.rawValue` ...) in code that macOS or iOS would compile, and a name only Darwin has (DARWIN_ONLY:
  `st_mtimespec`, `F_FULLFSYNC`, `_NSGetEnviron`, `mach_absolute_time`, `kqueue` ...) in code that Linux would
  compile; `sendfile`, whose arguments differ, in code that both would compile. Which code a platform compiles
  comes from the enclosing `#if`/`#elseif`/`#else` conditions, evaluated for Linux (`os(Linux)`,
  `canImport(Glibc)`, `canImport(FoundationEssentials)`), macOS and iOS (`os(macOS)`/`os(iOS)`,
  `canImport(Darwin)`); a condition it cannot decide (`DEBUG`, `swift(>=6)` ...) may be either. So
  `info.st_mtim` is fine inside `#if canImport(Glibc)`, `#if os(Linux)` or the `#else` of `#if canImport(Darwin)`,
  and wrong inside `#if os(macOS) || os(Linux)`.
Comments are not code: a path named in a comment is fine; and a name in a comment or inside a string literal is not
a use (an interpolation `\\(...)` in a string is code).

`--self-test` feeds the checks snippets with known answers instead (make check-portability runs it first), so a rule
that stops flagging what it should fails the build.
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
LIBRARY_MODULES = ["PrivateCloud", "PrivateCloudFaults", "DeviceStore", "DemoSchema", "DeviceSimulation", "PrivateSync",
                   "PrivateSyncTesting", "SimulatedWorld", "PrivateSyncJSON", "PrivateSyncDeterminism",
                   "PrivateSyncSQLite", "PrivateSyncFileSystem"]

# Names Glibc has and Darwin does not, each with Darwin's way. Checked against Darwin's headers (xnu-11417 bsd/sys,
# Libc-1725 include) and this machine's glibc 2.36 headers; a name both have (MAP_ANONYMOUS, MSG_NOSIGNAL,
# SEEK_DATA, getentropy, arc4random since glibc 2.36, d_type, openat) is not here. Each is a regular expression
# matched as a whole identifier.
GLIBC_ONLY = {
    "st_atim": "Darwin's `stat` spells it `st_atimespec`",
    "st_mtim": "Darwin's `stat` spells it `st_mtimespec`",
    "st_ctim": "Darwin's `stat` spells it `st_ctimespec`",
    "d_off": "Darwin's `dirent` has `d_seekoff`",
    "environ": "Darwin's headers do not declare it: `_NSGetEnviron().pointee`",
    "program_invocation_name": "Darwin: `getprogname()`",
    "program_invocation_short_name": "Darwin: `getprogname()`",
    "__errno_location": "Darwin: `__error()`; `errno` is portable",
    "pipe2": "Darwin: `pipe`, then `fcntl(F_SETFD, FD_CLOEXEC)`",
    "dup3": "Darwin: `dup2`, then `fcntl(F_SETFD, FD_CLOEXEC)`",
    "accept4": "Darwin: `accept`, then `fcntl`",
    "SOCK_CLOEXEC": "Darwin: `fcntl(F_SETFD, FD_CLOEXEC)` after `socket`",
    "SOCK_NONBLOCK": "Darwin: `fcntl(F_SETFL, O_NONBLOCK)` after `socket`",
    "memrchr": "Darwin has none",
    "strchrnul": "Darwin has it only from macOS 15.4 and iOS 18.4, later than Package.swift's macOS 15 and iOS 18",
    "O_TMPFILE": "Darwin: `mkstemp`, then `unlink`",
    "O_PATH": "Darwin has none (`O_SEARCH` for a folder)",
    "O_DIRECT": "Darwin: `fcntl(F_NOCACHE)`",
    "O_NOATIME": "Darwin has none",
    "O_LARGEFILE": "Darwin's `off_t` is always 64 bits; it has no such flag",
    "fallocate": "Darwin: `fcntl(F_PREALLOCATE)`",
    "posix_fallocate": "Darwin: `fcntl(F_PREALLOCATE)`",
    "syncfs": "Darwin: `fsync` (or `fcntl(F_FULLFSYNC)`) of each file",
    "fdatasync": "Darwin's <unistd.h> does not declare it: `fsync`, or `fcntl(F_FULLFSYNC)`",
    "statx": "Darwin: `stat`, `getattrlist`",
    "renameat2": "Darwin: `renameatx_np`",
    "copy_file_range": "Darwin: `fcopyfile`, `clonefile`",
    "eventfd": "Darwin: a pipe, or `kqueue`'s `EVFILT_USER`",
    r"epoll_\w+": "Darwin: `kqueue`, `kevent`",
    r"inotify_\w+": "Darwin: `kqueue`'s `EVFILT_VNODE`, FSEvents",
    r"timerfd_\w+": "Darwin: `kqueue`'s `EVFILT_TIMER`",
    "signalfd": "Darwin: `kqueue`'s `EVFILT_SIGNAL`",
    r"sched_[gs]etaffinity": "Darwin has no CPU affinity call",
    "gettid": "Darwin: `pthread_threadid_np`",
    "mremap": "Darwin has none",
    "getrandom": "Darwin: `getentropy`, which Glibc has too",
    "malloc_usable_size": "Darwin: `malloc_size`",
    "CLOCK_REALTIME_COARSE": "Darwin has no coarse clocks: `CLOCK_REALTIME`",
    "CLOCK_MONOTONIC_COARSE": "Darwin has no coarse clocks: `CLOCK_MONOTONIC`",
    "CLOCK_BOOTTIME": "Darwin: `CLOCK_MONOTONIC`, which counts sleep too",
    # Glibc declares these constants as cases of a C enum, which Swift imports as a struct with a raw value (and
    # `getrusage`, `setitimer`, `getrlimit`, `getpriority` take `Int32`); Darwin's are plain `Int32` macros.
    r"(?:RUSAGE|ITIMER|RLIMIT|PRIO|SOCK)_[A-Z0-9_]+\.rawValue": "Darwin's constant is an `Int32`, with no `rawValue`",
    r"__(?:rusage_who|itimer_which|rlimit_resource|priority_which)(?:_t)?|__socket_type":
        "a Glibc type; Darwin's functions take `Int32`",
}

# Names Darwin has and Glibc does not, each with Glibc's way (same sources).
DARWIN_ONLY = {
    "st_atimespec": "Glibc's `stat` spells it `st_atim`",
    "st_mtimespec": "Glibc's `stat` spells it `st_mtim`",
    "st_ctimespec": "Glibc's `stat` spells it `st_ctim`",
    "st_birthtimespec": "Glibc's `stat` has no birth time (`statx`'s `stx_btime`)",
    "d_seekoff": "Glibc's `dirent` has `d_off`",
    "d_namlen": "Glibc's `dirent` has none: `strlen(d_name)`",
    "F_FULLFSYNC": "Glibc: `fsync`",
    "F_BARRIERFSYNC": "Glibc: `fsync`",
    "F_NOCACHE": "Glibc: `O_DIRECT`",
    "F_PREALLOCATE": "Glibc: `fallocate`",
    "SO_NOSIGPIPE": "Glibc: `MSG_NOSIGNAL` at each send (Darwin has it too)",
    "_NSGetExecutablePath": "Linux: `readlink(\"/proc/self/exe\")`",
    "_NSGetEnviron": "Glibc: `environ`",
    "getprogname": "Glibc: `program_invocation_short_name`",
    r"CLOCK_UPTIME_RAW(?:_APPROX)?": "Glibc: `CLOCK_MONOTONIC`",
    "CLOCK_MONOTONIC_RAW_APPROX": "Glibc: `CLOCK_MONOTONIC_COARSE`",
    r"mach_(?:absolute_time|continuous_time|timebase_info)": "Glibc: `clock_gettime(CLOCK_MONOTONIC, ...)`",
    r"renamex?_np|renameatx_np": "Glibc: `renameat2`",
    r"clonefile|fclonefileat|clonefileat|copyfile|fcopyfile": "Glibc: `copy_file_range`, `ioctl(FICLONE)`",
    r"kqueue|kevent(?:64)?": "Linux: `epoll`, `inotify`",
    r"os_unfair_lock\w*": "Glibc: `pthread_mutex_t`; `Mutex` is portable",
    "pthread_threadid_np": "Glibc: `gettid`",
    "malloc_size": "Glibc: `malloc_usable_size`",
}

# Names both have with other arguments: only inside a branch of one platform.
DIFFERENT = {
    "sendfile": "Glibc's is `sendfile(out, in, &offset, count)`, Darwin's `sendfile(file, socket, offset, &length, "
                "headers, flags)`",
}


def rule(names):
    """One regular expression for the names of a table, each matched as a whole identifier, naming the one found."""
    return re.compile(r"(?<![\w$])(" + "|".join(f"(?:{name})" for name in names) + r")(?![\w$])")


def meaning(table, found):
    """The entry of `table` whose name matches `found`."""
    return next(why for name, why in table.items() if re.fullmatch(name, found))


GLIBC_NAME, DARWIN_NAME, DIFFERENT_NAME = rule(GLIBC_ONLY), rule(DARWIN_ONLY), rule(DIFFERENT)


def code(line):
    """The line without its comment (a `//` outside a string literal)."""
    inside = False
    for index, char in enumerate(line):
        if char == '"':
            inside = not inside
        elif not inside and line.startswith("//", index):
            return line[:index]
    return line


def code_only(text):
    """The lines of `text` with every comment and the content of every string literal blanked out.

    Positions and line breaks stay, and so does an interpolation `\\(...)`, which is code. Block comments may nest,
    as Swift's do; raw strings (`#"..."#`) and multi-line strings (`\"\"\"`) end at their own delimiters.
    """
    out = []
    contexts = [("code", 0)]  # ("code", open parentheses) or ("string", pound signs, multi-line)
    index, length = 0, len(text)
    while index < length:
        char = text[index]
        context = contexts[-1]
        if context[0] == "code":
            if text.startswith("//", index):
                end = text.find("\n", index)
                end = length if end < 0 else end
                out.append(" " * (end - index))
                index = end
                continue
            if text.startswith("/*", index):
                depth, start = 0, index
                while index < length:
                    if text.startswith("/*", index):
                        depth, index = depth + 1, index + 2
                    elif text.startswith("*/", index):
                        depth, index = depth - 1, index + 2
                        if depth == 0:
                            break
                    else:
                        index += 1
                out.append("".join(c if c == "\n" else " " for c in text[start:index]))
                continue
            opening = re.compile(r'(#*)("""|")').match(text, index)
            if opening and (char == '"' or opening.group(1)):
                pounds, multiline = len(opening.group(1)), opening.group(2) == '"""'
                contexts.append(("string", pounds, multiline))
                out.append(" " * (opening.end() - index))
                index = opening.end()
                continue
            if len(contexts) > 1 and char == "(":
                contexts[-1] = ("code", context[1] + 1)
            elif len(contexts) > 1 and char == ")":
                if context[1] == 0:  # the end of an interpolation
                    contexts.pop()
                    out.append(" ")
                    index += 1
                    continue
                contexts[-1] = ("code", context[1] - 1)
            out.append(char)
            index += 1
            continue
        _, pounds, multiline = context
        closing = ('"""' if multiline else '"') + "#" * pounds
        escape = "\\" + "#" * pounds
        if text.startswith(closing, index):
            contexts.pop()
            out.append(" " * len(closing))
            index += len(closing)
        elif text.startswith(escape + "(", index):
            contexts.append(("code", 0))
            out.append(" " * (len(escape) + 1))
            index += len(escape) + 1
        elif text.startswith(escape, index):
            skipped = text[index:index + len(escape) + 1]
            out.append("".join(c if c == "\n" else " " for c in skipped))
            index += len(skipped)
        elif char == "\n" and not multiline:  # an unterminated literal: give up on it at the line's end
            contexts.pop()
            out.append(char)
            index += 1
        else:
            out.append("\n" if char == "\n" else " ")
            index += 1
    return "".join(out).split("\n")


# What each platform this package builds for answers to a condition's platform tests; a test not listed is
# undecided (True or False). `canImport(Musl)` and the other platforms' modules are False on all three.
PLATFORMS = {
    "Linux": {"os(Linux)": True, "canImport(Glibc)": True, "canImport(Darwin)": False,
              "canImport(FoundationEssentials)": True},
    "macOS": {"os(macOS)": True, "canImport(Darwin)": True, "canImport(Glibc)": False,
              "canImport(FoundationEssentials)": False},
    "iOS": {"os(iOS)": True, "canImport(Darwin)": True, "canImport(Glibc)": False,
            "canImport(FoundationEssentials)": False},
}
TOKEN = re.compile(r"\s*(\|\||&&|!|\(|\)|[A-Za-z_]\w*(?:\([^()]*\))?)")


def evaluate(condition, platform):
    """`condition` of an `#if` on `platform`: True, False, or None where it depends on something else.

    Three-valued (Kleene) logic, so an undecided test leaves the answer undecided unless the rest settles it.
    """
    known = PLATFORMS[platform]
    tokens, position = [], 0
    condition = condition.strip()
    while position < len(condition):
        match = TOKEN.match(condition, position)
        if not match:
            return None
        tokens.append(match.group(1))
        position = match.end()

    def atom(token):
        token = re.sub(r"\s+", "", token)
        if token in known:
            return known[token]
        if token == "true" or token == "false":
            return token == "true"
        if token.startswith("os("):
            return False  # another operating system: Windows, Android, FreeBSD, tvOS ...
        if token.startswith("canImport(") and token[10:-1] in PLATFORM_MODULES:
            return False
        return None

    def parse_binary(at, operator, operand, absorbing):
        """`operand (operator operand)*`: `absorbing` (True for ||, False for &&) decides the whole whatever the
        rest; otherwise undecided if any side is, else the other value."""
        value, at = operand(at)
        while at < len(tokens) and tokens[at] == operator:
            right, at = operand(at + 1)
            sides = (value, right)
            value = absorbing if absorbing in sides else (None if None in sides else not absorbing)
        return value, at

    def parse_or(at):
        return parse_binary(at, "||", parse_and, True)

    def parse_and(at):
        return parse_binary(at, "&&", parse_not, False)

    def parse_not(at):
        if at < len(tokens) and tokens[at] == "!":
            value, at = parse_not(at + 1)
            return (None if value is None else not value), at
        if at < len(tokens) and tokens[at] == "(":
            value, at = parse_or(at + 1)
            return value, at + 1
        if at < len(tokens):
            return atom(tokens[at]), at + 1
        raise IndexError

    try:
        value, at = parse_or(0)
    except IndexError:
        return None
    return value if at == len(tokens) else None


def compiled_on(frames, platform):
    """Whether a line inside the open `#if`s `frames` may be compiled on `platform`.

    Each frame is the conditions of its earlier branches (false, to be in this one) and of this branch (None for
    an `#else`).
    """
    for earlier, current in frames:
        for condition in earlier:
            if evaluate(condition, platform) is True:
                return False
        if current is not None and evaluate(current, platform) is False:
            return False
    return True


def check(path, library, text=None):
    """The problems of the Swift file at `path` (or of `text`, as if at `path`), one message each."""
    problems = []
    stack = []  # one entry per open #if: the condition of the branch we are in, "!" + conditions for #else
    branches = []  # one entry per open #if: every condition of its branches so far, and where it began
    frames = []  # one entry per open #if: the conditions of its earlier branches, and of this one (None: #else)
    if text is None:
        text = open(path, encoding="utf-8").read()
    raws = text.split("\n")
    for number, (raw, line) in enumerate(zip(raws, code_only(text)), 1):
        stripped = line.strip()
        where = f"{os.path.relpath(path, ROOT)}:{number}"
        if stripped.startswith("#if "):
            stack.append([stripped[4:].strip()])
            branches.append(([stripped[4:].strip()], where))
            frames.append(([], stripped[4:].strip()))
            continue
        if stripped.startswith("#elseif "):
            stack[-1] = ["!" + condition for condition in stack[-1] if not condition.startswith("!")] + [
                stripped[8:].strip()]
            branches[-1][0].append(stripped[8:].strip())
            frames[-1] = (frames[-1][0] + [frames[-1][1]], stripped[8:].strip())
            continue
        if stripped == "#else":
            stack[-1] = ["!" + condition for condition in stack[-1] if not condition.startswith("!")]
            frames[-1] = (frames[-1][0] + [frames[-1][1]], None)
            continue
        if stripped == "#endif":
            stack.pop()
            frames.pop()
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
        if LINUX_PATH.search(code(raw)) and not any("os(Linux)" in condition for condition in active):
            problems.append(f"{where}: a Linux-only path outside `#if os(Linux)`: {stripped}")
        if library and NOT_ON_IOS.search(line):
            guarded = any(("os(Linux)" in condition or "os(macOS)" in condition) and "os(iOS)" not in condition
                          for condition in active)
            if not guarded:
                problems.append(f"{where}: iOS has no `{NOT_ON_IOS.search(line).group(1)}`, and this module is part "
                                f"of a library product: put it inside `#if os(macOS) || os(Linux)`")
        on_darwin = compiled_on(frames, "macOS") or compiled_on(frames, "iOS")
        on_linux = compiled_on(frames, "Linux")
        if on_darwin:
            for found in GLIBC_NAME.findall(line):
                problems.append(f"{where}: `{found}` is Glibc's ({meaning(GLIBC_ONLY, found)}), in code macOS or "
                                f"iOS would compile: put it inside `#if canImport(Glibc)` (or the `#else` of an "
                                f"`#if canImport(Darwin)`)")
        if on_linux:
            for found in DARWIN_NAME.findall(line):
                problems.append(f"{where}: `{found}` is Darwin's ({meaning(DARWIN_ONLY, found)}), in code Linux "
                                f"would compile: put it inside `#if canImport(Darwin)`")
        if on_darwin and on_linux:
            for found in DIFFERENT_NAME.findall(line):
                problems.append(f"{where}: `{found}` differs between Glibc and Darwin ({meaning(DIFFERENT, found)}), "
                                f"in code both would compile: use it inside a branch of one platform")
    return problems


# The self-test: snippets with what the checks must say of them. Each is (what it shows, library module?, Swift
# text, the substrings of the expected problems, one per problem, in order; empty: no problem).
SELF_TESTS = [
    ("a Glibc field outside any guard", False,
     "let time = info.st_mtim\n",
     ["`st_mtim` is Glibc's"]),
    ("a Glibc field inside #if canImport(Glibc), with its Darwin branch", False,
     "#if canImport(Glibc)\n    let time = info.st_mtim\n#elseif canImport(Darwin)\n    let time = info.st_mtimespec\n"
     "#endif\n",
     []),
    ("VerificationMemo's pattern: Darwin's field in #if canImport(Darwin), Glibc's in its #else", False,
     "#if canImport(Darwin)\n    let (m, c) = (info.st_mtimespec, info.st_ctimespec)\n#else\n"
     "    let (m, c) = (info.st_mtim, info.st_ctim)\n#endif\n",
     []),
    ("a Glibc field inside #if os(Linux), and Darwin's in its #else", False,
     "#if os(Linux)\n    let time = info.st_atim\n#else\n    let time = info.st_atimespec\n#endif\n",
     []),
    ("a Darwin field outside a Darwin guard", False,
     "let time = info.st_mtimespec\n",
     ["`st_mtimespec` is Darwin's"]),
    ("a Darwin field in the #else of #if canImport(Darwin), a Glibc field in its #if", False,
     "#if canImport(Darwin)\n    let time = info.st_mtim\n#else\n    let time = info.st_mtimespec\n#endif\n",
     ["`st_mtim` is Glibc's", "`st_mtimespec` is Darwin's"]),
    ("a Glibc field in a branch macOS compiles too", False,
     "#if os(macOS) || os(Linux)\n    fdatasync(fd)\n#endif\n",
     ["`fdatasync` is Glibc's"]),
    ("a Glibc name nested in a Linux branch of a macOS-or-Linux branch", False,
     "#if os(macOS) || os(Linux)\n    #if os(Linux)\n        let flags = O_TMPFILE\n    #endif\n#endif\n",
     []),
    ("an undecided condition decides nothing", False,
     "#if DEBUG\n    let time = info.st_ctim\n#endif\n#if DEBUG && os(Linux)\n    let time = info.st_ctim\n#endif\n",
     ["`st_ctim` is Glibc's"]),
    ("names in comments and string literals are no use; an interpolation is code", False,
     "// info.st_mtim and st_mtimespec\n/// `pipe2` is Linux's\n/* st_mtim\n   /* nested */ st_mtimespec */\n"
     "let a = \"st_mtim \\\" st_mtimespec\"\nlet b = \"\"\"\n    info.st_mtim\n    \"\"\"\n"
     "let c = #\"st_mtim \\(st_mtim)\"#\nlet d = \"at \\(info.st_mtim.tv_sec)\"\n",
     ["`st_mtim` is Glibc's"]),
    ("Glibc's enum-typed constants and their types", False,
     "getrusage(RUSAGE_SELF.rawValue, &usage)\nsetitimer(__itimer_which_t(ITIMER_REAL.rawValue), &timer, nil)\n",
     ["`RUSAGE_SELF.rawValue` is Glibc's", "`__itimer_which_t` is Glibc's", "`ITIMER_REAL.rawValue` is Glibc's"]),
    ("a name with other arguments on each: fine in one platform's branch only", False,
     "sendfile(a, b, &offset, count)\n#if canImport(Glibc)\n    sendfile(a, b, &offset, count)\n"
     "#elseif canImport(Darwin)\n    sendfile(a, b, 0, &length, nil, 0)\n#endif\n",
     ["`sendfile` differs"]),
    ("whole identifiers only", False,
     "let st_mtimeSeconds = 1\nlet myenviron = 2\nlet x = value.st_mtime\n",
     []),
    ("the earlier rules still hold", True,
     "import Glibc\nlet path = \"/proc/self/exe\"  // not /sys/ here\n#if canImport(Glibc)\n    let x = 1\n#endif\n"
     "let pid = fork()\n",
     ["`import Glibc` outside", "a Linux-only path", "with no `#elseif canImport(Darwin)`", "iOS has no `fork`"]),
]


def self_test():
    """Runs the checks over SELF_TESTS; the number of cases that did not get the problems they expect."""
    failures = 0
    for title, library, text, expected in SELF_TESTS:
        got = [problem.split(": ", 1)[1] for problem in check(os.path.join(ROOT, "self-test.swift"), library, text)]
        if len(got) != len(expected) or not all(want in have for want, have in zip(expected, got)):
            failures += 1
            print(f"check-portability --self-test: FAILED: {title}\n  expected {expected}\n  got {got}")
    if failures == 0:
        print(f"check-portability --self-test: {len(SELF_TESTS)} cases, each with the problems it should have")
    return failures


def main():
    if sys.argv[1:] == ["--self-test"]:
        return 1 if self_test() else 0
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
          "no process spawning in the library products outside #if os(macOS) || os(Linux), "
          "Glibc-only and Darwin-only names inside their platform's branches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
