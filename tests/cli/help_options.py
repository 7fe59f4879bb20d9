#!/usr/bin/env python3
"""help_options.py - every option a command takes is in its --help.

  help_options.py CLI ROOT

The commands come from the table in src/cli/main.c; the options a command
takes from the getopt tables of its source, src/cli/cmd_<name>.c (the
struct option entries of the table in cmd_<name>(), with the CLI_*_LONGOPTS
macros of src/cli/cli.h expanded, and the short options of its optstring),
and from the tables of its views (a `const cli_view` of the command in
src/cli/, whose `*_opts` table the command's parse takes too).
Each must appear in `tracekit <command> --help`.  The other way round, each
option that a line of the help introduces ("  --name ...", "  -x, --name")
must be one the command accepts: `tracekit <command> --name --help` does not
say "unrecognized option".  And the tables are all there is: an option of
any table in src/cli/ that is not in the command's own is refused by it.
Fails listing every option missing either way.

The last check runs a command per option of another table: under `make
test` (TK_TEST_FULL unset) each foreign option is tried on one command in
four, a different quarter for each command, so that every option is still
tried on some commands; `make test-full` tries each on every command.

Only `tracekit <command> --help` is judged by its exit status; the runs
with an option before --help are judged by their standard error alone
("unrecognized option" there or not), so under AddressSanitizer they run
without LeakSanitizer's scan at exit, whose report could not change their
verdict (about a third of each run's cost there).
"""
import os
import re
import subprocess
import sys


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def macros(cli_h):
    """#define NAME \\ ... entries of struct option in cli.h: name -> [long names]"""
    out = {}
    for m in re.finditer(r"#define (CLI_\w+)\s*\\\n((?:.*\\\n)*.*)", cli_h):
        names = re.findall(r'\{\s*"([a-z][a-z0-9-]*)"\s*,\s*(?:no|required|optional)_argument',
                           m.group(2))
        if names:
            out[m.group(1)] = names
    return out


def entries(body, macro_names, where):
    """The long option names of a struct option table's body."""
    longs = []
    for ent in re.finditer(r'\{\s*"([a-z][a-z0-9-]*)"\s*,|\b(CLI_\w+LONGOPTS)\b', body):
        if ent.group(1):
            longs.append(ent.group(1))
        else:
            if ent.group(2) not in macro_names:
                raise SystemExit("%s: unknown macro %s" % (where, ent.group(2)))
            longs += macro_names[ent.group(2)]
    return longs


def table(src, func, macro_names):
    """The long and short options of the getopt table in function `func`."""
    start = src.find("int %s(int argc" % func)
    if start < 0:
        raise SystemExit("no function %s" % func)
    body = src[start:]
    longs, shorts = [], ""
    m = re.search(r"struct option longopts\[\]\s*=\s*\{(.*?)\n\s*\};", body, re.S)
    if m:
        longs = entries(m.group(1), macro_names, func)
    g = re.search(r'(?:cli_getopt|getopt_long)\(argc, argv, "([^"]*)"', body)
    if g:
        shorts = g.group(1).replace(":", "").lstrip("-+")
    return longs, shorts


def views(root, macro_names):
    """The options a command takes for its views (cli.h: a format's command
    serving a generic one): command -> [long names of the views' tables]."""
    import glob
    out = {}
    for path in glob.glob(root + "/src/cli/*.c"):
        src = read(path)
        for m in re.finditer(r'const cli_view \w+ = \{\s*"([a-z-]+)"(.*?)\};', src, re.S):
            ids = re.findall(r'\b(\w+_opts)\b', m.group(2))
            for name in ids:
                t = re.search(r"struct option %s\[\]\s*=\s*\{(.*?)\n\s*\};" % name, src, re.S)
                if not t:
                    raise SystemExit("%s: no table %s" % (path, name))
                out.setdefault(m.group(1), []).extend(entries(t.group(1), macro_names, name))
    return out


PROBE_ENV = dict(os.environ)
PROBE_ENV["ASAN_OPTIONS"] = (PROBE_ENV.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")


def probe(cli, name, opt):
    """standard error of `tracekit NAME --OPT --help` (its exit status
    is not looked at: no leak scan, which could only change that)"""
    return subprocess.run([cli, name, "--" + opt, "--help"], capture_output=True,
                          text=True, env=PROBE_ENV).stderr


def main():
    cli, root = sys.argv[1], sys.argv[2]
    main_c = read(root + "/src/cli/main.c")
    cli_h = read(root + "/src/cli/cli.h")
    commands = re.findall(r'\{\s*"([a-z-]+)"\s*,\s*(cmd_\w+)\s*,', main_c)
    if len(commands) < 9:
        raise SystemExit("found only %d commands in main.c" % len(commands))
    mac = macros(cli_h)
    if "CLI_READ_LONGOPTS" not in mac:
        raise SystemExit("CLI_READ_LONGOPTS not found in cli.h")
    # every long option of every table in src/cli
    import glob
    every = set()
    for m in mac.values():
        every.update(m)
    for path in glob.glob(root + "/src/cli/*.c"):
        every.update(re.findall(r'\{\s*"([a-z][a-z0-9-]*)"\s*,\s*(?:no|required|optional)_argument',
                                read(path)))
    full = os.environ.get("TK_TEST_FULL") == "1"
    problems, checked = [], 0
    view_opts = views(root, mac)
    if not view_opts.get("cat") or not view_opts.get("convert"):
        raise SystemExit("found no views of cat and convert in src/cli")
    for ci, (name, func) in enumerate(commands):
        src = read("%s/src/cli/%s.c" % (root, func))
        longs, shorts = table(src, func, mac)
        longs = longs + [o for o in view_opts.get(name, []) if o not in longs]
        if "help" not in longs:
            problems.append("%s: no --help in its getopt table" % name)
        h = subprocess.run([cli, name, "--help"], capture_output=True, text=True)
        if h.returncode != 0:
            problems.append("%s --help: exit %d" % (name, h.returncode))
            continue
        text = h.stdout
        # the table's options are in the help
        for opt in longs:
            checked += 1
            if not re.search(r"(?<![\w-])--%s(?![\w-])" % re.escape(opt), text):
                problems.append("%s: --%s is in the getopt table, not in --help" % (name, opt))
        for ch in shorts:
            checked += 1
            if not re.search(r"(?<![\w-])-%s(?![\w-])" % re.escape(ch), text):
                problems.append("%s: -%s is in the getopt table, not in --help" % (name, ch))
        # the options the help introduces are accepted
        listed = set()
        for line in text.splitlines():
            m = re.match(r"\s{2,}(?:-\w, )?((?:--[a-z][a-z0-9-]*/?)+)", line)
            if m:
                listed.update(re.findall(r"--([a-z][a-z0-9-]*)", m.group(1)))
        for opt in sorted(listed):
            checked += 1
            if opt not in longs:
                problems.append("%s: --help lists --%s, the getopt table has no such option" % (name, opt))
            if "unrecognized option" in probe(cli, name, opt):
                problems.append("%s: --help lists --%s, the command refuses it" % (name, opt))
        # an option of another table is refused (abbreviations aside)
        for oi, opt in enumerate(sorted(every)):
            if opt in longs or any(o.startswith(opt) for o in longs):
                continue
            if not full and (oi + ci) % 4:
                continue
            checked += 1
            if "unrecognized option" not in probe(cli, name, opt):
                problems.append("%s: takes --%s, which is not in its getopt table" % (name, opt))
    for p in problems:
        print("FAIL: " + p)
    if problems:
        sys.exit(1)
    print("help options: %d commands, %d checks, all options in their --help" %
          (len(commands), checked))


main()
