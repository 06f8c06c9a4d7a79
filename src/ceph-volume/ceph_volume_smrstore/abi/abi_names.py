"""Normalizing C++ names and signatures so two binaries' spellings of one ABI compare equal.

Used on demangled symbol names (c++filt) and on gdb's `ptype` declarations. The rules erase
spelling differences that do not change the ABI on x86_64 Linux with libstdc++:
  - ABI tags:              get_type[abi:cxx11]()                  -> get_type()
  - the libstdc++ inline namespace std::__cxx11::                 -> std::
  - default template arguments (trailing std::allocator<..>, std::char_traits<..>,
    std::less<..>, std::default_delete<..>, std::hash<..>, std::equal_to<..>)
                           std::vector<T, std::allocator<T> >     -> std::vector<T>
  - std::basic_string<char> (and ostream, istream, ...)           -> std::string (ostream, ...)
  - glibc's fixed-width typedefs (gdb prints them, the demangler cannot)
                           uint64_t, size_t                       -> unsigned long
  - const placement and spacing (gdb: `const std::string &`, demangler: `std::string const&`)
                                                                  -> std::string const&
  - an empty parameter list `(void)` (gdb)                        -> ()
  - "non-virtual thunk to " and friends are dropped (the slot still names the method).
Caveat: the old-ABI std::string (mangled `Ss`) also demangles as std::string; both binaries
here use the new ABI, and the layout check would see a wrong string size anyway.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import List, Tuple, Union

# Template arguments dropped when they are trailing (they are the defaults in practice).
DEFAULT_TEMPLATE_ARGS = ("std::allocator<", "std::char_traits<", "std::less<",
                         "std::default_delete<", "std::hash<", "std::equal_to<")

STREAM_NAMES = ("string", "ostream", "istream", "iostream", "stringstream",
                "ostringstream", "istringstream", "string_view")

# x86_64 glibc: fixed; the demangler only ever prints the right-hand side.
INTEGER_TYPEDEFS = {
    "uint64_t": "unsigned long", "int64_t": "long", "size_t": "unsigned long",
    "ssize_t": "long", "uint32_t": "unsigned int", "int32_t": "int",
    "uint16_t": "unsigned short", "int16_t": "short", "uint8_t": "unsigned char",
    "int8_t": "signed char", "uintptr_t": "unsigned long", "intptr_t": "long",
    "off_t": "long", "time_t": "long",
}

THUNK_PREFIXES = ("non-virtual thunk to ", "virtual thunk to ",
                  "covariant return thunk to ")

_OPERATOR_RE = re.compile(r"\boperator\s*(<=>|<<=|>>=|<<|>>|<=|>=|->\*|->|<|>|\(\)|\[\])")
_IDENT = r"[A-Za-z0-9_$]"


# --- protecting operator names from the bracket parser ------------------------------------

def protect_operators(text: str) -> Tuple[str, List[str]]:
    """Replaces `operator<<`, `operator()`... by placeholders that contain no brackets."""
    found: List[str] = []

    def repl(m: "re.Match[str]") -> str:
        found.append("operator" + m.group(1))
        return f"operator\x00{len(found) - 1}\x00"

    return _OPERATOR_RE.sub(repl, text), found


def restore_operators(text: str, found: List[str]) -> str:
    return re.sub("operator\x00([0-9]+)\x00", lambda m: found[int(m.group(1))], text)


# --- a small bracket tree -----------------------------------------------------------------

OPENERS = {"<": ">", "(": ")", "[": "]", "{": "}"}


@dataclass
class Group:
    """A bracketed part of a name: opener, then items (text or nested groups)."""
    opener: str
    items: List[Union[str, "Group"]] = field(default_factory=list)


def parse_brackets(text: str) -> List[Union[str, Group]]:
    """Splits text into plain runs and nested bracket groups (unbalanced closers are text)."""
    root: List[Union[str, Group]] = []
    stack: List[Group] = []
    buf = ""

    def flush() -> None:
        nonlocal buf
        if buf:
            (stack[-1].items if stack else root).append(buf)
            buf = ""

    for ch in text:
        if ch in OPENERS:
            flush()
            stack.append(Group(ch))
        elif stack and ch == OPENERS[stack[-1].opener]:
            flush()
            done = stack.pop()
            (stack[-1].items if stack else root).append(done)
        else:
            buf += ch
    flush()
    while stack:  # unbalanced: flatten what is left back into text
        done = stack.pop()
        (stack[-1].items if stack else root).append(done.opener + render(done.items))
    return root


def render(items: List[Union[str, Group]]) -> str:
    out = []
    for it in items:
        if isinstance(it, Group):
            out.append(it.opener + render(it.items) + OPENERS[it.opener])
        else:
            out.append(it)
    return "".join(out)


def split_top_level_commas(items: List[Union[str, Group]]) -> List[List[Union[str, Group]]]:
    parts: List[List[Union[str, Group]]] = [[]]
    for it in items:
        if isinstance(it, Group):
            parts[-1].append(it)
            continue
        pieces = it.split(",")
        for i, piece in enumerate(pieces):
            if i:
                parts.append([])
            if piece:
                parts[-1].append(piece)
    return parts


# --- normalization --------------------------------------------------------------------------

def squeeze_spaces(text: str) -> str:
    """Canonical spacing: a space only between two identifier characters, `, ` after commas,
    and one space before a trailing-position const/volatile."""
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(rf"(?<!{_IDENT}) | (?!{_IDENT})", "", text)
    text = re.sub(r"(?<=[>*&\])])(const|volatile)\b", r" \1", text)
    return text.replace(",", ", ")


def _east_const(elem: str) -> str:
    """`const T &` -> `T const&` for one type (a template argument or a parameter)."""
    m = re.match(r"^(const|volatile)\s+(.*)$", elem, re.S)
    if not m:
        return elem
    qual, rest = m.group(1), m.group(2)
    tail = re.search(r"(\s*(\*|&&|&|\bconst\b|\bvolatile\b))*\s*$", rest)
    cut = tail.start() if tail else len(rest)
    return f"{rest[:cut].rstrip()} {qual}{rest[cut:]}"


def _map_integer_typedefs(text: str) -> str:
    for short, full in INTEGER_TYPEDEFS.items():
        text = re.sub(rf"(?<![A-Za-z0-9_:])(?:std::)?{short}(?!{_IDENT})", full, text)
    return text


def _normalize_items(items: List[Union[str, Group]]) -> str:
    """Renders items with every nested group normalized."""
    out = []
    for it in items:
        if isinstance(it, str):
            out.append(_map_integer_typedefs(it))
            continue
        closer = OPENERS[it.opener]
        if it.opener in "<(":
            args = [_normalize_element(p) for p in split_top_level_commas(it.items)]
            args = [a for a in args if a != ""] if len(args) == 1 else args
            if it.opener == "<":
                while args and args[-1].startswith(DEFAULT_TEMPLATE_ARGS) and len(args) > 1:
                    args.pop()
            if it.opener == "(" and args == ["void"]:
                args = []
            out.append(it.opener + ",".join(args) + closer)
        else:
            out.append(it.opener + _normalize_items(it.items) + closer)
    return "".join(out)


def _normalize_element(items: List[Union[str, Group]]) -> str:
    text = squeeze_spaces(_normalize_items(items))
    return squeeze_spaces(_east_const(text))


def normalize_signature(text: str) -> str:
    """The canonical spelling of a (possibly qualified) function signature or type."""
    text = text.strip()
    for prefix in THUNK_PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix):]
    text = re.sub(r"\[abi:[^\]]*\]", "", text)
    text = text.replace("std::__cxx11::", "std::")
    text = re.sub(r"\s*\[clone [^\]]*\]", "", text)
    protected, ops = protect_operators(text)
    text = squeeze_spaces(_normalize_items(parse_brackets(protected)))
    text = _east_const(text)
    text = re.sub(rf"std::basic_({'|'.join(STREAM_NAMES)})<char>", r"std::\1", text)
    return squeeze_spaces(restore_operators(text, ops))


# --- qualified names --------------------------------------------------------------------------

_TRAILING_QUALS = re.compile(r"(\s*(\bconst\b|\bvolatile\b|&&|&|noexcept|\[clone [^\]]*\]))*\s*$")


def split_params(text: str) -> Tuple[str, str]:
    """'RET NS::f(args) const' -> ('RET NS::f', '(args) const'); no parameter list:
    (text, ''). Operator names (operator(), operator<) are handled."""
    text, ops = protect_operators(text.strip())
    tail = _TRAILING_QUALS.search(text)
    body_end = tail.start() if tail else len(text)
    if body_end == 0 or text[body_end - 1] != ")":
        return restore_operators(text, ops), ""
    depth, open_at = 0, -1
    for i in range(body_end - 1, -1, -1):
        if text[i] == ")":
            depth += 1
        elif text[i] == "(":
            depth -= 1
            if depth == 0:
                open_at = i
                break
    if open_at <= 0:
        return restore_operators(text, ops), ""
    return restore_operators(text[:open_at], ops), restore_operators(text[open_at:], ops)


def strip_thunk(text: str) -> str:
    text = text.strip()
    for prefix in THUNK_PREFIXES:
        if text.startswith(prefix):
            return text[len(prefix):]
    return text


def split_function_name(demangled: str) -> Tuple[str, str, str]:
    """'NS::Cls<..>::meth(args) const' -> ('NS::Cls<..>', 'meth', '(args) const').

    Works on the raw demangled text; a name without a parameter list returns ('', name, '').
    """
    head, params = split_params(strip_thunk(demangled))
    if not params:
        return "", head, ""
    protected, ops = protect_operators(head)
    qual, base = split_qualifier(protected)
    return restore_operators(qual, ops), restore_operators(base, ops), params


def split_qualifier(name: str) -> Tuple[str, str]:
    """Splits at the last '::' outside brackets: 'A<B::C>::f' -> ('A<B::C>', 'f')."""
    depth, cut = 0, -1
    i = 0
    while i < len(name):
        ch = name[i]
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        elif depth == 0 and name.startswith("::", i):
            cut = i
            i += 1
        i += 1
    if cut < 0:
        return "", name
    return name[:cut], name[cut + 2:]


def unqualified_method(demangled: str) -> str:
    """The method name without its class, with its normalized parameter list and const."""
    _, base, params = split_function_name(demangled)
    return normalize_signature(base + params)


_DECL_NAME_RE = re.compile(r"(~?[A-Za-z_]\w*(?:\x00[0-9]+\x00)?)\s*$")


def split_declaration(decl: str) -> Tuple[str, str, str]:
    """A gdb `ptype` method declaration -> (return type, name, '(params) quals'), raw."""
    decl = decl.strip().rstrip(";").strip()
    decl = re.sub(r"^((virtual|static|explicit|inline)\s+)+", "", decl)
    decl = re.sub(r"\s*=\s*(0|default|delete)$", "", decl)
    head, params = split_params(decl)
    protected, ops = protect_operators(head)
    m = _DECL_NAME_RE.search(protected)
    if not m:
        return "", head, params
    return (restore_operators(protected[:m.start()], ops).strip(),
            restore_operators(m.group(1), ops), params)


def normalize_declaration(decl: str) -> str:
    """'virtual const ceph::common::PerfCounters * get_perf_counters(void) const;'
      -> 'ceph::common::PerfCounters const* get_perf_counters() const'"""
    ret, name, params = split_declaration(decl)
    sig = normalize_signature(name + params)
    return f"{normalize_signature(ret)} {sig}" if ret else sig


def method_name_only(decl: str) -> str:
    """'int mount(void)', 'virtual int mount(void);' or 'mount()' -> 'mount'."""
    return re.sub(r"\[abi:[^\]]*\]", "", split_declaration(decl)[1]).strip()
