#!/usr/bin/env python3
"""Generate doc/tools/smrstore-tool-reference.md from smrstore-tool's own help.

    gen_tool_reference.py TOOL            write the reference (only if it changed)
    gen_tool_reference.py --check TOOL    regenerate in memory; exit 1 with a diff when
                                          the committed file differs from the tool's help

TOOL is the built binary (build/src/tools/smrstore-tool). The commands are the ones
`TOOL --help` lists; each one's section is parsed from `TOOL COMMAND --help`, whose shape
src/tools/cli/cli.cc (Cli::PrintCommandHelp) fixes: a usage line, the summary, an optional
description, "Options:" with one `  --name [VALUE]  help` line per option, the exit-status
line. Anything else is an error (exit 2), so a help text the parser does not understand
cannot silently drop out of the reference. Exit status: 0 ok (written, or --check found no
difference), 1 --check found a difference, 2 the tool could not be run or its help parsed.
"""

from __future__ import annotations

import argparse
import difflib
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
DEFAULT_OUTPUT = HERE / "smrstore-tool-reference.md"
PROGRAM = "smrstore-tool"
EXIT_LINE = "Exit status: 0 ok, 1 the operation failed, 2 usage error."

# "  --name VALUE   help" or "  --name   help"; cli.cc pads the head to 26 columns, at
# least two spaces, and a value name is one token.
OPTION_RE = re.compile(r"^  --([A-Za-z0-9][A-Za-z0-9-]*)(?: (\S+))?  +(\S.*)$")
COMMAND_RE = re.compile(r"^  (\S+)\s+(\S.*)$")


class HelpError(Exception):
    """The tool could not be run, or its help is not in the shape cli.cc prints."""


@dataclass
class Option:
    name: str
    value: Optional[str]
    help: str


@dataclass
class Command:
    name: str
    usage: str
    summary: str
    description: List[str] = field(default_factory=list)
    options: List[Option] = field(default_factory=list)
    exit_line: str = EXIT_LINE


def run_help(tool: str, args: Sequence[str]) -> str:
    cmd = [tool, *args, "--help"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    except OSError as e:
        raise HelpError(f"cannot run {tool}: {e}") from e
    except subprocess.TimeoutExpired as e:
        raise HelpError(f"{' '.join(cmd)} did not finish in 60 s") from e
    if proc.returncode != 0:
        raise HelpError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.strip()}")
    if proc.stderr:
        raise HelpError(f"{' '.join(cmd)} wrote to stderr: {proc.stderr.strip()}")
    return proc.stdout


def parse_overview(text: str) -> List[Tuple[str, str]]:
    lines = text.splitlines()
    try:
        start = lines.index("Commands:") + 1
    except ValueError as e:
        raise HelpError("`--help` has no 'Commands:' line") from e
    commands: List[Tuple[str, str]] = []
    for line in lines[start:]:
        if not line:
            break
        m = COMMAND_RE.match(line)
        if not m:
            raise HelpError(f"`--help`: cannot parse command line {line!r}")
        commands.append((m.group(1), m.group(2)))
    if not commands:
        raise HelpError("`--help` lists no commands")
    return commands


def overview_notes(text: str) -> List[str]:
    """The lines of `--help` after the command list (how to get help, specs, exit status)."""
    lines = text.splitlines()
    start = lines.index("Commands:") + 1
    end = lines.index("", start) if "" in lines[start:] else len(lines)
    return [line for line in lines[end:] if line]


def parse_command(name: str, summary: str, text: str) -> Command:
    lines = text.splitlines()
    where = f"`{name} --help`"
    prefix = f"usage: {PROGRAM} {name}"
    if not lines or not lines[0].startswith(prefix):
        raise HelpError(f"{where}: first line is not {prefix!r}: {lines[:1]}")
    usage = lines[0][len("usage: "):]
    if len(lines) < 3 or lines[1] != "" or lines[2] != summary:
        raise HelpError(f"{where}: the summary line differs from `--help`'s {summary!r}")
    cmd = Command(name=name, usage=usage, summary=summary)
    i = 3
    if i < len(lines) and lines[i] == "" and i + 1 < len(lines) and lines[i + 1] != "Options:":
        i += 1
        while i < len(lines) and lines[i] != "":
            cmd.description.append(lines[i])
            i += 1
    if lines[i:i + 2] != ["", "Options:"]:
        raise HelpError(f"{where}: no 'Options:' section after the description (line {i + 1})")
    i += 2
    while i < len(lines) and lines[i] != "":
        m = OPTION_RE.match(lines[i])
        if not m:
            raise HelpError(f"{where}: cannot parse option line {lines[i]!r}")
        cmd.options.append(Option(m.group(1), m.group(2), m.group(3)))
        i += 1
    rest = [line for line in lines[i:] if line]
    if len(rest) != 1 or not rest[0].startswith("Exit status:"):
        raise HelpError(f"{where}: expected one 'Exit status:' line at the end, got {rest}")
    cmd.exit_line = rest[0]
    if not any(o.name == "help" for o in cmd.options):
        raise HelpError(f"{where}: no --help option listed")
    return cmd


