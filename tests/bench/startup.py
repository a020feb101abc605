# startup.py N CMD... -- runs CMD N times (output discarded) and prints the
# medians of its CPU time (user + system, from getrusage, to the
# microsecond) and of its wall time, in milliseconds: the fixed cost of
# a run, which /usr/bin/time gives only to 10 ms.
import resource, statistics, subprocess, sys, time

n = int(sys.argv[1])
cmd = sys.argv[2:]
cpu, wall = [], []
for _ in range(n):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    wall.append(time.perf_counter() - t0)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
print("%.2f %.2f" % (statistics.median(cpu) * 1e3, statistics.median(wall) * 1e3))
