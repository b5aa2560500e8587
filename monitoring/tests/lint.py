#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# lint.py - rules that promtool does not check, for
# monitoring/rocetune.rules.yml and monitoring/grafana/rocetune.json:
#  - every alert has a severity (critical, warning, info), a for:, and the
#    annotations summary, description and runbook;
#  - every series an expression names is one rocetuned exports (the
#    names are read from the agent's C sources, not from a list kept
#    here), up, or a recording rule of the file;
#  - aggregations keep only bounded labels (job, instance, host, netdev,
#    prio, device, port, and the agent's fixed-set result, setting,
#    event, action, reason) and no expression names an unbounded one
#    (qpn, comm, profile);
#  - every alert has a promtool test where it fires, and one where it
#    does not fire after it fired (resolves) and before it fires;
#  - every dashboard query uses the datasource variable and only known
#    series.
# Exit 1 with a line per problem.

import glob
import json
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, '..', '..')
RULES = os.path.join(HERE, '..', 'rocetune.rules.yml')
DASH = os.path.join(HERE, '..', 'grafana', 'rocetune.json')
BOUNDED = {'job', 'instance', 'host', 'netdev', 'prio', 'device', 'port'}
# The agent's labels of a fixed set of values (its C enums).
BOUNDED |= {'result', 'setting', 'event', 'action', 'reason'}
UNBOUNDED = {'qpn', 'comm', 'profile', 'pid'}
SEVERITIES = {'critical', 'warning', 'info'}
NAME = re.compile(r'[a-zA-Z_:][a-zA-Z0-9_:]*')
KEYWORDS = {'by', 'without', 'on', 'ignoring', 'group_left', 'group_right',
            'and', 'or', 'unless', 'offset', 'bool', 'inf', 'nan'}
problems = []


def exported():
    """Series names rocetuned writes, from its sources."""
    names = {'up'}
    src = os.path.join(TOP, 'userspace')
    for f in ('agent/ag_metrics.c', 'lib/rt_prom.c'):
        with open(os.path.join(src, f)) as fh:
            names |= set(re.findall(r'"(rocetune_[a-z0-9_]+)"', fh.read()))
    with open(os.path.join(src, 'lib/rt_counters.c')) as fh:
        port = fh.read().split('rt_qp_counter_descs')[0]
    for key in re.findall(r'ROCETUNE_A_CNT_[A-Z_]+, "([a-z_]+)"', port):
        names.add('rocetune_port_%s_total' % key)
    for n in list(names):
        if n.endswith('_seconds') and 'latency' in n:
            names |= {n + '_bucket', n + '_sum', n + '_count'}
    return names


def series(expr):
    """Metric names an expression selects (words not followed by '(')."""
    out = set()
    e = re.sub(r'"[^"]*"', '""', expr)       # no label values
    e = re.sub(r'\{[^}]*\}', '{}', e)        # no matchers
    e = re.sub(r'\[[^]]*\]', '[]', e)        # no ranges
    e = re.sub(r'\boffset\s+[0-9smhdwy]+', '', e)  # no offsets
    e = re.sub(r'\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)',
               '', e)
    for m in NAME.finditer(e):
        w = m.group(0)
        rest = e[m.end():].lstrip()
        if w in KEYWORDS or rest.startswith('('):
            continue
        if re.fullmatch(r'[0-9.e]+', w) or w.isdigit():
            continue
        out.add(w)
    for m in re.finditer(r'__name__=~"([^"]*)"', expr):
        out.add('re:' + m.group(1))
    return out


def check_expr(where, expr, known):
    for m in re.finditer(r'\b(by|without|on|ignoring)\s*\(([^)]*)\)', expr):
        for lab in (x.strip() for x in m.group(2).split(',')):
            if lab and lab not in BOUNDED:
                problems.append('%s: %s (%s) keeps the label %s, not one of %s'
                                % (where, m.group(1), m.group(2), lab,
                                   ' '.join(sorted(BOUNDED))))
    for lab in UNBOUNDED:
        if re.search(r'\b%s\b' % lab, re.sub(r'"[^"]*"', '""', expr)):
            problems.append('%s: names the unbounded label %s' % (where, lab))
    for s in series(expr):
        if s.startswith('re:'):
            if not any(re.fullmatch(s[3:], k) for k in known):
                problems.append('%s: %s matches no known series' % (where, s))
        elif s not in known:
            problems.append('%s: %s is not a series rocetuned exports, '
                            'up, nor a recording rule' % (where, s))


def main():
    with open(RULES) as f:
        doc = yaml.safe_load(f)
    known = exported()
    rules = [r for g in doc['groups'] for r in g['rules']]
    known |= {r['record'] for r in rules if 'record' in r}
    alerts = [r for r in rules if 'alert' in r]
    for r in rules:
        check_expr(r.get('alert') or r.get('record'), r['expr'], known)
    for r in alerts:
        a = r['alert']
        if r.get('labels', {}).get('severity') not in SEVERITIES:
            problems.append('%s: no severity of %s' % (a, sorted(SEVERITIES)))
        if 'for' not in r:
            problems.append('%s: no for: (write for: 0s to fire at once)' % a)
        for k in ('summary', 'description', 'runbook'):
            if not r.get('annotations', {}).get(k, '').strip():
                problems.append('%s: no annotation %s' % (a, k))
    # Tests: fires, and does not fire before and after.
    seen = {r['alert']: [] for r in alerts}
    for t in sorted(glob.glob(os.path.join(HERE, '*.test.yml'))):
        with open(t) as f:
            td = yaml.safe_load(f)
        for test in td['tests']:
            for c in test.get('alert_rule_test', []):
                seen.setdefault(c['alertname'], []).append(
                    (test, c['eval_time'], bool(c.get('exp_alerts'))))
    for a, cases in seen.items():
        if a not in {r['alert'] for r in alerts}:
            problems.append('tests: %s is no alert of the rules' % a)
            continue
        ok = False
        for test in {id(c[0]): c[0] for c in cases}.values():
            seq = [c[2] for c in cases if c[0] is test]
            if True in seq:
                i = seq.index(True)
                if False in seq[:i] and False in seq[i:]:
                    ok = True
        if not ok:
            problems.append('%s: no test where it does not fire, fires, '
                            'then resolves' % a)
    # The dashboard.
    if os.path.exists(DASH):
        with open(DASH) as f:
            dash = json.load(f)
        names = [v['name'] for v in dash['templating']['list']]
        if 'datasource' not in names:
            problems.append('dashboard: no datasource variable')
        for p in dash['panels']:
            for t in p.get('targets', []):
                where = 'dashboard panel "%s"' % p.get('title')
                if p.get('datasource', {}).get('uid') != '${datasource}':
                    problems.append('%s: its datasource is not ${datasource}'
                                    % where)
                check_expr(where, re.sub(r'\$\w+', 'x', t['expr']), known)
    for p in problems:
        print('lint: ' + p)
    print('lint: %d alerts, %d recording rules, %d problems'
          % (len(alerts), len(rules) - len(alerts), len(problems)))
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
