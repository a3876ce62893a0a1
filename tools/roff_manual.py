"""The `strata` man page in roff (the man(7) macros), made from the tool's own description of its
commands (`strata --experimental-dump-help`, swift-argument-parser's ToolInfo JSON), so that the
page and `--help` cannot disagree. Used by tools/generate-manual --man.

Sections: NAME and SYNOPSIS from the root command, DESCRIPTION from its discussion, OPTIONS for
the root's own options, COMMANDS with one subsection per command (nested ones by their whole
path: `strata index add`), each with its usage, abstract, discussion and arguments.
"""


def escape(text):
    """Text safe in a roff line: backslashes doubled as `\\e`, a line's leading `.` or `'` guarded."""
    lines = []
    for line in text.replace("\\", "\\e").split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def text_of(value):
    """A discussion as text: a string, or argument-parser's form with a preamble and values."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):       # {"staticText": "..."} or {"enumerated": {"preamble":…, "values":[…]}}
        if "staticText" in value:
            return value["staticText"]
        enumerated = value.get("enumerated", value)
        parts = [enumerated.get("preamble") or ""]
        parts += [f"{v.get('value', '')}: {v.get('description', '')}" for v in enumerated.get("values", [])]
        return "\n".join(p for p in parts if p)
    return str(value)


def paragraphs(text):
    """Roff for help text: blank lines separate paragraphs; indented lines (examples) stay as they are."""
    out = []
    for block in text.strip().split("\n\n"):
        lines = block.split("\n")
        prose = [line for line in lines if not line.startswith(" ")]
        out.append(".PP")
        if len(prose) == len(lines):
            out.append(escape(" ".join(line.strip() for line in lines)))
            continue
        for line in lines:           # a block with examples: prose lines filled, examples kept
            if line.startswith(" "):
                out += [".nf", ".RS 4", escape(line.strip()), ".RE", ".fi"]
            else:
                out.append(escape(line.strip()))
    return out


def option_name(name):
    return ("\\-\\-" if name["kind"] == "long" else "\\-") + escape(name["name"])


def argument_usage(argument):
    """`--format <format>`, `<store>` or `--count`, as --help's usage line shows them."""
    value = f"<{argument.get('valueName', 'value')}>"
    if argument["kind"] == "positional":
        usage = value + (" ..." if argument.get("isRepeating") else "")
    else:
        name = argument.get("preferredName") or argument["names"][0]
        usage = option_name(name) + (" " + value if argument["kind"] == "option" else "")
    return f"[{usage}]" if argument.get("isOptional") else usage


def visible(command):
    return [a for a in command.get("arguments", []) if a.get("shouldDisplay", True)
            and not (a["kind"] != "positional" and a.get("preferredName", {}).get("name") in ("help", "version"))]


def argument_items(command):
    """A .TP item per displayed argument: its names or value name, then its help."""
    out = []
    for argument in visible(command):
        if argument["kind"] == "positional":
            head = f"\\fI<{escape(argument.get('valueName', 'value'))}>\\fR"
        else:
            names = ", ".join(f"\\fB{option_name(n)}\\fR" for n in argument.get("names", []))
            head = names + (f" \\fI<{escape(argument.get('valueName', 'value'))}>\\fR" if argument["kind"] == "option" else "")
        help_text = argument.get("abstract", "")
        if argument.get("defaultValue") not in (None, "") and argument["kind"] == "option":
            help_text += f" (default: {argument['defaultValue']})"
        out += [".TP", head, escape(help_text)]
        discussion = text_of(argument.get("discussion"))
        if discussion:
            out.append(escape(" ".join(line.strip() for line in discussion.split("\n") if line.strip())))
    return out


def commands(node, path=()):
    """(path, command) for every command below the root, depth first, without argument-parser's `help`."""
    for sub in node.get("subcommands", []):
        name = sub["commandName"]
        if name == "help" and not sub.get("subcommands") and not path:
            continue
        yield path + (name,), sub
        yield from commands(sub, path + (name,))


def man_page(tree, version):
    """The whole page for the command tree `tree`; `version` is what `strata --version` prints."""
    name = tree["commandName"]
    out = [f'.TH {name.upper()} 1 "" "{name} {escape(version)}" "User Commands"',
           ".SH NAME", f"{name} \\- {escape(tree.get('abstract', ''))}",
           ".SH SYNOPSIS", f".B {name}", "\\fIcommand\\fR [\\fIarguments\\fR] [\\fIoptions\\fR]",
           ".br", f".B {name}", "\\-\\-version | \\-\\-help | \\-\\-generate\\-completion\\-script bash|zsh|fish",
           ".SH DESCRIPTION"]
    out += paragraphs(text_of(tree.get("discussion")))
    out += [".PP", f"Every command also takes \\fB\\-\\-help\\fR; \\fB{name} help\\fR \\fIcommand\\fR prints the same."]
    options = argument_items(tree)
    if options:
        out += [".SH OPTIONS"] + options
    out.append(".SH COMMANDS")
    for path, command in commands(tree):
        whole = " ".join((name,) + path)
        out += [f'.SS "{escape(whole)}"', escape(command.get("abstract", ""))]
        usage = " ".join(argument_usage(a) for a in visible(command))
        if command.get("subcommands"):
            usage = "\\fIsubcommand\\fR " + usage
        out += [".PP", f"\\fB{escape(whole)}\\fR {usage}".rstrip()]
        if command.get("discussion"):
            out += paragraphs(text_of(command["discussion"]))
        out += argument_items(command)
    out += [".SH SEE ALSO", "The tool's manual with worked examples: docs/strata-tool.md in Strata's repository."]
    return "\n".join(out) + "\n"
