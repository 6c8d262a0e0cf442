#!/usr/bin/env python3
"""House metrics (issue 35, "Shape"): four numbers over the Swift files under Sources/.

    python3 Tools/house_metrics.py [CHECKOUT]       # default: the repository this script is in
    python3 Tools/house_metrics.py --rev 216c310    # a revision (git archive of Sources/ into a temp dir)
    python3 Tools/house_metrics.py --compare 216c310 [--rev REV | CHECKOUT]   # before -> after

Every count reads code with comments and string literals (interpolations included) blanked out,
line breaks kept, so that braces and words in them do not count.

  long functions  func, init, deinit, subscript and computed-property (accessor) declarations
                  whose body spans more than 60 lines: from the line of the keyword to the line
                  of the brace that closes its body (braces matched on the blanked code). A nested
                  function counts on its own too; a declaration with no body (a protocol's) is skipped.
  @unchecked      occurrences of `@unchecked Sendable`.
  unowned tasks   `Task {`, `Task.detached {`, `Task(...) {` whose handle is dropped. Owned: the
                  expression is assigned or passed on (after `=`, `(`, `,`, `:`, `return`, `??`),
                  is a closure's whole body (after `in`, closed right after: its value), or
                  is followed by `.value`, `.result` or `.cancel()`.
  two-way pairs   in Sources/PaysheetServer: folder A refers to folder B when a file of A uses an
                  identifier that B declares (a type, typealias or func at top level, or a type
                  declared in an extension) and A does not; pairs {A, B} referring both ways.

Per-target counts follow the totals (targets are the folders of Sources/).
"""
import argparse, atexit, os, re, shutil, subprocess, sys, tempfile
from collections import defaultdict

LIMIT = 60
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

def blank(src):
    """`src` with comments and string literals (interpolations too) as spaces, newlines kept."""
    n = len(src)

    def code(i):  # from inside `\(`: index after the `)` that closes it
        depth = 0
        while i < n:
            depth += {"(": 1, ")": -1}.get(src[i], 0)
            if depth < 0:
                return i + 1
            j = skip(i)
            i = j if j > i else i + 1
        return n

    def string(i):  # from the opening `#…"`: index after the literal
        hashes = len(src[i:]) - len(src[i:].lstrip("#"))
        i += hashes
        quote = '"""' if src.startswith('"""', i) else '"'
        i, end, esc = i + len(quote), quote + "#" * hashes, "\\" + "#" * hashes
        while i < n:
            if src.startswith(esc, i):
                i += len(esc)
                i = code(i + 1) if src.startswith("(", i) else i + 1
            elif src.startswith(end, i):
                return i + len(end)
            else:
                i += 1
        return n

    def skip(i):  # a comment or string literal starting at i: index after it, else i
        if src.startswith("//", i):
            j = src.find("\n", i)
            return n if j < 0 else j
        if src.startswith("/*", i):
            depth, j = 0, i
            while j < n and (depth or j == i):
                if src.startswith("/*", j) or src.startswith("*/", j):
                    depth, j = depth + (1 if src[j] == "/" else -1), j + 2
                else:
                    j += 1
            return j
        if re.match(r'#*"', src[i : i + 8]) and (src[i] == '"' or not (i and (src[i - 1].isalnum() or src[i - 1] == "_"))):
            return string(i)
        return i

    out, i = [], 0
    while i < n:
        j = skip(i)
        out.append(re.sub(r"[^\n]", " ", src[i:j]) if j > i else src[i])
        i = max(j, i + 1)
    return "".join(out)

DECL = re.compile(
    r"(?<![.\w])(?:func\s+(?:\w+|[^\s(<]+)|init[?!]?(?=\s*[(<])|deinit\b|subscript(?=\s*[(<])"
    r"|var\s+\w+\s*:\s*[^={}\n]+(?=\{))"
)
NO_BODY = re.compile(r"\b(?:func|var|let|init|deinit|subscript|case|class|struct|enum|actor|protocol|typealias)\b")

def closing(code, i):
    """Index of the `}` matching the `{` at i."""
    depth = 0
    for j in range(i, len(code)):
        depth += {"{": 1, "}": -1}.get(code[j], 0)
        if depth == 0:
            return j
    return len(code) - 1

def long_functions(code):
    found = []
    for m in DECL.finditer(code):
        j, depth = m.end(), 0
        while j < len(code):  # the body's `{`: the first outside the signature's () and [] …
            depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(code[j], 0)
            if depth == 0 and (code[j] in "{};" or (NO_BODY.match(code, j) and not code[j - 1].isalnum())):
                break  # … unless a `}`, `;` or another declaration comes first (no body)
            j += 1
        if j >= len(code) or code[j] != "{":
            continue
        first, last = code.count("\n", 0, m.start()) + 1, code.count("\n", 0, closing(code, j)) + 1
        if last - first + 1 > LIMIT:
            found.append((first, last - first + 1, m.group(0).split("(")[0].strip()))
    return found

TASK = re.compile(r"(?<![.\w])Task(?:\.detached)?\s*(?=[({])")

