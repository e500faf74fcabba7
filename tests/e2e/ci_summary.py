#!/usr/bin/python3
"""
ci_summary.py CI_TXT CI_DIR SERIES -- what the statistical tests print and
assert, from the `ci --json` outputs that lib.sh's ci_timed kept: per kind
of commit (the first word of each CI_TXT line), one line

    KIND N EXIT0 EXIT1 OTHER FLAGGED MEDIAN_S P95_S MAX_S MEAN_PAIRS MAX_PAIRS

where FLAGGED counts the runs whose SERIES was judged a regression, and a
line "detail KIND ..." with each run's verdict/confirmation/pairs/change.
"""
import json
import statistics
import sys


def quantile(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]


def main():
    rows = [line.split() for line in open(sys.argv[1])]
    for kind in dict.fromkeys(r[0] for r in rows):
        r = [x for x in rows if x[0] == kind]
        secs = [float(x[3]) for x in r]
        rcs = [int(x[2]) for x in r]
        pairs, flagged, detail = [], 0, []
        for x in r:
            try:
                d = json.load(open(f"{sys.argv[2]}/{kind}-{x[1]}.json"))
            except ValueError:
                detail.append("no-json")
                continue
            pairs.append((d.get("confirmation") or {}).get("pairs", 0))
            w = {y["series"]: y for y in d["results"]}.get(sys.argv[3])
            if not w:
                detail.append("no-series")
                continue
            flagged += w["verdict"] == "regression"
            c = w.get("confirmation") or {}
            change = c.get("delta") if c else w.get("delta")
            detail.append(f'{w["verdict"]}/{c.get("status", "-")}/{c.get("pairs", 0)}p/'
                          f'{100 * (change or 0):+.1f}%')
        print(kind, len(r), rcs.count(0), rcs.count(1), len(r) - rcs.count(0) - rcs.count(1),
              flagged, f"{statistics.median(secs):.1f}", f"{quantile(secs, 0.95):.1f}",
              f"{max(secs):.1f}", f"{statistics.mean(pairs) if pairs else 0:.1f}",
              max(pairs) if pairs else 0)
        print("detail", kind, " ".join(detail))


main()
