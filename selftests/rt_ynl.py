# SPDX-License-Identifier: GPL-2.0-only
"""The rocetune family as its YNL spec describes it, for the selftests.

Documentation/netlink/specs/rocetune.yaml gives the selftests' netlink
clients (rt_genl.py, rt_qp.py) their command and attribute numbers and
types; scripts/spec-check.py keeps that spec and the uapi header equal.

  spec = load()
  spec.ops["qp-get"].value, spec.sets["rocetune"].attrs["dev-name"].value
  spec.encode("rocetune", {"dev-name": "rxe0", "qpn-min": 17})
  spec.decode("rocetune", payload) -> {"dev-name": "rxe0", "qp": {...}}
  spec.c_enums() -> {"rocetune_attr": {"ROCETUNE_A_PAD": 1, ...}, ...}

The parsed spec is cached as JSON under build/spec/ of the tree (keyed by
the YAML file's size and mtime): loading YAML costs a Python start-up
under emulation a noticeable fraction of a second, json next to nothing.
"""

import json
import os
import socket
import struct

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(TOP, "Documentation", "netlink", "specs", "rocetune.yaml")
CACHE = os.path.join(TOP, "build", "spec", "rocetune.json")

# Scalar types: struct format (native byte order, as the kernel's).
SCALARS = {"u8": "=B", "u16": "=H", "u32": "=I", "u64": "=Q",
           "s8": "=b", "s16": "=h", "s32": "=i", "s64": "=q"}
TYPES = set(SCALARS) | {"unused", "pad", "flag", "binary", "string", "nest"}

NLA_TYPE_MASK = 0x3FFF


def c_name(*parts):
    """The C name of YNL names: upper case, dashes as underscores."""
    return "".join(parts).upper().replace("-", "_")


class SpecError(Exception):
    pass


# The keys of genetlink-c (Documentation/netlink/genetlink-c.yaml of the
# kernel) this family may use: a misspelt key fails instead of being
# ignored.
KEYS = {
    "spec": {"name", "doc", "protocol", "uapi-header", "c-family-name",
             "c-version-name", "max-by-define", "cmd-max-name",
             "cmd-cnt-name", "definitions", "attribute-sets", "operations",
             "mcast-groups"},
    "definition": {"name", "header", "type", "doc", "value", "value-start",
                   "entries", "render-max", "enum-name", "name-prefix"},
    "entry": {"name", "value", "doc"},
    "attribute-set": {"name", "name-prefix", "enum-name", "doc", "subset-of",
                      "attr-cnt-name", "attr-max-name", "attributes"},
    "attribute": {"name", "type", "doc", "value", "type-value", "byte-order",
                  "multi-attr", "nested-attributes", "enum", "enum-as-flags",
                  "checks", "sub-type", "display-hint", "name-prefix"},
    "checks": {"flags-mask", "min", "max", "min-len", "max-len",
               "exact-len"},
    "operations": {"enum-model", "name-prefix", "enum-name", "async-prefix",
                   "async-enum", "list"},
    "operation": {"name", "doc", "value", "attribute-set", "flags",
                  "dont-validate", "config-cond", "do", "dump", "notify",
                  "event", "mcgrp"},
    "do": {"request", "reply", "pre", "post"},
    "message": {"attributes"},
    "mcast-groups": {"list"},
    "mcast-group": {"name", "c-define-name", "flags"},
}


def check_keys(kind, y, where):
    extra = set(y) - KEYS[kind]
    if extra:
        raise SpecError("%s: unknown %s key(s) %s"
                        % (where, kind, ", ".join(sorted(extra))))