def unowned_tasks(code):
    found = []
    for m in TASK.finditer(code):
        j, depth = m.end(), 0
        while code[j] == "(" or depth:  # Task(priority: …) {
            depth += {"(": 1, ")": -1}.get(code[j], 0)
            j += 1
        j += len(code[j:]) - len(code[j:].lstrip(" \t"))
        if j >= len(code) or code[j] != "{":
            continue
        after = code[closing(code, j) + 1 :].lstrip()
        before = code[: m.start()].rstrip()
        if re.match(r"\.(value|result|cancel\(\))", after):
            continue
        if re.search(r"(=|\(|,|:|\?\?|\breturn)$", before) and not before.endswith("=="):
            continue
        if re.search(r"\bin$", before) and after.startswith("}"):
            continue
        found.append(code.count("\n", 0, m.start()) + 1)
    return found

TOP = re.compile(r"\b(?:class|struct|enum|actor|protocol|typealias|func)\s+(\w+)")

def declared(code):
    """Names declared at brace depth 0, and types declared directly inside an extension."""
    names, depth, ext = set(), 0, []
    for m in re.finditer(r"[{}]|\bextension\b|" + TOP.pattern, code):
        tok = m.group(0)
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
            while ext and ext[-1] > depth:
                ext.pop()
        elif tok == "extension":
            if depth == 0:
                ext.append(1)
        elif depth == 0 or (ext and depth == 1 and not tok.startswith(("func", "typealias"))):
            names.add(m.group(1))
    return names

def measure(root):
    per, files, long_list, task_list = defaultdict(lambda: [0, 0, 0]), {}, [], []
    for folder, _, names in sorted(os.walk(os.path.join(root, "Sources"))):
        for name in sorted(n for n in names if n.endswith(".swift")):
            rel = os.path.relpath(os.path.join(folder, name), root)
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                files[rel] = code = blank(f.read())
            counts = per[rel.split(os.sep)[1]]
            long_list += [f"{rel}:{line} {what} ({size} lines)" for line, size, what in long_functions(code)]
            task_list += [f"{rel}:{line}" for line in unowned_tasks(code)]
            counts[0] += len(long_functions(code))
            counts[1] += len(re.findall(r"@unchecked\s+Sendable", code))
            counts[2] += len(unowned_tasks(code))
    # Two-way folder pairs in PaysheetServer.
    server = os.path.join("Sources", "PaysheetServer") + os.sep
    decl, used = defaultdict(set), defaultdict(set)
    for rel, code in files.items():
        parts = rel[len(server) :].split(os.sep) if rel.startswith(server) else []
        if len(parts) > 1:
            decl[parts[0]] |= declared(code)
            used[parts[0]] |= set(WORD.findall(code))
    folders = sorted(decl)
    refers = {(a, b) for a in folders for b in folders if a != b and (used[a] & (decl[b] - decl[a]))}
    pairs = sorted((a, b) for a, b in refers if a < b and (b, a) in refers)
    why = {f"{a}->{b}": sorted(used[a] & (decl[b] - decl[a]))[:6] for a, b in sorted(refers)}
    return {"per": per, "long": long_list, "tasks": task_list, "pairs": pairs, "why": why}

def from_rev(repo, rev):
    """Sources/ of `rev` (git archive) in a temporary folder, removed at exit."""
    tmp = tempfile.mkdtemp(prefix="house-metrics-")
    atexit.register(shutil.rmtree, tmp, True)
    archive = subprocess.run(["git", "-C", repo, "archive", rev, "Sources"], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
    return tmp

def totals(r):
    t = [sum(v[k] for v in r["per"].values()) for k in range(3)]
    return t + [len(r["pairs"])]

LABELS = [f"functions over {LIMIT} lines", "@unchecked Sendable", "unowned tasks", "two-way folder pairs (PaysheetServer)"]

def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("checkout", nargs="?", default=here)
    p.add_argument("--rev", help="measure this revision of the checkout's repository")
    p.add_argument("--compare", metavar="REV", help="print REV's numbers beside these")
    p.add_argument("-v", "--verbose", action="store_true", help="list the functions, tasks and pairs")
    a = p.parse_args()
    after = measure(from_rev(a.checkout, a.rev) if a.rev else a.checkout)
    before = measure(from_rev(a.checkout, a.compare)) if a.compare else None
    name = a.rev or ("working tree" if a.checkout == here else a.checkout)
    if before:
        print(f"{'':40} {a.compare:>10} {name:>12}")
        for label, x, y in zip(LABELS, totals(before), totals(after)):
            print(f"{label:40} {x:>10} {y:>12}")
    else:
        print(f"{name}:")
        for label, x in zip(LABELS, totals(after)):
            print(f"  {label:40} {x:>6}")
    print("\nper target (long functions / @unchecked / unowned tasks):")
    for target in sorted(set(after["per"]) | set(before["per"] if before else [])):
        now = "/".join(str(v) for v in after["per"].get(target, [0, 0, 0]))
        was = "/".join(str(v) for v in before["per"].get(target, [0, 0, 0])) + " -> " if before else ""
        print(f"  {target:24} {was}{now}")
    print("two-way pairs: " + (", ".join(f"{x}<->{y}" for x, y in after["pairs"]) or "none"))
    if a.verbose:
        print("\nlong functions:\n  " + "\n  ".join(after["long"]))
        print("unowned tasks:\n  " + "\n  ".join(after["tasks"]))
        print("folder references (some of the names):")
        for edge, names in after["why"].items():
            print(f"  {edge}: {', '.join(names)}")

if __name__ == "__main__":
    sys.exit(main())