def cell(text: str) -> str:
    """Text made safe for a GitHub-flavoured Markdown table cell."""
    out = text.replace("\\", "\\\\")
    for ch in "|*<>_`[]":
        out = out.replace(ch, "\\" + ch)
    return out


def code_cell(text: str) -> str:
    # Inside a code span only the table's pipe needs escaping (GFM).
    return "`" + text.replace("|", "\\|") + "`"


def render(overview: str, commands: List[Command]) -> str:
    out: List[str] = []
    add = out.append
    add(f"# {PROGRAM} reference")
    add("")
    add("<!-- Generated by doc/tools/gen_tool_reference.py from the tool's own --help; do not")
    add("     edit: change the help text in src/tools/ and regenerate. -->")
    add("")
    add(f"Generated from `{PROGRAM} --help` and every `{PROGRAM} COMMAND --help` by")
    add("[gen_tool_reference.py](gen_tool_reference.py); `doc/tools/check_reference.sh TOOL`")
    add("fails when this file and the built tool differ, so it cannot drift from the binary.")
    add("The guide — device spec strings, JSON output formats, examples, the hybrid, bench and")
    add(f"what-if models — is [smrstore-tool.md](smrstore-tool.md).")
    add("")
    add(f"Every command: `{EXIT_LINE}` Errors are one line on stderr,")
    add(f"`{PROGRAM} CMD: <Code>: <reason>`. Sizes take K, M, G, T (binary) suffixes.")
    add("")
    add("## Commands")
    add("")
    add("| command | what it does |")
    add("|---|---|")
    for c in commands:
        add(f"| [`{c.name}`](#{c.name}) | {cell(c.summary)} |")
    notes = overview_notes(overview)
    if notes:
        add("")
        add(f"`{PROGRAM} --help` ends with:")
        add("")
        add("```text")
        out.extend(notes)
        add("```")
    for c in commands:
        add("")
        add(f"## `{c.name}`")
        add("")
        add(f"{cell(c.summary)}.")
        add("")
        add("```text")
        add(c.usage)
        add("```")
        if c.description:
            add("")
            add("```text")
            out.extend(c.description)
            add("```")
        add("")
        add("| option | meaning |")
        add("|---|---|")
        for o in c.options:
            head = f"--{o.name}" + (f" {o.value}" if o.value else "")
            add(f"| {code_cell(head)} | {cell(o.help)} |")
        if c.exit_line != EXIT_LINE:
            add("")
            add(cell(c.exit_line))
    add("")
    return "\n".join(out)


def generate(tool: str) -> str:
    overview = run_help(tool, [])
    commands = [parse_command(n, s, run_help(tool, [n])) for n, s in parse_overview(overview)]
    return render(overview, commands)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tool", help="the built smrstore-tool binary")
    ap.add_argument("--check", action="store_true",
                    help="fail with a diff when the committed reference differs")
    ap.add_argument("--output", type=Path, default=DEFAULT_OUTPUT,
                    help=f"the reference file (default {DEFAULT_OUTPUT})")
    args = ap.parse_args(argv)
    try:
        text = generate(args.tool)
    except HelpError as e:
        print(f"gen_tool_reference: {e}", file=sys.stderr)
        return 2
    old = args.output.read_text() if args.output.exists() else ""
    if args.check:
        if old == text:
            print(f"gen_tool_reference: {args.output} matches {args.tool}'s help")
            return 0
        sys.stdout.writelines(difflib.unified_diff(
            old.splitlines(keepends=True), text.splitlines(keepends=True),
            fromfile=f"{args.output} (committed)", tofile=f"{args.tool} --help (now)"))
        print(f"gen_tool_reference: {args.output} differs from {args.tool}'s help: run "
              f"python3 doc/tools/gen_tool_reference.py {args.tool} and commit it",
              file=sys.stderr)
        return 1
    if old != text:
        args.output.write_text(text)
        print(f"gen_tool_reference: wrote {args.output}")
    else:
        print(f"gen_tool_reference: {args.output} unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