class Attr:
    def __init__(self, aset, y, value):
        self.name = y["name"]
        check_keys("attribute", y, "%s.%s" % (aset, self.name))
        check_keys("checks", y.get("checks", {}), "%s.%s" % (aset, self.name))
        self.value = value
        self.type = y.get("type")
        if self.type not in TYPES:
            raise SpecError("%s.%s: type %r" % (aset, self.name, self.type))
        self.nested = y.get("nested-attributes")
        if (self.type == "nest") != (self.nested is not None):
            raise SpecError("%s.%s: a nest needs nested-attributes, and "
                            "only a nest has them" % (aset, self.name))
        self.multi = bool(y.get("multi-attr", False))
        self.enum = y.get("enum")
        self.checks = y.get("checks", {})


class AttrSet:
    def __init__(self, y):
        self.name = y["name"]
        check_keys("attribute-set", y, self.name)
        self.enum_name = y["enum-name"]
        self.prefix = y["name-prefix"]
        self.attrs = {}
        self.by_value = {}
        value = 1               # genetlink: attributes start at 1
        for a in y["attributes"]:
            value = a.get("value", value)
            if a["name"] in self.attrs or value in self.by_value:
                raise SpecError("%s: %s (%d) twice" % (self.name, a["name"],
                                                        value))
            attr = Attr(self.name, a, value)
            self.attrs[attr.name] = attr
            self.by_value[value] = attr
            value += 1

    def c_enum(self):
        e = {c_name(self.prefix, a.name): a.value
             for a in self.attrs.values()}
        cnt = max(self.by_value) + 1
        e[c_name("__", self.prefix, "max")] = cnt
        e[c_name(self.prefix, "max")] = cnt - 1
        return e


class Op:
    def __init__(self, y, value):
        self.name = y["name"]
        check_keys("operation", y, self.name)
        for mode in ("do", "dump"):
            check_keys("do", y.get(mode) or {}, "%s %s" % (self.name, mode))
            for msg in ("request", "reply"):
                check_keys("message", (y.get(mode) or {}).get(msg) or {},
                           "%s %s %s" % (self.name, mode, msg))
        check_keys("message", y.get("event") or {}, self.name + " event")
        self.value = value
        self.attribute_set = y.get("attribute-set")
        self.flags = y.get("flags", [])
        self.do = y.get("do")
        self.dump = y.get("dump")
        self.event = y.get("event")
        self.mcgrp = y.get("mcgrp")

    def attributes(self, mode, msg):
        """Names of the attributes of @mode's (do, dump) @msg (request,
        reply); of the event for mode "event"."""
        if mode == "event":
            return (self.event or {}).get("attributes", [])
        return ((getattr(self, mode) or {}).get(msg) or {}) \
            .get("attributes", [])


