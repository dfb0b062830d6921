"""Summarizes compare-builds.sh's results in a directory: old against new, the median of the rounds per row,
the ratio new / old and each round's ratio.

Throughput (ThroughputBenchmark's CSV files, <old|new>-<round>.csv): ops/s, allocation per operation and
latency per cell. JMH (ChainBenchmark's JSON files, <old|new>-<bench>-<executor>-<round>.json): the median
of each fork's sample distribution.
"""
import collections
import csv
import glob
import json
import statistics
import sys


def fmt_ops(x):
    return f'{x:,.0f}'


def fmt_bytes(b):
    return f'{b / 1024:.1f} KB' if b >= 10_000 else f'{b:,.0f} B'


def fmt_us(us):
    return f'{us / 1000:,.1f} ms' if us >= 10_000 else f'{us:,.0f} µs'


def ratios(old, new):
    """Each round's new / old, by round number."""
    o, n = dict(old), dict(new)
    return ' '.join(f'{n[r] / o[r]:.2f}' for r in sorted(o) if r in n and o[r])


def throughput(directory):
    rows = collections.defaultdict(lambda: collections.defaultdict(list))  # cell -> build -> [row]
    order = []
    errors = []
    for f in sorted(glob.glob(directory + '/*.csv')):
        which, rnd = f.split('/')[-1][:-len('.csv')].split('-')
        for row in csv.DictReader(open(f)):
            cell = (row['variant'], int(row['connections']), int(row['in_flight']))
            if cell not in order:
                order.append(cell)
            row['round'] = int(rnd)
            rows[cell][which].append(row)
            if row['error']:
                errors.append(f'{which} round {rnd} {cell}: {row["error"]}')
    print('| variant | conns | in flight | old ops/s | new ops/s | new ÷ old | per round | CPU/op old / new | CPU new ÷ old'
          ' | old alloc/op | new alloc/op | alloc new ÷ old | old p50 / p99 | new p50 / p99 |')
    print('| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for cell in order:
        old, new = rows[cell]['old'], rows[cell]['new']
        if not old or not new:
            continue

        def med(rs, key):
            return statistics.median(float(r[key]) for r in rs)

        def per_round(rs, key):
            return [(r['round'], float(r[key])) for r in rs]

        oo, no = med(old, 'ops_per_s'), med(new, 'ops_per_s')
        ob, nb = med(old, 'bytes_per_op'), med(new, 'bytes_per_op')
        # CPU time per operation (the whole process): runs before the column existed have none
        oc = med(old, 'cpu_us_per_op') if all(r.get('cpu_us_per_op') for r in old) else float('nan')
        nc = med(new, 'cpu_us_per_op') if all(r.get('cpu_us_per_op') for r in new) else float('nan')
        print(f'| {cell[0]} | {cell[1]} | {cell[2]} | {fmt_ops(oo)} | {fmt_ops(no)} | {no / oo:.2f} | '
              f'{ratios(per_round(old, "ops_per_s"), per_round(new, "ops_per_s"))} | {fmt_us(oc)} / {fmt_us(nc)} | '
              f'{nc / oc:.2f} | {fmt_bytes(ob)} | {fmt_bytes(nb)} | '
              f'{nb / ob:.2f} | {fmt_us(med(old, "p50_us"))} / {fmt_us(med(old, "p99_us"))} | '
              f'{fmt_us(med(new, "p50_us"))} / {fmt_us(med(new, "p99_us"))} |')
    if errors:
        print('\nErrors:')
        for e in errors:
            print('- ' + e)


def jmh(directory):
    runs = collections.defaultdict(list)
    for f in sorted(glob.glob(directory + '/*.json')):
        which, bench, ex, rnd = f.split('/')[-1][:-len('.json')].split('-')
        d = json.load(open(f))[0]['primaryMetric']
        runs[(bench, ex, which)].append((int(rnd), d['scorePercentiles']['50.0'], d['score']))
    print('| benchmark / executor | old median (µs) | new median (µs) | new ÷ old | per round | means old / new (µs) |')
    print('| --- | ---: | ---: | ---: | --- | --- |')
    for bench in sorted({k[0] for k in runs}):
        for ex in ['direct', 'virtual']:
            o, n = sorted(runs[(bench, ex, 'old')]), sorted(runs[(bench, ex, 'new')])
            if not o or not n:
                continue
            om, nm = statistics.median(x[1] for x in o), statistics.median(x[1] for x in n)
            per_round = ratios([(x[0], x[1]) for x in o], [(y[0], y[1]) for y in n])
            means = f'{statistics.mean(x[2] for x in o):.1f} / {statistics.mean(x[2] for x in n):.1f}'
            print(f'| {bench} / {ex} | {om:.1f} | {nm:.1f} | {nm / om:.2f} | {per_round} | {means} |')


if glob.glob(sys.argv[1] + '/*.csv'):
    throughput(sys.argv[1])
if glob.glob(sys.argv[1] + '/*.json'):
    jmh(sys.argv[1])
