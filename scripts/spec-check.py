#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""spec-check.py - the uapi header and the YNL spec describe one protocol.

kmod/include/uapi/linux/rocetune.h is the protocol's single source of
truth; Documentation/netlink/specs/rocetune.yaml describes it for YNL and
drives the selftests' netlink clients.  This check compiles a C program
that includes the header and prints, for every enum constant and define
the spec implies (names by the YNL naming rules), its value: a name the
header lacks fails the build.  The same object's debug information
(readelf, -fno-eliminate-unused-debug-types) lists every enumerator the
compiler saw in the header, and the header's defines come from the
preprocessor (gcc -dM): a constant or define the spec does not have fails
too.  Exit 0 when both sides have the same enums, names and values.

  scripts/spec-check.py [HEADER [SPEC]]
"""

import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "selftests"))
import rt_ynl  # noqa: E402

HEADER = os.path.join(TOP, "kmod", "include", "uapi", "linux", "rocetune.h")
CC = os.environ.get("CC", "gcc")


def c_string(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def program(header, enums, defines):
    """A C program printing "ENUM NAME VALUE" for each enum constant of
    @enums and "define NAME VALUE" for each of @defines."""
    lines = ["#include <stdio.h>", "#include %s" % c_string(header), "",
             "int main(void)", "{"]
    for enum, consts in sorted(enums.items()):
        for name in consts:
            lines.append('\tprintf("%%s %%s %%lld\\n", %s, %s, '
                         '(long long)%s);' % (c_string(enum), c_string(name),
                                              name))
    for name, value in sorted(defines.items()):
        fmt = "%s" if isinstance(value, str) else "%lld"
        cast = "" if isinstance(value, str) else "(long long)"
        lines.append('\tprintf("define %%s %s\\n", %s, %s%s);'
                     % (fmt, c_string(name), cast, name))
    lines += ["\treturn 0;", "}", ""]
    return "\n".join(lines)


def dwarf_enums(obj):
    """{enum: {constant: value}} of the named enums in @obj's debug info."""
    out = subprocess.run(["readelf", "--debug-dump=info", obj], check=True,
                         capture_output=True, text=True).stdout
    enums, cur, name, tag = {}, None, None, None
    for line in out.splitlines():
        m = re.match(r"\s*<(\d+)><[0-9a-f]+>: Abbrev Number: \d+ \((\w+)\)",
                     line)
        if m:
            tag, depth, name = m.group(2), int(m.group(1)), None
            if tag != "DW_TAG_enumerator" and depth <= 1:
                cur = None
            continue
        m = re.match(r"\s*<[0-9a-f]+>\s+(DW_AT_\w+)\s*:\s*(.*)$", line)
        if not m:
            continue
        at, val = m.groups()
        if at == "DW_AT_name":
            val = val.rsplit(": ", 1)[-1].strip()
            if tag == "DW_TAG_enumeration_type":
                cur = enums.setdefault(val, {})
            elif tag == "DW_TAG_enumerator":
                name = val
        elif at == "DW_AT_const_value" and tag == "DW_TAG_enumerator" \
                and cur is not None and name:
            cur[name] = int(val.split()[0], 0)
    return enums


def header_defines(header):
    """{name: replacement text} of the macros @header defines."""
    def macros(args):
        out = subprocess.run([CC, "-dM", "-E"] + args, check=True,
                             capture_output=True, text=True,
                             stdin=subprocess.DEVNULL).stdout
        return dict(re.match(r"#define (\w+)\s*(.*)$", m).groups()
                    for m in out.splitlines() if m.startswith("#define"))
    base = macros(["-x", "c", "/dev/null"])
    mine = macros(["-x", "c", header])
    return {k: v for k, v in mine.items()
            if k not in base and not re.match(r"_UAPI_.*_H$", k)}


def compare(what, spec, header, errors):
    for k in sorted(set(spec) | set(header), key=str):
        if k not in header:
            errors.append("%s %s: in the spec, not in the header" % (what, k))
        elif k not in spec:
            errors.append("%s %s: in the header, not in the spec" % (what, k))
        elif spec[k] != header[k]:
            errors.append("%s %s: spec %r, header %r"
                          % (what, k, spec[k], header[k]))


def main(argv):
    header = os.path.abspath(argv[0]) if argv else HEADER
    spec = rt_ynl.Spec(rt_ynl._parse_yaml(argv[1] if len(argv) > 1
                                          else rt_ynl.SPEC))
    enums, defines = spec.c_enums(), spec.c_defines()
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        src, obj = os.path.join(tmp, "p.c"), os.path.join(tmp, "p")
        with open(src, "w") as f:
            f.write(program(header, enums, defines))
        cc = subprocess.run([CC, "-g", "-fno-eliminate-unused-debug-types",
                             "-Wall", "-Werror", "-o", obj, src],
                            capture_output=True, text=True,
                            env=dict(os.environ, LC_ALL="C"))
        if cc.returncode:
            # Names the spec implies that the header lacks.
            for m in re.finditer(r"'(\w+)' undeclared", cc.stderr):
                errors.append("%s: in the spec, not in the header"
                              % m.group(1))
            sys.stderr.write(cc.stderr)
            sys.stderr.flush()
            errors.append("the header does not compile with the spec's names")
        else:
            printed = subprocess.run([obj], check=True, capture_output=True,
                                     text=True).stdout
            seen = {}
            for line in printed.splitlines():
                kind, name, value = line.split(" ", 2)
                seen.setdefault(kind, {})[name] = \
                    value if kind == "define" else int(value)
            for enum, consts in enums.items():
                compare("enum %s:" % enum, consts, seen.get(enum, {}), errors)
            compare("define", {k: str(v) for k, v in defines.items()},
                    seen.get("define", {}), errors)
            dwarf = dwarf_enums(obj)
            # Every enum and constant of the header, as the compiler saw
            # it, must be the spec's.
            compare("enum", {e: True for e in enums},
                    {e: True for e in dwarf if e.startswith(spec.name)},
                    errors)
            for enum in sorted(set(enums) & set(dwarf)):
                compare("enum %s:" % enum, enums[enum], dwarf[enum], errors)
            hdr = header_defines(header)
            compare("define", {k: True for k in defines},
                    {k: True for k in hdr}, errors)
    errors = list(dict.fromkeys(errors))
    for e in errors:
        print("spec-check: " + e)
    n = sum(len(c) for c in enums.values())
    if errors:
        print("spec-check: %s and %s disagree (%d problems)"
              % (os.path.relpath(header, TOP), "the YNL spec", len(errors)))
        return 1
    print("spec-check: %d enums, %d constants, %d defines agree"
          % (len(enums), n, len(defines)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