class Spec:
    def __init__(self, y):
        check_keys("spec", y, "spec")
        self.name = y["name"]
        self.protocol = y.get("protocol", "genetlink")
        self.version = y.get("version", 1)
        self.c_family_name = y.get("c-family-name")
        self.c_version_name = y.get("c-version-name")
        self.enums = {}
        self.c_enum_defs = {}
        for d in y.get("definitions", []):
            check_keys("definition", d, d["name"])
            if d["type"] != "enum":
                raise SpecError("definition %s: only enums" % d["name"])
            value = d.get("value-start", 0)
            entries = {}
            for e in d["entries"]:
                e = {"name": e} if isinstance(e, str) else e
                check_keys("entry", e, "%s.%s" % (d["name"], e["name"]))
                value = e.get("value", value)
                entries[e["name"]] = value
                value += 1
            self.enums[d["name"]] = entries
            self.c_enum_defs[d["name"]] = d
        self.sets = {}
        for s in y["attribute-sets"]:
            self.sets[s["name"]] = AttrSet(s)
        ops = y["operations"]
        check_keys("operations", ops, "operations")
        self.op_enum_name = ops["enum-name"]
        self.op_prefix = ops["name-prefix"]
        self.ops = {}
        self.ops_by_value = {}
        value = 1               # genetlink: command 0 is UNSPEC
        for o in ops["list"]:
            value = o.get("value", value)
            op = Op(o, value)
            if op.name in self.ops or value in self.ops_by_value:
                raise SpecError("operation %s (%d) twice" % (op.name, value))
            self.ops[op.name] = op
            self.ops_by_value[value] = op
            value += 1
        groups = y.get("mcast-groups", {})
        check_keys("mcast-groups", groups, "mcast-groups")
        for g in groups.get("list", []):
            check_keys("mcast-group", g, g["name"])
        self.mcgrps = [g["name"] for g in groups.get("list", [])]
        self._check_refs()

    def _check_refs(self):
        for s in self.sets.values():
            for a in s.attrs.values():
                if a.nested and a.nested not in self.sets:
                    raise SpecError("%s.%s: no set %s" % (s.name, a.name,
                                                          a.nested))
                if a.enum and a.enum not in self.enums:
                    raise SpecError("%s.%s: no enum %s" % (s.name, a.name,
                                                           a.enum))
        for op in self.ops.values():
            aset = self.sets.get(op.attribute_set)
            if aset is None:
                raise SpecError("%s: no set %s" % (op.name, op.attribute_set))
            for mode in ("do", "dump", "event"):
                for msg in ("request", "reply"):
                    for n in op.attributes(mode, msg):
                        if n not in aset.attrs:
                            raise SpecError("%s %s %s: no attribute %s in %s"
                                            % (op.name, mode, msg, n,
                                               aset.name))
            if op.mcgrp is not None and op.mcgrp not in self.mcgrps:
                raise SpecError("%s: no group %s" % (op.name, op.mcgrp))

    def c_enums(self):
        """{C enum name: {C constant: value}}, every enum the uapi header
        must have, with their __*_MAX and *_MAX."""
        out = {}
        for name, entries in self.enums.items():
            d = self.c_enum_defs[name]
            prefix = d.get("name-prefix", self.name + "-" + name + "-")
            e = {c_name(prefix, n): v for n, v in entries.items()}
            if d.get("render-max"):
                e[c_name("__", prefix, "max")] = max(entries.values()) + 1
                e[c_name(prefix, "max")] = max(entries.values())
            out[d.get("enum-name", c_name(self.name, "_", name).lower())] = e
        for s in self.sets.values():
            out[s.enum_name] = s.c_enum()
        e = {c_name(self.op_prefix, "unspec"): 0}
        e.update({c_name(self.op_prefix, o.name): o.value
                  for o in self.ops.values()})
        cnt = max(self.ops_by_value) + 1
        e[c_name("__", self.op_prefix, "max")] = cnt
        e[c_name(self.op_prefix, "max")] = cnt - 1
        out[self.op_enum_name] = e
        return out

    def c_defines(self):
        """{C define: value} of the family name, version and groups."""
        d = {self.c_family_name: self.name,
             self.c_version_name: self.version}
        for g in self.mcgrps:
            d[c_name(self.name, "-mcgrp-", g)] = g
        return d

    # Codec ------------------------------------------------------------

    def encode(self, set_name, attrs):
        """Netlink attributes of @attrs {name: value} in set @set_name."""
        aset = self.sets[set_name]
        out = b""
        for name, value in attrs.items():
            a = aset.attrs[name]
            for v in (value if a.multi else [value]):
                out += nla(a.value, self._encode_one(a, v))
        return out

    def _encode_one(self, a, v):
        if a.type in SCALARS:
            return struct.pack(SCALARS[a.type], v)
        if a.type == "string":
            return v.encode() + b"\0"
        if a.type == "flag":
            return b""
        if a.type == "nest":
            return self.encode(a.nested, v)
        if a.type == "binary":
            return bytes(v)
        raise SpecError("cannot encode %s (%s)" % (a.name, a.type))

    def decode(self, set_name, data):
        """{name: value} of the attributes in @data, by set @set_name; an
        attribute the spec does not know is kept under its number."""
        aset = self.sets[set_name]
        out = {}
        for atype, payload in nla_iter(data):
            a = aset.by_value.get(atype)
            if a is None:
                out.setdefault(atype, payload)
                continue
            if a.type == "pad":
                continue
            v = self._decode_one(a, payload)
            if a.multi:
                out.setdefault(a.name, []).append(v)
            else:
                out.setdefault(a.name, v)
        return out

    def _decode_one(self, a, payload):
        if a.type in SCALARS:
            return struct.unpack_from(SCALARS[a.type], payload)[0]
        if a.type == "string":
            return payload.split(b"\0", 1)[0].decode()
        if a.type == "flag":
            return True
        if a.type == "nest":
            return self.decode(a.nested, payload)
        return payload


