#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# mutate.py - the promtool tests can fail: each alert of
# monitoring/rocetune.rules.yml is changed in turn (made never to fire,
# made to fire on everything, its threshold raised, its for: lengthened)
# and the tests of monitoring/tests/*.test.yml must fail against every
# such mutant.  A mutant the tests pass is a gap in them: exit 1.
# The unchanged rules, written the same way, must pass.
#
# Usage: mutate.py [PROMTOOL]

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = os.path.join(HERE, '..', 'rocetune.rules.yml')
PROMTOOL = sys.argv[1] if len(sys.argv) > 1 else 'promtool'
CMP = re.compile(r'(==|>=|<=|>|<)\s*([0-9]+(?:\.[0-9]+)?)')
DUR = re.compile(r'^([0-9]+)(ms|s|m|h)$')
SECS = {'ms': 0.001, 's': 1, 'm': 60, 'h': 3600}


def seconds(d):
    m = DUR.match(str(d))
    if not m:
        sys.exit('mutate.py: for: %r is not a duration this script reads' % d)
    return int(m.group(1)) * SECS[m.group(2)]


def mutants(rule):
    """(description, changed rule) for one alerting rule."""
    expr = rule['expr']
    yield 'never fires', dict(rule, expr='(%s) unless on () vector(1)' % expr)
    for m in CMP.finditer(expr):
        op, num = m.group(1), float(m.group(2))
        head, tail = expr[:m.start()], expr[m.end():]
        yield ('"%s" fires on everything' % m.group(0),
               dict(rule, expr=head + '>= 0' + tail))
        if op in ('>', '>='):
            yield ('"%s" raised' % m.group(0),
                   dict(rule, expr=head + '%s %g' % (op, num * 10 + 1) + tail))
    old = seconds(rule.get('for', '0s'))
    yield ('for: %s lengthened' % rule.get('for', '0s'),
           dict(rule, **{'for': '%ds' % (old * 3 + 60)}))


def run(doc, tmp):
    with open(os.path.join(tmp, 'rocetune.rules.yml'), 'w') as f:
        yaml.safe_dump(doc, f, sort_keys=False)
    tests = sorted(glob.glob(os.path.join(tmp, 'tests', '*.test.yml')))
    r = subprocess.run([PROMTOOL, 'test', 'rules'] + tests,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, check=False)
    return r.returncode, r.stdout


def main():
    with open(RULES) as f:
        doc = yaml.safe_load(f)
    tmp = tempfile.mkdtemp(prefix='rt-mutate.')
    try:
        os.mkdir(os.path.join(tmp, 'tests'))
        for t in glob.glob(os.path.join(HERE, '*.test.yml')):
            shutil.copy(t, os.path.join(tmp, 'tests'))
        rc, out = run(doc, tmp)
        if rc != 0:
            print(out)
            sys.exit('mutate.py: the unchanged rules fail their tests')
        killed = survived = 0
        for g in doc['groups']:
            for i, rule in enumerate(g['rules']):
                if 'alert' not in rule:
                    continue
                for what, mutant in mutants(rule):
                    g['rules'][i] = mutant
                    rc, out = run(doc, tmp)
                    g['rules'][i] = rule
                    if rc == 0:
                        survived += 1
                        print('not ok %s: %s: the tests still pass'
                              % (rule['alert'], what))
                    else:
                        killed += 1
                        print('ok %s: %s: the tests fail'
                              % (rule['alert'], what))
        print('mutate.py: %d mutants killed, %d survived'
              % (killed, survived))
        sys.exit(1 if survived or not killed else 0)
    finally:
        shutil.rmtree(tmp)


if __name__ == '__main__':
    main()
