#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# transcript.py LOG [PCAP] - check what "make demo" shows (its output in
# LOG, from a passing run) against what issue 24 items 3 and 4 promise:
#   3: the tune half: a profile checked, diffed, applied and re-applied
#      with 0 writes; DCQCN on, with CNPs on the wire and rate cuts; the
#      agent writing back a drift and acting on a pause storm (PFC off on
#      the storming priority as dcb reads it, then restored);
#   4: numbers with meaning: every step shows more than its ok line, a
#      figure in an ok line is one shown above it in its step, units and
#      the injected values said.
# PCAP is the demo's capture of CNPs (/tmp/demo_cnp.pcap in the guest);
# tshark counts its CNPs (BTH opcode 0x81), which must be the count the
# demo printed.  Prints "ok DESC" or "not ok DESC # WHY", one per check;
# exits 1 if any failed.
import re
import subprocess
import sys

failed = False


def result(good, desc, why=''):
    global failed
    if good:
        print(f'ok {desc}')
    else:
        failed = True
        print(f'not ok {desc} # {why}')


def steps_of(lines):
    steps = []
    for line in lines:
        m = re.match(r'^\[(\d+)\] (.*)$', line)
        if m:
            steps.append({'n': int(m.group(1)), 'title': m.group(2),
                          'body': []})
        elif steps:
            if re.match(r'^Demo complete', line):
                break
            steps[-1]['body'].append(line)
    return steps


def find(steps, pred):
    for st in steps:
        if pred(st):
            return st
    return None


def idx(body, rx, start=0):
    for i in range(start, len(body)):
        if re.search(rx, body[i]):
            return i
    return -1


def profile_cycle(steps):
    desc = 'item 3: a profile checked, diffed, applied, re-applied with 0 writes'
    st = find(steps, lambda s: any('$ rocetune profile check' in b
                                   for b in s['body']))
    if not st:
        return result(False, desc, 'no step runs rocetune profile check')
    b = st['body']
    i = idx(b, r'\$ rocetune profile check$')
    if i < 0 or not re.search(r'^\s*\d+ profiles? OK$', b[i + 1]):
        return result(False, desc, 'profile check says no "N profile OK"')
    d = idx(b, r'\$ rocetune profile diff$', i)
    if d < 0:
        return result(False, desc, 'no rocetune profile diff')
    a1 = idx(b, r'\$ rocetune profile apply', d)
    if a1 < 0:
        return result(False, desc, 'no rocetune profile apply after the diff')
    if not any(' -> ' in x for x in b[d:a1]):
        return result(False, desc, 'the diff shows no setting "old -> new"')
    a2 = idx(b, r'\$ rocetune profile apply', a1 + 1)
    if a2 < 0:
        return result(False, desc, 'no second rocetune profile apply')
    applied = [m.group(1) for x in b[a1:a2]
               for m in [re.match(r'^\s*(\S+): profile .*: applied \(([1-9]\d*) writes?\)', x)]
               if m]
    if not applied:
        return result(False, desc, 'the first apply wrote to no NIC')
    again = {}
    for x in b[a2 + 1:]:
        m = re.match(r'^\s*(\S+): profile .*: (\w+) \((\d+) writes?\)', x)
        if m:
            again[m.group(1)] = (m.group(2), m.group(3))
    bad = [nic for nic in applied if again.get(nic) != ('unchanged', '0')]
    if bad:
        return result(False, desc,
                      f're-apply of {", ".join(bad)} not "unchanged (0 writes)": {again}')
    result(True, f'{desc} ({" ".join(applied)})')