def nla(atype, payload):
    """One netlink attribute, padded to 4 bytes."""
    pad = (4 - len(payload) % 4) % 4
    return struct.pack("=HH", 4 + len(payload), atype) + payload + b"\0" * pad


def nla_iter(data):
    """(type, payload) of each attribute in @data."""
    off = 0
    while off + 4 <= len(data):
        alen, atype = struct.unpack_from("=HH", data, off)
        if alen < 4:
            break
        yield atype & NLA_TYPE_MASK, data[off + 4:off + alen]
        off += (alen + 3) & ~3


def _parse_yaml(path):
    import yaml     # only when the cache is missing or stale

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path) as f:
        return yaml.load(f, Loader=loader)


def load_raw(path=SPEC, cache=CACHE):
    """The spec as parsed YAML: from the JSON cache when it was made from
    this very file (size and mtime), else parsed and cached (when the tree
    is writable; a read-only copy just parses)."""
    st = os.stat(path)
    key = [st.st_size, st.st_mtime_ns]
    if cache:
        try:
            with open(cache) as f:
                c = json.load(f)
            if c.get("key") == key:
                return c["spec"]
        except (OSError, ValueError):
            pass
    y = _parse_yaml(path)
    if cache:
        # Two guests may share the tree: a name of their own each.
        tmp = "%s.%d.%s" % (cache, os.getpid(), os.urandom(4).hex())
        try:
            os.makedirs(os.path.dirname(cache), exist_ok=True)
            with open(tmp, "w") as f:
                json.dump({"key": key, "spec": y}, f)
            os.replace(tmp, cache)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return y


def load(path=SPEC, cache=CACHE):
    return Spec(load_raw(path, cache))


# A generic netlink socket ---------------------------------------------

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_ADD_MEMBERSHIP = 1
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_MCAST_GROUPS = 7
CTRL_ATTR_MCAST_GRP_NAME = 1
CTRL_ATTR_MCAST_GRP_ID = 2
NLM_F_REQUEST = 1
NLM_F_ACK = 4
NLM_F_DUMP_INTR = 0x10
NLM_F_DUMP = 0x300
NLM_F_ACK_TLVS = 0x200
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLMSGERR_ATTR_MSG = 1
NLMSGERR_ATTR_OFFS = 2


def parse_attrs(data):
    """{type: payload} of the attributes in @data (the first of each)."""
    attrs = {}
    for atype, payload in nla_iter(data):
        attrs.setdefault(atype, payload)
    return attrs


