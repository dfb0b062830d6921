"""Summarizes compare-builds.sh's JMH JSON files: median of the forks' medians per row, ratio, per-round ratios."""
import collections
import glob
import json
import statistics
import sys

runs = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    which, bench, ex, rnd = f.split('/')[-1][:-len('.json')].split('-')
    d = json.load(open(f))[0]['primaryMetric']
    runs[(bench, ex, which)].append((int(rnd), d['scorePercentiles']['50.0'], d['score']))
print('| benchmark / executor | before (µs) | now (µs) | ratio | per-round ratios | means before / now |')
print('| --- | ---: | ---: | ---: | --- | --- |')
for bench in sorted({k[0] for k in runs}):
    for ex in ['direct', 'virtual']:
        b, n = sorted(runs[(bench, ex, 'before')]), sorted(runs[(bench, ex, 'now')])
        if not b or not n:
            continue
        bm, nm = statistics.median(x[1] for x in b), statistics.median(x[1] for x in n)
        per_round = ' '.join(f'{y[1] / x[1]:.2f}' for x, y in zip(b, n))
        means = f'{statistics.mean(x[2] for x in b):.1f} / {statistics.mean(x[2] for x in n):.1f}'
        print(f'| {bench} / {ex} | {bm:.1f} | {nm:.1f} | {nm / bm:.2f} | {per_round} | {means} |')