def dcqcn_on(steps, pcap):
    desc = 'item 3: DCQCN on, CNPs on the wire (tshark), rate cuts'
    on = [x for st in steps for x in st['body']
          if re.match(r'^\s*rxe\d+: np true rp true', x)]
    if len(on) < 2:
        return result(False, desc, f'NP and RP not shown on for 2 devices: {on}')
    st = find(steps, lambda s: any('captured on' in x for x in s['body']))
    if not st:
        return result(False, desc, 'no CNP count captured on the wire shown')
    shown = None
    for x in st['body']:
        m = re.search(r'(\d+) captured on \S+ by tcpdump', x)
        if m:
            shown = int(m.group(1))
    cuts = [int(m.group(1)) for x in st['body']
            for m in [re.search(r'(\d+) rate cuts for \d+ CNPs', x)] if m]
    if not cuts or max(cuts) < 1:
        return result(False, desc, f'no queue pair shows rate cuts: {cuts}')
    if not pcap:
        return result(False, desc, 'no capture to count CNPs in')
    try:
        out = subprocess.run(['tshark', '-n', '-r', pcap, '-Y',
                              'infiniband.bth.opcode == 0x81', '-T',
                              'fields', '-e', 'infiniband.bth.opcode'],
                             capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        return result(False, desc, f'tshark: {e}')
    if out.returncode:
        return result(False, desc, f'tshark exit {out.returncode}: {out.stderr.strip()}')
    wire = len(out.stdout.split())
    if wire < 1:
        return result(False, desc, 'tshark finds no CNP in the capture')
    if shown != wire:
        return result(False, desc,
                      f'the demo says {shown} CNPs captured, tshark counts {wire}')
    result(True, f'{desc} ({wire} CNPs, up to {max(cuts)} cuts on a QP)')


def drift_restored(steps):
    desc = 'item 3: the agent finds a drift and writes it back'
    for st in steps:
        b = st['body']
        for i, x in enumerate(b):
            m = re.search(r'rocetuned: \w+: (\S+): drift \(\w+\): (.*)', x)
            if not m:
                continue
            nd = re.escape(m.group(1))
            if idx(b, rf'rocetuned: \w+: {nd}: profile \S+ applied \(drift\)',
                   i + 1) > 0:
                return result(True, f'{desc} ({m.group(1)}: {m.group(2)})')
    result(False, desc, 'no agent log of a drift followed by its re-apply')


def storm_acted(steps):
    desc = 'item 3: the agent acts on a pause storm: PFC off (dcb), restored'
    for st in steps:
        b = st['body']
        act = idx(b, r'rocetuned: \w+: (\S+): pause storm on priority (\d): PFC off on it in force')
        if act < 0:
            continue
        m = re.search(r': (\S+): pause storm on priority (\d):', b[act])
        nd, prio = m.group(1), m.group(2)
        if idx(b, rf'rocetuned: \w+: {re.escape(nd)}: profile \S+ applied \(storm restore\)',
               act + 1) < 0:
            return result(False, desc, f'no storm restore of {nd} logged')
        # dcb's own lines, in the order shown: on, off, on.
        seq = [m2.group(1) for x in b
               for m2 in [re.match(rf'^\s*prio-pfc .*\b{prio}:(on|off)\b', x)]
               if m2]
        squeezed = [v for i, v in enumerate(seq) if i == 0 or v != seq[i - 1]]
        if squeezed != ['on', 'off', 'on']:
            return result(False, desc,
                          f'dcb pfc show read priority {prio} as {seq}, not on, off, on')
        if not any('storm_start' in x for x in b) or \
           not any('storm_end' in x for x in b):
            return result(False, desc, 'the step shows no storm_start and storm_end')
        return result(True, f'{desc} ({nd} priority {prio})')
    result(False, desc, 'no agent log of a disable-pfc storm action')


NUM = re.compile(r'(?<![\w.])(\d+(?:\.\d+)?)(?![\w.])')


def ok_figures(steps):
    desc = 'item 4: every step shows more than "ok:", and its ok line\'s figures above it'
    bare, missing = [], []
    for st in steps:
        b = st['body']
        oks = [i for i, x in enumerate(b) if x.startswith('    ok: ')]
        if not oks:
            missing.append(f'[{st["n"]}] has no ok line')
            continue
        if oks[0] == 0:
            bare.append(str(st['n']))
        above = ' '.join([st['title']] + b[:oks[-1]])
        seen = set(NUM.findall(above))
        for i in oks:
            for f in NUM.findall(b[i]):
                if len(f.replace('.', '')) >= 2 and f not in seen:
                    missing.append(f'[{st["n"]}] {f}')
    why = []
    if bare:
        why.append(f'steps showing only their ok line: {" ".join(bare)}')
    if missing:
        why.append(f'ok-line figures not shown above: {", ".join(missing)}')
    if why:
        return result(False, desc, '; '.join(why))
    result(True, f'{desc} ({len(steps)} steps)')


def units(steps):
    desc = 'item 4: units and meaning said (rates, ib_write_bw header, storm values, injected)'
    text = [x for st in steps for x in st['body']]
    why = []
    if any(re.match(r'^\s*rates:$', x) for x in text) and \
       not any(re.search(r'rates: packets/s over .*\(\d+ ms\)|packets/s over the', x)
               for x in text):
        why.append('rates without "packets/s over ... ms"')
    if any(re.match(r'^\s*duplicate-requests\s+\d', x) for x in text) and \
       not any(re.match(r'^\s*duplicate-requests: ', x) for x in text):
        why.append('duplicate-requests not explained')
    i = idx(text, r'^\s*#bytes\s+#iterations')
    if i < 0 or not re.match(r'^\s*\d+\s+\d+\s', text[i + 1]):
        why.append('no ib_write_bw result line under its header')
    if any(re.search(r'(?<!\d)0\.00(?!\d)', x) for x in text[i + 1:i + 2]) and \
       not any('BW peak is 0.00' in x for x in text):
        why.append('BW peak 0.00 not explained')
    for x in text:
        if re.search(r'round trip: p\d', x) and not re.search(r'\d+ (us|ms)', x):
            why.append(f'round trip without unit: {x.strip()}')
    if any('"event":"storm_start"' in x and '"value"' in x for x in text) and \
       not any(re.search(r'storm_start: .*pause frames/s.*\d+ ms', x) for x in text):
        why.append('storm_start value and thresh without units')
    for x in text:
        m = re.search(r'tx-pause (\d+) frames', x)
        if m and not any('injected' in y and m.group(1) in y for y in text):
            why.append(f'tx-pause {m.group(1)} not said to be injected')
    if why:
        return result(False, desc, '; '.join(why))
    result(True, desc)


def main():
    if len(sys.argv) not in (2, 3):
        print('usage: transcript.py LOG [PCAP]', file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1], errors='replace') as f:
            lines = f.read().splitlines()
    except OSError as e:
        print(f'not ok the demo\'s transcript # {e}')
        return 1
    steps = steps_of(lines)
    if len(steps) < 2:
        print(f'not ok the demo\'s transcript # {len(steps)} steps in {sys.argv[1]}')
        return 1
    profile_cycle(steps)
    dcqcn_on(steps, sys.argv[2] if len(sys.argv) == 3 else None)
    drift_restored(steps)
    storm_acted(steps)
    ok_figures(steps)
    units(steps)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