class Genl:
    """A generic netlink socket: raw requests, every reply kept as raw
    attributes, the errno and extack message of the answer."""

    def __init__(self, bufsize=32768, timeout=20):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.sock.bind((0, 0))
        self.sock.settimeout(timeout)
        self.bufsize = bufsize
        self.seq = 1
        self.intr = False
        self.bad_offs = None

    def send(self, ftype, flags, cmd, payload, version=1):
        self.seq += 1
        msg = struct.pack("=BBH", cmd, version, 0) + payload
        hdr = struct.pack("=IHHII", 16 + len(msg), ftype, flags, self.seq, 0)
        self.sock.send(hdr + msg)

    def recv_all(self, pause_cmd=None):
        """Returns (errno, extack message, [reply payloads], recv calls);
        self.intr tells whether a message carried NLM_F_DUMP_INTR, and
        self.bad_offs is the offset in the request of the attribute the
        extack names (NLMSGERR_ATTR_OFFS), or None.  A reply payload is
        the message after its genetlink header."""
        replies, recvs = [], 0
        self.intr = False
        self.bad_offs = None
        if pause_cmd:
            import subprocess

            subprocess.run(pause_cmd, shell=True, check=True)
        while True:
            data = self.sock.recv(self.bufsize)
            recvs += 1
            off = 0
            while off + 16 <= len(data):
                mlen, mtype, mflags, _, _ = struct.unpack_from("=IHHII",
                                                               data, off)
                if mflags & NLM_F_DUMP_INTR and mtype != NLMSG_ERROR:
                    self.intr = True
                body = data[off + 16:off + mlen]
                if mtype in (NLMSG_ERROR, NLMSG_DONE):
                    err = -struct.unpack_from("=i", body)[0] \
                        if len(body) >= 4 else 0
                    msg = ""
                    if mflags & NLM_F_ACK_TLVS:
                        # NLMSG_ERROR: the error, then the request's
                        # header (capped); NLMSG_DONE: the error only.
                        skip = 4 + 16 if mtype == NLMSG_ERROR else 4
                        tlvs = parse_attrs(body[skip:])
                        if NLMSGERR_ATTR_MSG in tlvs:
                            msg = tlvs[NLMSGERR_ATTR_MSG].rstrip(b"\0")
                            msg = msg.decode()
                        if NLMSGERR_ATTR_OFFS in tlvs:
                            self.bad_offs = struct.unpack_from(
                                "=I", tlvs[NLMSGERR_ATTR_OFFS])[0]
                    return err, msg, replies, recvs
                replies.append(body[4:])
                off += (mlen + 3) & ~3

    def family(self, name, group=None):
        """The family's id, or with @group, the id of that group."""
        self.send(GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK, CTRL_CMD_GETFAMILY,
                  nla(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
        err, msg, replies, _ = self.recv_all()
        if err or not replies:
            raise OSError(err, msg or "no family " + name)
        r = parse_attrs(replies[0])
        if group is None:
            return struct.unpack("=H", r[CTRL_ATTR_FAMILY_ID][:2])[0]
        for _, g in nla_iter(r.get(CTRL_ATTR_MCAST_GROUPS, b"")):
            ga = parse_attrs(g)
            if ga.get(CTRL_ATTR_MCAST_GRP_NAME, b"").rstrip(b"\0") == \
                    group.encode():
                return struct.unpack("=I", ga[CTRL_ATTR_MCAST_GRP_ID][:4])[0]
        raise OSError(2, "no group " + group)


class Client:
    """Requests by operation and attribute names of the spec."""

    def __init__(self, spec=None, bufsize=32768):
        self.spec = spec or load()
        self.genl = Genl(bufsize)
        self.fid = self.genl.family(self.spec.name)

    def request(self, op_name, attrs=None, dump=False, raw=b""):
        """(errno, extack message, [decoded replies]) of @op_name's do (or
        dump) with @attrs {name: value} of the op's set (and @raw
        attributes appended as they are)."""
        op = self.spec.ops[op_name]
        payload = self.spec.encode(op.attribute_set, attrs or {}) + raw
        flags = NLM_F_REQUEST | NLM_F_ACK | (NLM_F_DUMP if dump else 0)
        self.genl.send(self.fid, flags, op.value, payload, self.spec.version)
        err, msg, replies, _ = self.genl.recv_all()
        return err, msg, [self.spec.decode(op.attribute_set, r)
                          for r in replies]

    def do(self, op_name, attrs=None):
        """The replies of a do request; OSError on an error."""
        err, msg, replies = self.request(op_name, attrs)
        if err:
            raise OSError(err, msg or os.strerror(err))
        return replies

    def dump(self, op_name, attrs=None):
        """The replies of a dump; OSError on an error."""
        err, msg, replies = self.request(op_name, attrs, dump=True)
        if err:
            raise OSError(err, msg or os.strerror(err))
        return replies


# The spec against the running kernel ------------------------------------

CTRL_ATTR_VERSION = 3
CTRL_ATTR_OPS = 6
CTRL_ATTR_OP_ID = 1
CTRL_ATTR_OP_FLAGS = 2
CTRL_CMD_GETPOLICY = 10
CTRL_ATTR_POLICY = 8
CTRL_ATTR_OP_POLICY = 9
CTRL_ATTR_POLICY_DO = 1
CTRL_ATTR_POLICY_DUMP = 2
GENL_ADMIN_PERM = 0x01
GENL_CMD_CAP_DO = 0x02
GENL_CMD_CAP_DUMP = 0x04
NL_POLICY_TYPE_ATTR_TYPE = 1
NL_POLICY_TYPE_ATTR_MIN_VALUE_U = 4
NL_POLICY_TYPE_ATTR_MAX_VALUE_U = 5
NL_POLICY_TYPE_ATTR_MAX_LENGTH = 7
# enum netlink_attribute_type of the spec's types (a YNL string is
# NLA_NUL_STRING in the kernel).
NL_ATTR_TYPE = {"flag": 1, "u8": 2, "u16": 3, "u32": 4, "u64": 5, "s8": 6,
                "s16": 7, "s32": 8, "s64": 9, "binary": 10, "string": 12,
                "nest": 13}
UNSIGNED_MAX = {"u8": 0xFF, "u16": 0xFFFF, "u32": 0xFFFFFFFF,
                "u64": 0xFFFFFFFFFFFFFFFF}


def _u(b):
    return struct.unpack({4: "=I", 8: "=Q"}[len(b)], b)[0]


def kernel_problems(spec, genl):
    """What the running kernel's family says that @spec does not: its
    version, commands (do, dump, admin-perm), groups, and the policy of
    each command (attributes accepted, types, ranges and lengths) against
    the request attributes of the command's do and dump and their checks.
    A list of strings, empty when they agree."""
    problems = []
    genl.send(GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK, CTRL_CMD_GETFAMILY,
              nla(CTRL_ATTR_FAMILY_NAME, spec.name.encode() + b"\0"))
    err, msg, replies, _ = genl.recv_all()
    if err or not replies:
        return ["no family %s: %s" % (spec.name, msg or os.strerror(err))]
    fam = parse_attrs(replies[0])
    version = _u(fam[CTRL_ATTR_VERSION])
    if version != spec.version:
        problems.append("version: kernel %d, spec %d" % (version,
                                                         spec.version))
    kops = {}
    for _, o in nla_iter(fam.get(CTRL_ATTR_OPS, b"")):
        o = parse_attrs(o)
        kops[_u(o[CTRL_ATTR_OP_ID])] = _u(o[CTRL_ATTR_OP_FLAGS])
    sops = {o.value: o for o in spec.ops.values() if o.do or o.dump}
    for cmd in sorted(set(kops) | set(sops)):
        if cmd not in sops:
            problems.append("command %d: in the kernel, not in the spec" % cmd)
            continue
        op = sops[cmd]
        if cmd not in kops:
            problems.append("%s: in the spec, not in the kernel" % op.name)
            continue
        f = kops[cmd]
        for what, spec_has, kernel_has in (
                ("do", bool(op.do), bool(f & GENL_CMD_CAP_DO)),
                ("dump", bool(op.dump), bool(f & GENL_CMD_CAP_DUMP)),
                ("admin-perm", "admin-perm" in op.flags,
                 bool(f & GENL_ADMIN_PERM))):
            if spec_has != kernel_has:
                problems.append("%s %s: spec %s, kernel %s"
                                % (op.name, what, spec_has, kernel_has))
    for g in spec.mcgrps:
        try:
            genl.family(spec.name, g)
        except OSError:
            problems.append("group %s: in the spec, not in the kernel" % g)

    # The policies: CTRL_ATTR_OP_POLICY maps each command to the index of
    # its do and dump policy, CTRL_ATTR_POLICY gives each policy.
    genl.send(GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP,
              CTRL_CMD_GETPOLICY,
              nla(CTRL_ATTR_FAMILY_NAME, spec.name.encode() + b"\0"))
    err, msg, replies, _ = genl.recv_all()
    if err:
        return problems + ["policy dump: %s" % (msg or os.strerror(err))]
    op_policy, policies = {}, {}
    for r in replies:
        r = parse_attrs(r)
        for cmd, p in nla_iter(r.get(CTRL_ATTR_OP_POLICY, b"")):
            p = parse_attrs(p)
            op_policy[cmd] = {m: _u(p[k]) for m, k in
                              (("do", CTRL_ATTR_POLICY_DO),
                               ("dump", CTRL_ATTR_POLICY_DUMP)) if k in p}
        for idx, pol in nla_iter(r.get(CTRL_ATTR_POLICY, b"")):
            for atype, props in nla_iter(pol):
                policies.setdefault(idx, {})[atype] = parse_attrs(props)
    for cmd, op in sorted(sops.items()):
        aset = spec.sets[op.attribute_set]
        for mode in ("do", "dump"):
            if not getattr(op, mode):
                continue
            idx = op_policy.get(cmd, {}).get(mode)
            kernel = policies.get(idx, {})
            # The kernel has one policy for a command's do and dump: it
            # accepts the attributes of both.
            names = set(op.attributes("do", "request")) | \
                set(op.attributes("dump", "request"))
            want = {aset.attrs[n].value: aset.attrs[n] for n in names}
            where = "%s %s" % (op.name, mode)
            for atype in sorted(set(kernel) | set(want)):
                a = want.get(atype)
                if a is None:
                    n = aset.by_value.get(atype)
                    problems.append("%s: the kernel accepts %s, the spec's "
                                    "requests do not have it"
                                    % (where, n.name if n else atype))
                elif atype not in kernel:
                    problems.append("%s: the spec's request has %s, the "
                                    "kernel does not accept it"
                                    % (where, a.name))
                else:
                    problems += _policy_problems(where, a, kernel[atype])
    return problems


def _policy_problems(where, a, props):
    """How one attribute's kernel policy @props differs from the spec."""
    out = []
    ktype = _u(props[NL_POLICY_TYPE_ATTR_TYPE])
    if ktype != NL_ATTR_TYPE.get(a.type):
        out.append("%s: %s: kernel type %d, spec %s" % (where, a.name, ktype,
                                                        a.type))
        return out
    want = {}
    if a.type in UNSIGNED_MAX:
        want[NL_POLICY_TYPE_ATTR_MIN_VALUE_U] = a.checks.get("min", 0)
        want[NL_POLICY_TYPE_ATTR_MAX_VALUE_U] = a.checks.get(
            "max", UNSIGNED_MAX[a.type])
    if "max-len" in a.checks or NL_POLICY_TYPE_ATTR_MAX_LENGTH in props:
        want[NL_POLICY_TYPE_ATTR_MAX_LENGTH] = a.checks.get("max-len")
    names = {NL_POLICY_TYPE_ATTR_MIN_VALUE_U: "min",
             NL_POLICY_TYPE_ATTR_MAX_VALUE_U: "max",
             NL_POLICY_TYPE_ATTR_MAX_LENGTH: "max-len"}
    for k, v in want.items():
        got = _u(props[k]) if k in props else None
        if got != v:
            out.append("%s: %s %s: kernel %s, spec %s" % (where, a.name,
                                                         names[k], got, v))
    return out
