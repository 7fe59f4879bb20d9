#!/usr/bin/env python3
"""The public headers read as one API (issue 22, point 7).

usage: check_api.py ROOT

For every function declared in ROOT/include/tracekit/*.h:
  - its name is tk_<object>_<verb> (lower case, "tk_" and at least one more
    "_"; tk_version() is the one name without an object);
  - a comment documents it: the declaration follows a comment, directly or
    in a run of declarations with no blank line between (a group such as
    "Number of rows and the i-th row.");
  - when it returns an int, its comment says what: TK_OK, TK_END, a
    negative status, a length, a count, non-zero, ...;
  - an iterator (tk_X_next*) returns int and ends with TK_END;
  - a constructor (tk_X_new, tk_X_open*) returns int and hands its object
    out through a first parameter `tk_X **out`, and takes a tk_error *err
    last (TK_OK or a negative status with err filled);
  - nothing in the public headers is a hash or a test hook (tk_hash*,
    TRACEKIT_ environment variables);
docs/library.md's "Reference" has a row for every function declared
TK_API (a table row starting "| `tk_name` |") and none for a function no
header declares, each finding naming the function, so that whoever adds,
renames or removes one sees the row to write; a row's "returns" names
every status (TK_E_*) the function's comment in its header names (a
status the header promised and the Reference left out: tk_dataset_hash's
TK_E_USAGE, tk_load_event's TK_E_UNSUPPORTED, tk_verify_finish's
TK_E_USAGE), but where it says "any < 0" or "as `tk_other`";
a function whose comment names statuses names every one its definition
(ROOT/src other than the CLI) returns itself: a TK_E_* in its body other
than in a comparison or a case label, TK_E_NOMEM for tk_err_nomem()
(tk_err_null()'s TK_E_USAGE, a NULL argument, is tracekit.h's convention;
the statuses of the functions it calls are not followed: tk_duration_parse's
TK_E_RANGE, tk_tarmac_index_open's TK_E_FORMAT were left out);
each header compiles on its own (C11 -pedantic, and C++17 where c++ is),
is included by tracekit.h and has its one line in docs/library.md ("What
the API gives": "- `name.h`: the object it is about");
the comments of tk_reader_opts.options and tk_writer_opts.options name
every format whose reader or writer takes options (they say the others
take none);
and the library (ROOT/src other than the CLI) reads no TRACEKIT_
environment variable (test hooks and tuning belong to the tests' build and
the API; the system's own, such as TMPDIR, are read).
Exit 0, or 1 with one line per finding.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

# constructors another branch converts (remove once merged)
PENDING = {"tk_tarmac_profile_new"}
# readers being rewritten without their environment hooks (remove once merged)
PENDING_GETENV = ()
# statuses a function's comment names for another function: not its own
OTHERS_STATUS = {
    "tk_load_set_limit": {"TK_E_RANGE"},        # tk_load_event()'s
    "tk_load_length": {"TK_E_UNSUPPORTED"},     # tk_load_event()'s
    "tk_tarmac_index_check": {"TK_E_FORMAT"},   # tk_tarmac_index_seek()'s
    "tk_tarmac_index_damaged": {"TK_E_FORMAT"},
}
STATUS = re.compile(r"\bTK_E_[A-Z]+\b")

DECL = re.compile(r"^([A-Za-z_][\w \*]*?)\b(tk_\w+)\s*\(")
RETURN_WORDS = re.compile(
    r"TK_OK|TK_END|TK_E_|negative|[Rr]eturns?|[Nn]on-zero|\b0\b|length|"
    r"count|number|[Tt]he index|-1|1 and|status")


def declarations(path):
    """(name, return type, whole declaration, comment text or None, line)"""
    lines = open(path).read().split("\n")
    out = []
    comment = None      # the comment in force for the next declaration
    in_comment = False
    cur = []
    depth = 0           # inside a typedef struct/enum body or a macro
    i = 0
    while i < len(lines):
        ln = lines[i]
        s = ln.strip()
        if in_comment:
            cur.append(s)
            if "*/" in s:
                in_comment = False
                comment = " ".join(cur)
            i += 1
            continue
        if s.startswith("/*"):
            if "*/" in s:
                comment = s
            else:
                in_comment = True
                cur = [s]
            i += 1
            continue
        if not s:
            comment = None
            i += 1
            continue
        if s.startswith('extern "C"'):
            i += 1
            continue
        depth = max(0, depth + s.count("{") - s.count("}"))
        if s.startswith("TK_API "):   # the export mark is not the return type
            s = s[len("TK_API "):]
        m = DECL.match(s) if depth == 0 and not s.startswith(("#", "typedef")) else None
        if m and not s.endswith("{"):
            decl = s
            j = i
            while not decl.rstrip().endswith(";") and j + 1 < len(lines):
                j += 1
                decl += " " + lines[j].strip()
            out.append((m.group(2), m.group(1).strip(), decl, comment, i + 1))
            i = j + 1
            continue
        if not s.startswith("#"):
            comment = None if depth == 0 and not s.endswith((",", "{")) else comment
        i += 1
    return out


def reference(root, declared, statuses):
    """findings of docs/library.md's "## Reference" against the headers;
    statuses: name -> the TK_E_* its header comment names"""
    rel = os.path.join("docs", "library.md")
    lines = open(os.path.join(root, rel)).read().split("\n")
    rows = {}
    returns = {}
    start = None
    for k, ln in enumerate(lines, 1):
        if ln.startswith("## "):
            if start is not None:
                break
            if ln.strip() == "## Reference":
                start = k
            continue
        if start is None:
            continue
        m = re.match(r"\|\s*`(tk_\w+)`\s*\|", ln)
        if m:
            if m.group(1) in rows:
                yield f"{rel}:{k}: {m.group(1)}: a second row in the Reference " \
                      f"(the first is line {rows[m.group(1)]})"
            rows.setdefault(m.group(1), k)
            cells = ln.split("|")
            returns.setdefault(m.group(1), cells[2] if len(cells) > 2 else "")
    if start is None:
        yield f"{rel}: no \"## Reference\" section"
        return
    for name, where in sorted(declared.items(), key=lambda x: x[1]):
        if name not in rows:
            yield f"{where}: {name}: no row in {rel}'s Reference " \
                  f"(add \"| `{name}` | returns | NULL | owner, lifetime |\")"
    for name, k in sorted(rows.items(), key=lambda x: x[1]):
        ret = returns.get(name, "")
        if name in statuses and "any < 0" not in ret and not re.search(r"\bas `tk_", ret):
            missing = statuses[name] - OTHERS_STATUS.get(name, set()) - \
                set(STATUS.findall(ret))
            for code in sorted(missing):
                yield f"{rel}:{k}: {name}: its header names {code}, its row's " \
                      f"\"returns\" does not (say when it comes)"
    for name, k in sorted(rows.items(), key=lambda x: x[1]):
        if name not in declared:
            yield f"{rel}:{k}: {name}: in the Reference, but no header " \
                  f"declares it (renamed or removed? drop or rename the row)"


def own_statuses(root, declared, statuses):
    """findings of the definitions (ROOT/src, not the CLI) of the functions
    whose header comment names statuses: each status the body returns
    itself (see the top) is among them"""
    for path in sorted(glob.glob(os.path.join(root, "src", "**", "*.c"), recursive=True)):
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        if rel.startswith("src/cli/"):
            continue
        text = open(path, errors="replace").read()
        for m in re.finditer(r"^int (tk_\w+)\(.*?\n\{\n(.*?)\n\}\n", text, re.M | re.S):
            name = m.group(1)
            if not statuses.get(name):
                continue
            # (comments and strings out, their length kept)
            body = re.sub(r"/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"",
                          lambda q: " " * len(q.group(0)), m.group(2), flags=re.S)
            own = {}
            for q in STATUS.finditer(body):
                if re.search(r"(==|!=|\bcase)\s*$", body[max(0, q.start() - 12):q.start()]):
                    continue
                own.setdefault(q.group(0), q.start())
            q = re.search(r"\btk_err_nomem\s*\(", body)
            if q:
                own.setdefault("TK_E_NOMEM", q.start())
            for code, at in sorted(own.items()):
                if code in statuses[name]:
                    continue
                line = text.count("\n", 0, m.start(2) + at) + 1
                yield f"{rel}:{line}: {name} returns {code}, the statuses its " \
                      f"comment names ({declared[name]}) leave it out"


# how the comments of the options fields name a format
FORMAT_WORDS = {"btf": "BTF", "htf": "HTF", "atf": "ATF", "shark": "S.Ha.R.K.",
                "ftstream": "recorder's stream", "sqlite": "SQLite",
                "parquet": "Parquet", "tarmac": "Tarmac", "perfetto": "Perfetto",
                "vcd": "VCD", "ctf": "CTF"}


def options_named(root, main_h):
    """every format whose reader (writer) takes options (.reader_options,
    .writer_options of its tk_format_ops) is named in the comment of
    tk_reader_opts.options (tk_writer_opts.options), which says the other
    readers (writers) take none (BTF's encoding=, the recorder's stream's
    hz=, Parquet's row-group= were left out)"""
    out = []
    comments = {}
    for struct in ("tk_reader_opts", "tk_writer_opts"):
        body = main_h.split("typedef struct %s {" % struct, 1)[1].split("} %s;" % struct, 1)[0]
        m = re.search(r"/\*\*((?:(?!\*/).)*)\*/\s*const char \*options;", body, re.S)
        comments[struct] = " ".join(m.group(1).split()) if m else ""
    for path in sorted(glob.glob(os.path.join(root, "src", "**", "*.c"), recursive=True)):
        text = open(path, errors="replace").read()
        for m in re.finditer(r"const tk_format_ops \w+ = \{(.*?)\n\};", text, re.S):
            ops = m.group(1)
            name = re.search(r'\.name = "(\w+)"', ops)
            if not name:
                continue
            for field, struct in (("reader_options", "tk_reader_opts"),
                                  ("writer_options", "tk_writer_opts")):
                if not re.search(r"\.%s = 1\b" % field, ops):
                    continue
                word = FORMAT_WORDS.get(name.group(1), name.group(1))
                if word not in comments[struct]:
                    out.append(f"include/tracekit/tracekit.h: {struct}.options does not "
                               f"say the options of {name.group(1)}'s "
                               f"{field.split('_')[0]} ({word}), which takes some "
                               f"({os.path.relpath(path, root)})")
    return out


def main():
    root = sys.argv[1]
    fails = []
    n = 0
    declared = {}       # name -> "include/tracekit/x.h:LINE"
    statuses = {}       # name -> the TK_E_* its comment names
    for path in sorted(glob.glob(os.path.join(root, "include", "tracekit", "*.h"))):
        rel = os.path.relpath(path, root)
        text = open(path).read()
        for name, ret, decl, comment, line in declarations(path):
            n += 1
            declared.setdefault(name, f"{rel}:{line}")
            statuses.setdefault(name, set(STATUS.findall(comment or "")))
            where = f"{rel}:{line}: {name}"
            if name != "tk_version" and not re.fullmatch(r"tk_[a-z0-9]+(_[a-z0-9]+)+", name):
                fails.append(f"{where}: not tk_<object>_<verb>")
            if comment is None:
                fails.append(f"{where}: not documented")
            elif ret == "int" and not RETURN_WORDS.search(comment):
                fails.append(f"{where}: the comment does not say what it returns")
            if re.fullmatch(r"tk_\w+_next(_\w+)?", name) and (
                    ret != "int" or comment is None or "TK_END" not in comment):
                fails.append(f"{where}: an iterator returns int and ends with TK_END")
            if name.startswith("tk_hash"):
                fails.append(f"{where}: a hash is internal")
            ctor = re.fullmatch(r"tk_(\w+?)_(new|open(_\w+)?)", name)
            if ctor and name not in PENDING:
                obj = "tk_" + ctor.group(1)
                params = decl[decl.index("(") + 1:decl.rindex(")")]
                first = params.split(",")[0].strip()
                last = params.split(",")[-1].strip()
                if ret != "int" or not re.fullmatch(re.escape(obj) + r"\s*\*\*\s*out", first):
                    fails.append(f"{where}: a constructor is int {name}({obj} **out, ...)")
                if not re.fullmatch(r"tk_error\s*\*\s*err", last):
                    fails.append(f"{where}: a constructor takes tk_error *err last")
        # every enumerator has its value written (the ABI does not move
        # when one is added in the middle)
        for m in re.finditer(r"\benum\b[^{;]*\{(.*?)\}", text, re.S):
            body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
            for member in body.split(","):
                member = member.strip()
                if member and "=" not in member:
                    line = text.count("\n", 0, m.start()) + 1
                    fails.append(f"{rel}:{line}: enumerator {member} has no explicit value")
        for m in re.finditer(r"TRACEKIT_[A-Z_]+", text):
            if not m.group(0).endswith("_H"):  # include guards
                fails.append(f"{rel}: {m.group(0)}: an environment variable in the API")
    fails += reference(root, declared, statuses)
    fails += own_statuses(root, declared, statuses)
    for path in sorted(glob.glob(os.path.join(root, "src", "**", "*.[ch]"),
                                 recursive=True)):
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        if rel.startswith("src/cli/") or rel.startswith(PENDING_GETENV):
            continue
        for k, ln in enumerate(open(path, errors="replace"), 1):
            if re.search(r"\bgetenv\s*\(\s*\"TRACEKIT_", ln):
                fails.append(f"{rel}:{k}: a TRACEKIT_ variable read by the library")
    # each header on its own, as C11 and (where a compiler is) C++
    for path in sorted(glob.glob(os.path.join(root, "include", "tracekit", "*.h"))):
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        inc = "#include \"tracekit/%s\"\n" % os.path.basename(path)
        for cc, args in (("cc", ["-x", "c", "-std=c11", "-pedantic", "-Wall", "-Wextra"]),
                         ("c++", ["-x", "c++", "-std=c++17", "-Wall", "-Wextra"])):
            if not shutil.which(cc):
                continue
            p = subprocess.run([cc, *args, "-Werror", "-fsyntax-only", "-I",
                                os.path.join(root, "include"), "-"], input=inc.encode(),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if p.returncode:
                msg = [ln for ln in p.stdout.decode(errors="replace").splitlines()
                       if "error" in ln][:1]
                fails.append(f"{rel}: does not compile on its own ({cc}): {msg}")
    # docs/library.md, "What the API gives": one line per public header
    # ("- `name.h`: what object it is about"), no line for a header that is
    # not there, and tracekit.h includes each of the others
    lib = open(os.path.join(root, "docs", "library.md"), errors="replace").read()
    sec = lib.split("## What the API gives", 1)[-1].split("\n## ", 1)[0]
    described = re.findall(r"^- `([a-z0-9_]+\.h)`: \S", sec, re.M)
    headers = sorted(os.path.basename(p) for p in
                     glob.glob(os.path.join(root, "include", "tracekit", "*.h")))
    main_h = open(os.path.join(root, "include", "tracekit", "tracekit.h")).read()
    for h in headers:
        if described.count(h) != 1:
            fails.append(f"docs/library.md: \"What the API gives\" has {described.count(h)} "
                         f"lines for include/tracekit/{h} (one: what object it is about)")
        if h != "tracekit.h" and f'#include "tracekit/{h}"' not in main_h:
            fails.append(f"include/tracekit/tracekit.h does not include tracekit/{h}")
    for h in sorted(set(described) - set(headers)):
        fails.append(f"docs/library.md: \"What the API gives\" describes {h}, no public header")
    fails += options_named(root, main_h)
    for f in fails:
        print("FAIL:", f)
    print(f"{n} functions, {len(fails)} findings")
    return 1 if fails or n < 100 else 0


if __name__ == "__main__":
    sys.exit(main())
