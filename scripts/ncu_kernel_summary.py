#!/usr/bin/env python3
"""Sums an Nsight Compute CSV (ncu --csv --print-units base, one row per kernel and metric) per kernel name.

Usage: scripts/ncu_kernel_summary.py NCU.csv
Reads gpu__time_duration.sum and, where profiled, dram__bytes_read.sum; prints a markdown table: launches,
total and mean microseconds, share of the summed time and the DRAM read rate (TB/s) per kernel, then the sum.
Kernel names lose their argument lists, anonymous namespaces and the music3::ops:: prefix. Exit 1 when the CSV holds no timed kernel.
"""
import collections
import csv
import re
import sys

TIME_NS = {"ns": 1, "nsecond": 1, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6}
BYTES = {"byte": 1, "B": 1, "Kbyte": 1e3, "KB": 1e3, "Mbyte": 1e6, "MB": 1e6, "Gbyte": 1e9, "GB": 1e9}


def main(path):
    lines = open(path).read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        print(f"{path}: no ncu CSV header (\"ID\", ...)", file=sys.stderr)
        return 1
    time_ns = collections.defaultdict(float)
    read_bytes = collections.defaultdict(float)
    count = collections.Counter()
    for r in csv.DictReader(lines[start:]):
        name = r["Kernel Name"].replace("(anonymous namespace)::", "")
        name = re.sub(r"\(.*", "", name).replace("music3::ops::", "").strip()
        name = re.sub(r"\s+", " ", name)[:60]
        value = float(r["Metric Value"].replace(",", ""))
        if r["Metric Name"] == "gpu__time_duration.sum":
            time_ns[name] += value * TIME_NS.get(r["Metric Unit"], 1)
            count[name] += 1
        elif r["Metric Name"] == "dram__bytes_read.sum":
            read_bytes[name] += value * BYTES.get(r["Metric Unit"], 1)
    if not time_ns:
        print(f"{path}: no gpu__time_duration.sum rows", file=sys.stderr)
        return 1
    all_ns = sum(time_ns.values())
    print("| kernel (each node alone) | launches | total us | mean us | share | DRAM read TB/s |")
    for name, ns in sorted(time_ns.items(), key=lambda kv: -kv[1]):
        rate = "%.3f" % (read_bytes[name] / ns / 1e3) if name in read_bytes and ns > 0 else "-"
        print("| %s | %d | %.1f | %.2f | %.1f%% | %s |" % (name, count[name], ns / 1e3, ns / 1e3 / count[name],
                                                          100 * ns / all_ns, rate))
    total_rate = "%.3f" % (sum(read_bytes.values()) / all_ns / 1e3) if read_bytes else "-"
    print("| all | %d | %.1f | | | %s |" % (sum(count.values()), all_ns / 1e3, total_rate))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) == 2 else 1)
    sys.exit(main(sys.argv[1]))
