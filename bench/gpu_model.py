#!/usr/bin/env python3
"""Performance model of the local layer's cuda target (docs/performance_model.md).

For each smoother, local fine level L (n = 2^L + 1 nodes per macro side), macro count and
precision, it lists the operations one local solve queues -- the kernels, memsets and copies of
accel/cuda/cuda_local_multigrid.cu, level by level down to the coarse level of the local
hierarchy -- with the bytes each moves, and predicts

    T_loc = sum over kernels of max(bytes / B_eff, latency)     (device work)
          + launch overhead: the V-cycle's kernels + memsets at t_launch,graph each, plus the
            graph launch, the 2 copies and (float) the 2 conversions at t_launch,eager
          + PCIe bytes / B_pcie                                  (transfers)
          [+ host staging bytes / B_host, --staging memcpy only: a caller pin_io() did not name]

on an H100 and an H200, against the cpu target's measured time of the same solve on this
machine (quilt-bench-local --cycle): S_loc = T_cpu / T_loc. Standard library only; runs under
/usr/bin/python3.

    bench/gpu_model.py                      measure the cpu times (about 3 minutes) and print
                                            the table
    bench/gpu_model.py --quick              L = 7, 8 only (about a minute)
    bench/gpu_model.py --no-measure         the model alone (no cpu column)
    bench/gpu_model.py --check [--launch-counter build/bin/quilt-cuda-launch-count]
                                            self-checks (ctest gpu_model_check)
See --help for the rest (--cpu-times FILE, --save-cpu-times FILE, --json FILE, --variants,
--launch eager, --staging memcpy).
"""

import argparse
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# --------------------------------------------------------------------------------------------
# Parameters. Every number is a stated assumption with its source; --bw-fraction, --t-launch,
# --pcie-bw and --host-bw override them (e.g. with the first measurements of bench/gpu_check.sh).
# --------------------------------------------------------------------------------------------

# Achievable fraction of the HBM peak for the streaming kernels (one thread per row, unit-stride
# loads). NVIDIA's peaks are pin bandwidths; a coalesced load stream reaches about 0.8 of them on
# Hopper (Nsight Compute: 2.8 TB/s = 84 % on an H100 SXM, https://mikamirai.com/blog/gpu-memory-
# bandwidth/; issue 15 quotes ~2.6 TB/s = 78 %). 0.8 is between the two. quilt-bench-cuda's
# device-to-device copy row measures the real figure on the first GPU run.
BW_FRACTION = 0.8

# Launch overhead per stream operation (kernel, memset, copy). Eager launches into a stream: the
# CUDA.jl documentation measures 80 small kernels at 260 us launched one by one and 70 us as one
# replayed CUDA graph (https://cuda.juliagpu.org/dev/usage/graphs/), i.e. 3.3 us and 0.9 us per
# kernel; NVIDIA's graph guide describes the per-launch host cost the graph removes
# (https://docs.nvidia.com/cuda/cuda-programming-guide/04-special-topics/cuda-graphs.html).
# The cuda target replays its V-cycle as one CUDA graph (accel/cuda/cuda_graph.cuh): the cycle's
# operations cost the graph figure each, the graph launch itself and the operations outside the
# cycle (copies, conversions) the eager one. --launch eager models the code before the graph.
T_LAUNCH = {"eager": 3.3e-6, "graph": 0.9e-6}

# PCIe Gen5 x16 (H100 SXM5 and H200 SXM both attach to the host by it): 64 GB/s per direction on
# the wire; pinned DMA reaches about 50 GB/s of it (128b/130b coding and the packet headers of
# 256-byte payloads). The defect comes in and the correction goes out in double, one after the
# other on one stream, so their times add.
PCIE_BW = 50e9

# Host staging (--staging memcpy only): for vectors that pin_io() did not register, solve()
# copies the defect into its pinned buffer and the correction out of it with std::memcpy on one
# core (8 bytes read + 8 written per unknown, each way). The global multigrid's vectors are
# registered, so its solves stage nothing (the default, --staging registered). B_host = one
# core's streaming bandwidth: 27 GB/s is this machine's single-core triad (quilt-bench-local,
# 2026-11-23, AMD EPYC, 3 x 427 MiB arrays: 27.16 GB/s), standing in for the GPU host's core.
HOST_BW = 27e9

# Latencies of the dependent steps of the latency-bound kernels, in cycles of a 1.755 GHz SM
# clock (the clock Chips and Cheese saw an H100 hold under load: https://chipsandcheese.com/2023/
# 07/02/nvidias-h100-funny-l2-and-tons-of-bandwidth/). Load-to-use latencies on Hopper: ~30
# cycles for an L1 hit (used for PCR's shared-memory steps), ~600 for HBM
# (https://fp4-site.pages.dev/silicon/gpu-memory-hierarchy/, consistent with the Chips and
# Cheese pointer-chasing curves).
# H200 is the same GH100 die with HBM3e, so the same SM latencies are used for both.
CLOCK_HZ = 1.755e9
T_L1 = 30 / CLOCK_HZ
T_DRAM = 600 / CLOCK_HZ

# Both devices: 132 SMs, at most 2048 resident threads per SM (compute capability 9.0, CUDA
# programming guide, "Technical Specifications per Compute Capability").
SMS = 132
THREADS_PER_SM = 2048

DEVICES = {
    # NVIDIA H100 datasheet: H100 SXM 80 GB, HBM3, 3.35 TB/s.
    "H100": {"name": "H100 SXM5 80 GB (HBM3, 3.35 TB/s)", "peak_bw": 3.35e12},
    # NVIDIA H200 datasheet: H200 SXM 141 GB, HBM3e, 4.8 TB/s.
    "H200": {"name": "H200 SXM 141 GB (HBM3e, 4.8 TB/s)", "peak_bw": 4.8e12},
}

# Smoothers and the cycle each runs by default: V(4,4) for Jacobi (bench/bench_cuda_local.cpp,
# issue 15's estimate), V(1,1) for the others (LocalSolverParams' default, and the velocity's ILU
# in the shipped flow configs, which set no smoothing keys). The cuda target has the 4-colour
# and zebra forms of gs/sor/ssor/trigs-*/aditrigs only, so those run with ordering = colour;
# ilu runs in lexicographic order (host ILU(0), device wavefront triangular solves).
SMOOTHERS = ["jacobi", "gs", "sor", "ssor", "trigs-x", "trigs-y", "aditrigs", "ilu"]
DEFAULT_CYCLE = {s: (4, 4) if s == "jacobi" else (1, 1) for s in SMOOTHERS}
PLANNED = set()  # smoothers modelled before the cuda target has them (none now)
COLOUR = {"gs", "sor", "ssor", "trigs-x", "trigs-y", "aditrigs"}


def ordering(smoother):
    return "colour" if smoother in COLOUR else "lexicographic"


# --------------------------------------------------------------------------------------------
# The operations of one solve, as accel/cuda/cuda_local_multigrid.cu queues them.
# --------------------------------------------------------------------------------------------

class Op:
    """One stream operation (kind kernel, fill or copy) or host copy (kind host)."""

    def __init__(self, kind, name, level, nbytes, latency=0.0, in_cycle=True):
        self.kind = kind
        self.name = name
        self.level = level
        self.bytes = nbytes  # device bytes (kernel, fill), PCIe bytes (copy), host bytes (host)
        self.latency = latency  # seconds of dependent steps (0: bandwidth alone)
        self.in_cycle = in_cycle


class Solve:
    """One solve(): defect in, one V(pre, post) cycle from x = 0, correction out (digits = 0).

    Bytes are compulsory traffic: every array a kernel touches counted once, at the 32-byte
    sector granularity of the memory system (a kernel that touches every other element of a grid
    line moves the whole line). Row counts: rows(k) = macros * n_k^2, n_k = 2^k + 1.
    """

    def __init__(self, smoother, pre, post, level, coarse, macros, elem, staging="registered"):
        if smoother not in SMOOTHERS:
            raise ValueError("unknown smoother " + smoother)
        if not 0 <= coarse < level:
            raise ValueError("need 0 <= coarse level < level")
        self.smoother, self.pre, self.post = smoother, pre, post
        self.level, self.coarse, self.macros, self.T = level, coarse, macros, elem
        self.staging = staging
        self.ops = []
        self._solve()

    # geometry
    def n(self, k):
        return 2 ** k + 1

    def rows(self, k):
        return self.macros * self.n(k) ** 2

    def add(self, *args, **kw):
        self.ops.append(Op(*args, **kw))

    # kernels (bytes as each kernel in band_kernels.cuh / smoother_kernels.cuh touches its arrays)
    def k_band(self, name, k, arrays, mask=False):
        self.add("kernel", name, k, (arrays * self.T + (1 if mask else 0)) * self.rows(k))

    def k_memset(self, k):
        self.add("fill", "memset x", k, self.T * self.rows(k))

    def k_colour_sweep(self, k):
        # colour_gs_kernel per colour (ci, cj): b, invdiag and the 9 bands at the colour's rows
        # j = cj (mod 2) (every other node of a row, so whole rows of sectors), x read on every
        # row (rows j-1, j, j+1), x written on the colour's rows.
        n, T, m = self.n(k), self.T, self.macros
        for colour in range(4):
            cj = colour // 2
            own = (n - cj + 1) // 2 * n * m
            self.add("kernel", "colour_gs", k, (11 * own + n * n * m + own) * T)

    def zebra_latency(self, k, systems):
        # zebra_line_kernel (accel/cuda/pcr.cuh): parallel cyclic reduction, the lines of one
        # parity in blocks of ~256 equations (short lines share a block; a line of 1025 gets 288
        # threads of 4 equations each). A block waits for its rows' HBM loads once, then runs
        # ceil(log2 n) steps of shared-memory reads between two barriers (~3 L1-class latencies
        # each). Blocks per SM: 2048 threads, 228 KB of shared memory, at most 32 blocks.
        n = self.n(k)
        per_block = max(1, 256 // max(1, n - 1))
        equations = per_block * n
        threads = -(-(-(-equations // 4)) // 32) * 32
        smem = 3 * equations * self.T
        resident = max(1, min(32, THREADS_PER_SM // threads, int(228e3 // smem)))
        blocks = -(-systems // per_block)
        waves = math.ceil(blocks / (SMS * resident))
        steps = math.ceil(math.log2(n)) if n > 1 else 0
        return waves * (T_DRAM + steps * 3 * T_L1)

    def k_zebra_sweep(self, k, name):
        # zebra_line_kernel per parity: its lines' rows read b and all 9 bands (3, 4, 5 for the
        # line's system, 0-2 and 6-8 for the coupling to the neighbouring lines) and write x
        # (omega = 1, the default: no read of x); the neighbouring lines (the other parity) are
        # read from x.
        n, T, m = self.n(k), self.T, self.macros
        for parity in range(2):
            lines = (n - parity + 1) // 2
            own = lines * n * m
            other = (n - lines) * n * m
            self.add("kernel", name, k, (11 * own + other) * T,
                     self.zebra_latency(k, lines * m))

    def k_transpose(self, k, what):
        self.k_band("transpose " + what, k, 2)

    def k_ilu_sweep(self, k, from_zero):
        # smooth_ilu: v = b + R x (ilu_remainder_kernel: R's 4 bands, b and x read, v written;
        # from x = 0 the sweep reads b instead), then ilu_sweep_kernel
        # (accel/cuda/ilu_kernels.cuh): forward L c = v (4 lower bands and v read, c written),
        # backward U c = c with x <- x + omega (c - x) (1 / U_rr and 4 upper bands read, c read
        # and written, x read and written): 15 arrays. Wavefront over the segments of a line
        # (IluLineSplit: a head of 2 nodes, blocks of 8, a tail), front t = k + 2j: S + 2 (n - 1)
        # fronts per triangular solve for S segments per line, one block per macro with a thread
        # per segment of the longest front, one barrier and one HBM round trip per front and
        # pass (a segment's loads are independent of each other).
        n = self.n(k)
        blocks = (n - 4) // 8 if n >= 12 else 0
        segments = blocks + 2
        steps = 2 * (segments + 2 * (n - 1))
        longest = (segments + 1) // 2  # most segments on one front
        threads = min(1024, -(-longest // 32) * 32)
        passes = math.ceil(longest / threads)
        waves = math.ceil(self.macros / (SMS * min(32, THREADS_PER_SM // threads)))
        if not from_zero:
            self.k_band("ilu remainder", k, 7)
        self.add("kernel", "ilu sweep", k, 15 * self.T * self.rows(k),
                 waves * steps * passes * T_DRAM)

    def lu_latency(self):
        # lu_solve_kernel, one block per macro: forward substitution over N - 1 columns and the
        # column-oriented backward substitution over N columns (review finding F2), one barrier
        # and one global load of the column per step.
        N = self.n(self.coarse) ** 2
        waves = math.ceil(self.macros / (SMS * 32))  # 32 resident blocks per SM
        return waves * (2 * N - 1) * T_DRAM

    # smoothers (CudaLocalMultigrid::smooth / smooth_lines)
    def smooth(self, k, steps, x_is_zero):
        s = self.smoother
        if s == "jacobi":
            for step in range(steps):
                if step == 0 and x_is_zero:
                    self.k_band("jacobi_from_zero", k, 3)  # b, invdiag read; y written
                else:
                    self.k_band("jacobi", k, 13)  # 9 bands, x, b, invdiag read; y written
            if steps == 0 and x_is_zero:
                self.k_memset(k)
            return
        if x_is_zero:
            self.k_memset(k)
        if s in ("gs", "sor", "ssor"):
            for _ in range(steps):
                for _ in range(2 if s == "ssor" else 1):
                    self.k_colour_sweep(k)
            return
        if s == "ilu":
            for step in range(steps):
                self.k_ilu_sweep(k, step == 0 and x_is_zero)
            return
        y_lines = s in ("trigs-y", "aditrigs")
        if y_lines and steps > 0:
            self.k_transpose(k, "b")
        for _ in range(steps):
            if s in ("trigs-x", "aditrigs"):
                self.k_zebra_sweep(k, "zebra x-lines")
            if y_lines:
                self.k_transpose(k, "x")
                self.k_zebra_sweep(k, "zebra y-lines")
                self.k_transpose(k, "x back")

    def vcycle(self, k, x_is_zero):
        if k == self.coarse:
            N = self.n(k) ** 2
            m, T = self.macros, self.T
            # factors, permutation (int), Dirichlet mask, b, x
            nbytes = m * (N * N * T + N * 4 + N + 2 * N * T)
            self.add("kernel", "lu_solve", k, nbytes, self.lu_latency())
            return
        self.smooth(k, self.pre, x_is_zero)
        self.k_band("defect", k, 12, mask=True)  # 9 bands, x, b, mask read; d written
        # restrict: d_f read once (every fine node is in some coarse node's gather), the coarse
        # mask read and b_c written.
        rf, rc = self.rows(k), self.rows(k - 1)
        self.add("kernel", "restrict", k, rf * self.T + rc * (self.T + 1))
        self.vcycle(k - 1, True)
        # prolongate_add: x_c read, x_f read and written.
        self.add("kernel", "prolongate_add", k, rc * self.T + 2 * rf * self.T)
        self.smooth(k, self.post, False)

    def _solve(self):
        # staging = registered: the global multigrid's vectors page-locked (LocalSolver::pin_io,
        # issue 15's F1), so the DMA reads and writes them directly; memcpy: any other caller's
        # vectors (and the code before F1), std::memcpy into and out of the pinned buffer.
        R = self.rows(self.level)
        if self.staging == "memcpy":
            self.add("host", "defect to pinned staging", self.level, 16 * R, in_cycle=False)
        self.add("copy", "defect H2D", self.level, 8 * R, in_cycle=False)
        if self.T == 4:
            self.add("kernel", "convert double->float", self.level, 12 * R, in_cycle=False)
        self.vcycle(self.level, True)
        if self.T == 4:
            self.add("kernel", "convert float->double", self.level, 12 * R, in_cycle=False)
        self.add("copy", "correction D2H", self.level, 8 * R, in_cycle=False)
        if self.staging == "memcpy":
            self.add("host", "correction from pinned staging", self.level, 16 * R,
                     in_cycle=False)

    # summaries
    def cycle_ops(self):
        return [o for o in self.ops if o.in_cycle]

    def cycle_bytes(self):
        return sum(o.bytes for o in self.cycle_ops())

    def cycle_launches(self):
        return sum(1 for o in self.cycle_ops() if o.kind in ("kernel", "fill"))

    def counts(self):
        """Stream operations of the whole solve, by kind (as the emulation counts them)."""
        c = {"kernel": 0, "fill": 0, "copy": 0}
        for o in self.ops:
            if o.kind in c:
                c[o.kind] += 1
        return c

    def levels_breakdown(self):
        """Bytes and launches of the V-cycle per level, finest first."""
        out = []
        for k in range(self.level, self.coarse - 1, -1):
            ops = [o for o in self.cycle_ops() if o.level == k]
            out.append((k, sum(o.bytes for o in ops),
                        sum(1 for o in ops if o.kind in ("kernel", "fill"))))
        return out

    def predict(self, device, params):
        """Seconds of one solve on device, split into its terms. params["t_launch"] is the cost of
        an operation of the cycle; with params["graph"] the cycle is one replayed graph, so the
        operations outside it and the graph launch cost params["t_launch_eager"]."""
        bw = DEVICES[device]["peak_bw"] * params["bw_fraction"]
        graph = params.get("graph", False)
        outside = params.get("t_launch_eager", params["t_launch"]) if graph else params["t_launch"]
        terms = ("bandwidth", "latency", "launch", "transfer")
        t = dict.fromkeys(terms, 0.0)
        cycle = dict.fromkeys(terms[:3], 0.0)  # the V-cycle's own operations
        for o in self.ops:
            part = {}
            if o.kind in ("kernel", "fill"):
                # max(bytes / B_eff, latency), booked to the term that wins
                stream = o.bytes / bw
                part["latency" if o.latency > stream else "bandwidth"] = max(stream, o.latency)
                part["launch"] = params["t_launch"] if o.in_cycle else outside
            elif o.kind == "copy":
                part["transfer"] = o.bytes / params["pcie_bw"]
                part["launch"] = outside
            else:
                part["transfer"] = o.bytes / params["host_bw"]
            for k, v in part.items():
                t[k] += v
                if o.in_cycle:
                    cycle[k] += v
        if graph:
            t["launch"] += outside
            cycle["launch"] += outside
        t["total"] = sum(t[k] for k in terms)
        t["bound"] = max(terms, key=lambda k: t[k])
        t["cycle"] = sum(cycle.values())
        t["cycle_bound"] = max(cycle, key=lambda k: cycle[k])
        return t


# --------------------------------------------------------------------------------------------
# cpu times: quilt-bench-local --cycle on this machine
# --------------------------------------------------------------------------------------------

# Peak resident memory of quilt-bench-local --cycle in double per fine-level unknown, measured
# here with /usr/bin/time at L = 10, 8 macros: 240 B (jacobi) to 355 B (aditrigs: the transposed
# bands and factors); 400 B leaves a margin. Cells whose estimate exceeds --max-memory-gib are
# extrapolated instead of run.
CPU_BYTES_PER_UNKNOWN = 400


def find_bench(build):
    for sub in ("bin", "bench", "."):
        path = os.path.join(build, sub, "quilt-bench-local")
        if os.access(path, os.X_OK):
            return path
    sys.exit("gpu_model.py: no quilt-bench-local under %s (build it: cmake --build %s --target "
             "quilt-bench-local, or pass --build DIR or --cpu-times FILE)" % (build, build))


ROW = re.compile(r"^\|\s*([\w-]+)\s*\|\s*(\w+)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|"
                 r"\s*(\d+)\s*\|\s*(\w+)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*([0-9.eE+-]+)\s*\|")


def parse_rows(text):
    """{(smoother, ordering, pre, post, L, macros, precision, coarse): seconds}"""
    out = {}
    for line in text.splitlines():
        m = ROW.match(line.strip())
        if m:
            g = m.groups()
            key = (g[0], g[1], int(g[2]), int(g[3]), int(g[4]), int(g[5]), g[6], int(g[7]))
            out[key] = float(g[9])
    return out


def cpu_key(smoother, cycle, level, macros, args):
    order = ordering(smoother) if args.cpu_ordering == "same" else "lexicographic"
    return (smoother, order, cycle[0], cycle[1], level, macros, args.cpu_precision,
            args.coarse_level)


def measure(cells, args):
    """Runs quilt-bench-local --cycle for every cell that fits --max-memory-gib, one at a time
    under flock /tmp/quilt-timing.lock (no two timings at once on a shared machine)."""
    bench = find_bench(args.build)
    found = {}
    lines = []
    for key in cells:
        smoother, order, pre, post, level, macros, precision, coarse = key
        unknowns = macros * (2 ** level + 1) ** 2
        if unknowns * CPU_BYTES_PER_UNKNOWN > args.max_memory_gib * 2 ** 30:
            continue
        # Best of several solves: the 2 cores are shared, and the minimum is the run least
        # disturbed by others.
        reps = 8 if level <= 8 else 4 if level == 9 else 3
        if args.quick:
            reps = 2
        cmd = ["flock", args.lock, bench, "--cycle", smoother, order, str(pre), str(post),
               str(level), str(macros), precision, str(coarse), str(reps)]
        print("  " + " ".join(cmd[3:]), file=sys.stderr, flush=True)
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        lines += [ln for ln in out.splitlines() if ln.startswith("|")]
        found.update(parse_rows(out))
    return found, lines


def complete(times, cells):
    """Fills the cells not measured by linear extrapolation in unknowns from the same smoother
    and level with the most macros measured (the cpu target loops over all macros of a level
    for each operation, so at equal n its time is linear in the macro count once the batch is
    out of cache). Returns {key: (seconds, extrapolated)}."""
    out = {}
    for key in cells:
        if key in times:
            out[key] = (times[key], False)
            continue
        same = [k for k in times if k[:5] == key[:5] and k[6:] == key[6:]]
        if same:
            src = max(same, key=lambda k: k[5])
            out[key] = (times[src] * key[5] / src[5], True)
    return out


# --------------------------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------------------------

def fmt_bytes(b):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= scale:
            return "%.3g %s" % (b / scale, unit)
    return "%d B" % b


def fmt_ms(s):
    return "%.3g" % (s * 1e3)


def build_rows(args, cpu):
    rows = []
    params = {"bw_fraction": args.bw_fraction, "t_launch": args.t_launch,
              "t_launch_eager": T_LAUNCH["eager"], "graph": args.launch == "graph",
              "pcie_bw": args.pcie_bw, "host_bw": args.host_bw}
    elem = 4 if args.precision == "float" else 8
    for smoother in args.smoothers:
        cycle = tuple(args.cycle) if args.cycle else DEFAULT_CYCLE[smoother]
        for level in args.levels:
            for macros in args.macros:
                model = Solve(smoother, cycle[0], cycle[1], level, args.coarse_level, macros, elem,
                              args.staging)
                pred = {d: model.predict(d, params) for d in DEVICES}
                key = cpu_key(smoother, cycle, level, macros, args)
                t_cpu, extrapolated = cpu.get(key, (None, False))
                rows.append({
                    "smoother": smoother, "planned": smoother in PLANNED,
                    "cycle": "V(%d,%d)" % cycle, "level": level, "macros": macros,
                    "coarse_level": args.coarse_level, "precision": args.precision,
                    "unknowns": model.rows(level), "bytes_per_cycle": model.cycle_bytes(),
                    "launches_per_cycle": model.cycle_launches(),
                    "stream_ops_per_solve": model.counts(),
                    "pcie_bytes": sum(o.bytes for o in model.ops if o.kind == "copy"),
                    "levels": model.levels_breakdown(),
                    "t_cpu": t_cpu, "t_cpu_extrapolated": extrapolated,
                    "cpu_precision": args.cpu_precision, "cpu_ordering": key[1],
                    "predicted": pred,
                    "s_loc": {d: (t_cpu / pred[d]["total"] if t_cpu else None) for d in DEVICES},
                })
    return rows


def markdown(rows):
    out = ["| smoother | cycle | L | macros | unknowns | bytes/V-cycle | launches/V-cycle | "
           "T_cpu measured [ms] | T_loc H100 [ms] | T_loc H200 [ms] | S_loc H100 | S_loc H200 | "
           "H100: solve bound (cycle bound) |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        name = r["smoother"] + (" (planned)" if r["planned"] else "")
        if r["t_cpu"] is None:
            cpu = s100 = s200 = "-"
        else:
            mark = "*" if r["t_cpu_extrapolated"] else ""
            cpu = fmt_ms(r["t_cpu"]) + mark
            s100 = "%.1f%s" % (r["s_loc"]["H100"], mark)
            s200 = "%.1f%s" % (r["s_loc"]["H200"], mark)
        h100 = r["predicted"]["H100"]
        out.append("| %s | %s | %d | %d | %d | %s | %d | %s | %s | %s | %s | %s | %s |" % (
            name, r["cycle"], r["level"], r["macros"], r["unknowns"],
            fmt_bytes(r["bytes_per_cycle"]), r["launches_per_cycle"], cpu,
            fmt_ms(r["predicted"]["H100"]["total"]), fmt_ms(r["predicted"]["H200"]["total"]),
            s100, s200, "%s %.0f%% (%s)" % (
                h100["bound"], 100 * h100[h100["bound"]] / h100["total"], h100["cycle_bound"])))
    return "\n".join(out)


def inventory(args):
    """The operations of one solve on the finest level, by kernel: launches and bytes per row of
    that level (own rows; restriction and prolongation include their coarse-side arrays), for
    every smoother at its default cycle."""
    elem = 4 if args.precision == "float" else 8
    L = max(args.levels)
    out = ["| smoother | cycle | operation (finest level, L = %d) | launches | bytes per row "
           "| latency term [us] |" % L, "|---|---|---|---:|---:|---:|"]
    for smoother in args.smoothers:
        cycle = tuple(args.cycle) if args.cycle else DEFAULT_CYCLE[smoother]
        model = Solve(smoother, cycle[0], cycle[1], L, args.coarse_level, 1, elem,
                      args.staging)
        names = []
        for o in model.ops:
            if o.level == L and o.kind in ("kernel", "fill") and o.in_cycle and o.name not in names:
                names.append(o.name)
        for name in names:
            ops = [o for o in model.ops if o.level == L and o.name == name and o.in_cycle]
            out.append("| %s | V(%d,%d) | %s | %d | %.2f | %s |" % (
                smoother, cycle[0], cycle[1], name, len(ops),
                sum(o.bytes for o in ops) / model.rows(L),
                "%.0f" % (sum(o.latency for o in ops) * 1e6) if any(o.latency for o in ops)
                else "-"))
        lu = [o for o in model.ops if o.name == "lu_solve"][0]
        out.append("| %s | V(%d,%d) | lu_solve (coarse level %d, N = %d, per macro) | 1 | "
                   "%d bytes | %.1f |" % (smoother, cycle[0], cycle[1], args.coarse_level,
                                          model.n(args.coarse_level) ** 2, lu.bytes,
                                          lu.latency * 1e6))
    return "\n".join(out)


def variants(args, cpu):
    """H100: T_loc and S_loc before issue 15's fixes (staging memcpy, eager launches), with F1
    alone (registered vectors) and with F1 and the V-cycle as one CUDA graph (the code now)."""
    runs = []
    for staging, launch in (("memcpy", "eager"), ("registered", "eager"),
                            ("registered", "graph")):
        a = argparse.Namespace(**vars(args))
        a.staging, a.launch, a.t_launch = staging, launch, T_LAUNCH[launch]
        runs.append(build_rows(a, cpu))
    out = ["| smoother | L | macros | T_cpu [ms] | T_loc before F1 [ms] | S_loc | F1 [ms] | S_loc | "
           "F1 + graph (now) [ms] | S_loc | now: solve bound (cycle bound) |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for rows in zip(*runs):
        r = rows[0]
        mark = "*" if r["t_cpu_extrapolated"] else ""
        cells = []
        for x in rows:
            t = x["predicted"]["H100"]["total"]
            cells.append("%s | %s" % (fmt_ms(t), "%.1f%s" % (r["t_cpu"] / t, mark)
                                      if r["t_cpu"] else "-"))
        last = rows[-1]["predicted"]["H100"]
        out.append("| %s%s %s | %d | %d | %s | %s | %s (%s) |" % (
            r["smoother"], " (planned)" if r["planned"] else "", r["cycle"], r["level"],
            r["macros"], fmt_ms(r["t_cpu"]) + mark if r["t_cpu"] else "-", " | ".join(cells),
            last["bound"], last["cycle_bound"]))
    return "\n".join(out)


def header(args, measured_note):
    t = "eager stream launches" if args.launch == "eager" else "one replayed CUDA graph"
    return "\n".join([
        "# gpu_model.py: local solve (defect in, one V-cycle, correction out), cuda target in "
        "%s, coarse level %d" % (args.precision, args.coarse_level),
        "",
        "- %s, %s" % (DEVICES["H100"]["name"], DEVICES["H200"]["name"]),
        "- B_eff = %.2f x peak; t_launch = %.1f us (%s); B_pcie = %.0f GB/s; B_host = %.1f GB/s;"
        " HBM latency %.0f ns, L1 %.0f ns" % (
            args.bw_fraction, args.t_launch * 1e6, t, args.pcie_bw * 1e-9, args.host_bw * 1e-9,
            T_DRAM * 1e9, T_L1 * 1e9),
        "- bytes and launches per V-cycle: device traffic and kernels + memsets of the cycle; "
        "T_loc adds 2 copies, 2 conversion kernels (float) and %s" % (
            "the host staging memcpy (an unregistered caller)" if args.staging == "memcpy" else
            "no host staging (F1: the caller's vectors registered by pin_io)"),
        "- T_cpu: %s" % measured_note,
        ""])


# --------------------------------------------------------------------------------------------
# self-checks (ctest gpu_model_check)
# --------------------------------------------------------------------------------------------

def launches_per_level(smoother, pre, post):
    """Kernels + memsets of one smoothed level of a V-cycle from x = 0, counted from the code's
    structure written out by hand (independent of Solve's recursion): pre-smoothing, defect,
    restriction, prolongation, post-smoothing."""
    per_step = {"jacobi": 1, "gs": 4, "sor": 4, "ssor": 8, "trigs-x": 2, "trigs-y": 4,
                "aditrigs": 6, "ilu": 2}[smoother]
    memset = 0 if smoother == "jacobi" else 1  # Jacobi's first step writes x from b instead
    if smoother == "jacobi" and pre == 0:
        memset = 1
    transposes = (pre > 0) + (post > 0) if smoother in ("trigs-y", "aditrigs") else 0
    # ILU's first sweep from x = 0 takes b as its defect: no defect launch.
    saved = 1 if smoother == "ilu" and pre > 0 else 0
    return memset + transposes + per_step * (pre + post) - saved + 3


def run_checks(args):
    failures = []

    def check(ok, what):
        print(("PASS " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    # 1. Jacobi V(4,4) in float against issue 15's estimate (~586 bytes per unknown): per
    #    smoothed level and own row, 3 T (first step from x = 0) + 7 * 13 T (the other steps) +
    #    12 T + 1 (defect with mask) + T (restriction reads d) + 2 T (prolongation), and per
    #    coarse row (a quarter of the rows) T + 1 (restriction's b_c and mask) + T (prolongation's
    #    x_c); the levels below add a geometric 1/4 + 1/16 + ... -> a factor 4/3.
    T = 4
    per_row = 3 * T + 7 * 13 * T + 12 * T + 1 + T + 2 * T + (T + 1 + T) / 4
    closed = per_row * 4 / 3
    s = Solve("jacobi", 4, 4, 10, 1, 8, T)
    per_unknown = s.cycle_bytes() / s.rows(10)
    check(abs(per_unknown / closed - 1) < 0.01,
          "jacobi V(4,4) float, L = 10: %.1f bytes per unknown per cycle, closed form %.1f" % (
              per_unknown, closed))
    check(abs(per_unknown / 586 - 1) < 0.01,
          "jacobi V(4,4) float, L = 10: %.1f bytes per unknown within 1 %% of issue 15's ~586" %
          per_unknown)

    # 2. Bytes per V-cycle grow by ~4x per level (rows grow as (2n - 1)^2 / n^2 -> 4), and double
    #    moves ~2x the bytes of float.
    for smoother in SMOOTHERS:
        pre, post = DEFAULT_CYCLE[smoother]
        b = [Solve(smoother, pre, post, L, 1, 8, 4).cycle_bytes() for L in range(6, 11)]
        ratios = [b[i + 1] / b[i] for i in range(len(b) - 1)]
        check(all(3.9 < r < 4.1 for r in ratios),
              "%s: bytes per V-cycle ratio per level L = 6..10: %s" % (
                  smoother, ", ".join("%.3f" % r for r in ratios)))
        d = Solve(smoother, pre, post, 10, 1, 8, 8).cycle_bytes()
        check(1.9 < d / b[-1] < 2.0, "%s: double / float bytes at L = 10: %.3f" % (
            smoother, d / b[-1]))

    # 3. Launches per V-cycle = levels * launches_per_level + 1 (the coarse LU), for several
    #    cycles and coarse levels.
    for smoother in SMOOTHERS:
        for pre, post in ((1, 1), (2, 1), (0, 2), (4, 4)):
            for L, c in ((7, 1), (10, 2), (5, 4)):
                model = Solve(smoother, pre, post, L, c, 8, 4).cycle_launches()
                hand = (L - c) * launches_per_level(smoother, pre, post) + 1
                if model != hand:
                    check(False, "%s V(%d,%d) L = %d coarse %d: %d launches, by hand %d" % (
                        smoother, pre, post, L, c, model, hand))
    check(not any("launches, by hand" in f for f in failures),
          "launches per V-cycle = levels x per-level count + 1, every smoother, 4 cycles, "
          "3 hierarchies (jacobi V(4,4): %d per level, issue 15's 'about 11')" %
          launches_per_level("jacobi", 4, 4))

    # 4. Predictions: H200 (more bandwidth, same launch and latency costs) is never slower, the
    #    small levels are launch-bound and Jacobi at L = 10 is bandwidth-bound.
    params = {"bw_fraction": BW_FRACTION, "t_launch": T_LAUNCH["eager"], "pcie_bw": PCIE_BW,
              "host_bw": HOST_BW}
    graph_params = dict(params, t_launch=T_LAUNCH["graph"], t_launch_eager=T_LAUNCH["eager"],
                        graph=True)
    ok = True
    for smoother in SMOOTHERS:
        pre, post = DEFAULT_CYCLE[smoother]
        for L in range(7, 11):
            for m in (8, 40):
                s = Solve(smoother, pre, post, L, 1, m, 4)
                ok &= s.predict("H200", params)["total"] <= s.predict("H100", params)["total"]
    check(ok, "T_loc(H200) <= T_loc(H100) everywhere")
    gs7 = Solve("gs", 1, 1, 7, 1, 8, 4).predict("H100", params)
    check(gs7["cycle_bound"] == "launch", "gs V(1,1), L = 7, 8 macros: V-cycle launch-bound")
    jac10 = Solve("jacobi", 4, 4, 10, 1, 40, 4, "memcpy")
    check(jac10.predict("H100", params)["cycle_bound"] == "bandwidth",
          "jacobi V(4,4), L = 10, 40 macros: V-cycle bandwidth-bound")
    # F1: with the staging memcpy the solve is transfer-bound; without it, the PCIe copies alone
    # (16 bytes per unknown) still outweigh the cycle's HBM traffic (~586 bytes per unknown at
    # ~54x the bandwidth).
    check(jac10.predict("H100", params)["bound"] == "transfer",
          "jacobi V(4,4), L = 10, 40 macros, staged through host memcpy: solve transfer-bound")
    reg = Solve("jacobi", 4, 4, 10, 1, 40, 4, "registered").predict("H100", params)
    pcie = 16 * jac10.rows(10) / PCIE_BW
    check(reg["bound"] == "transfer" and abs(reg["transfer"] / pcie - 1) < 1e-12,
          "registered staging (F1): transfer = the PCIe copies alone (%.1f ms), still the "
          "largest term" % (pcie * 1e3))
    # PCR: each line's n-wide reduction in log2 n steps, so at L = 10 the finest level's zebra
    # launches stream at the bandwidth for 8 macros as for 40; at L = 4 with 8 macros (a few
    # blocks) the HBM round trip and the reduction steps dominate.
    b_h100 = DEVICES["H100"]["peak_bw"] * BW_FRACTION

    def zebra_latency_bound(L, macros):
        ops = [o for o in Solve("trigs-x", 1, 1, L, 1, macros, 4).ops
               if o.level == L and o.name.startswith("zebra")]
        return [o.latency > o.bytes / b_h100 for o in ops]

    check(not any(zebra_latency_bound(10, 8)) and not any(zebra_latency_bound(10, 40)) and
          all(zebra_latency_bound(4, 8)),
          "trigs-x: the finest level's zebra (PCR) launches bandwidth-bound at L = 10 for 8 and "
          "40 macros, latency-bound at L = 4")
    ilu = Solve("ilu", 1, 1, 10, 1, 8, 4).predict("H100", params)
    check(ilu["cycle_bound"] == "latency",
          "ilu V(1,1), L = 10, 8 macros (one block per macro): V-cycle latency-bound")
    # The graph: the same operations, each cheaper to launch, plus one launch of the graph.
    g = Solve("gs", 1, 1, 7, 1, 8, 4)
    eager, replay = g.predict("H100", params), g.predict("H100", graph_params)
    ops = g.cycle_launches()
    want = ops * (T_LAUNCH["eager"] - T_LAUNCH["graph"]) - T_LAUNCH["eager"]
    check(abs((eager["launch"] - replay["launch"]) / want - 1) < 1e-9,
          "gs V(1,1), L = 7: the graph saves %d x (%.1f - %.1f) us - one graph launch = %.0f us" %
          (ops, T_LAUNCH["eager"] * 1e6, T_LAUNCH["graph"] * 1e6, want * 1e6))
    # F2: the column-oriented back substitution is 2N - 1 steps, not ~N^2/2 products on one
    # thread: at coarse level 5 (N = 1089) a few ms would otherwise dominate every small solve.
    lu5 = [o for o in Solve("jacobi", 1, 1, 7, 5, 8, 4).ops if o.name == "lu_solve"][0]
    check(abs(lu5.latency / ((2 * 33 ** 2 - 1) * T_DRAM) - 1) < 1e-12,
          "coarse LU at n0 = 33 (N = 1089): %.0f us of dependent steps (2N - 1 loads)" %
          (lu5.latency * 1e6))

    # 5. The launch counts against what one solve really queues on the host emulation.
    if args.launch_counter:
        cases = [(s, 1, 1, 4, 1, 2) for s in SMOOTHERS] + [
            ("jacobi", 4, 4, 4, 1, 2), ("jacobi", 0, 2, 4, 1, 1), ("aditrigs", 2, 0, 4, 1, 2),
            ("trigs-y", 0, 2, 5, 2, 1), ("ssor", 2, 1, 5, 3, 3)]
        for case in cases:
            smoother = case[0]
            p = subprocess.run([args.launch_counter] + [str(x) for x in case],
                               capture_output=True, text=True)
            model = Solve(smoother, case[1], case[2], case[3], case[4], case[5], 4).counts()
            if p.returncode != 0:
                if smoother in PLANNED and "not available" in p.stderr:
                    print("SKIP %s: planned, not in the cuda target yet (%s)" % (
                        smoother, p.stderr.strip()))
                    continue
                check(False, "%s: quilt-cuda-launch-count failed: %s" % (case, p.stderr.strip()))
                continue
            got = dict(re.findall(r"(kernels|fills|copies)=(\d+)", p.stdout))
            got = {"kernel": int(got["kernels"]), "fill": int(got["fills"]),
                   "copy": int(got["copies"])}
            what = "%s V(%d,%d) L = %d coarse %d, %d macros: model %s, emulation %s" % (
                smoother, case[1], case[2], case[3], case[4], case[5], model, got)
            if smoother in PLANNED and got != model:
                # A planned smoother's model describes kernels not written yet; once they land,
                # a mismatch says so instead of failing.
                print("WARN %s -- %s has landed: update its model in Solve" % (what, smoother))
                continue
            check(got == model, what)

    print("%d check(s) failed" % len(failures) if failures else "all checks passed")
    return 1 if failures else 0


# --------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="L = 7, 8 only, 2 repetitions")
    ap.add_argument("--no-measure", action="store_true", help="the model alone")
    ap.add_argument("--check", action="store_true", help="self-checks, no measurement")
    ap.add_argument("--launch-counter", help="quilt-cuda-launch-count, for --check")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="build directory holding quilt-bench-local (default: build)")
    ap.add_argument("--cpu-times", help="read the cpu rows (quilt-bench-local --cycle output) "
                    "from FILE instead of measuring")
    ap.add_argument("--save-cpu-times", help="write the measured cpu rows to FILE")
    ap.add_argument("--variants", action="store_true",
                    help="H100 only: as is, with F1 (--staging registered), with F1 and a graph")
    ap.add_argument("--inventory", action="store_true",
                    help="print the operations per finest level and smoother, and stop")
    ap.add_argument("--json", help="write every row, with the terms of T_loc, to FILE")
    ap.add_argument("--smoothers", default=",".join(SMOOTHERS))
    ap.add_argument("--levels", default="7,8,9,10")
    ap.add_argument("--macros", default="8,40")
    ap.add_argument("--cycle", type=int, nargs=2, metavar=("PRE", "POST"),
                    help="V(PRE,POST) for every smoother (default: V(4,4) jacobi, V(1,1) others)")
    ap.add_argument("--coarse-level", type=int, default=1,
                    help="coarsest local level (solver.local.coarse_level, default 1)")
    ap.add_argument("--precision", choices=("float", "double"), default="float",
                    help="precision of the cuda target (default float)")
    ap.add_argument("--cpu-precision", choices=("float", "double"), default="double",
                    help="precision of the measured cpu target (default double, as shipped)")
    ap.add_argument("--cpu-ordering", choices=("same", "lexicographic"), default="same",
                    help="same: the cuda target's ordering (colour where it has one)")
    ap.add_argument("--launch", choices=("eager", "graph"), default="graph",
                    help="graph: the V-cycle replayed as a CUDA graph (the code now); eager: one "
                    "launch per operation (before issue 15)")
    ap.add_argument("--staging", choices=("memcpy", "registered"), default="registered",
                    help="registered: DMA straight from the caller's vectors (pin_io, F1; the "
                    "global multigrid's); memcpy: through the pinned buffer (other callers)")
    ap.add_argument("--bw-fraction", type=float, default=BW_FRACTION)
    ap.add_argument("--t-launch", type=float,
                    help="seconds per operation of the V-cycle (default: 0.9e-6 with --launch "
                    "graph, 3.3e-6 with --launch eager)")
    ap.add_argument("--pcie-bw", type=float, default=PCIE_BW)
    ap.add_argument("--host-bw", type=float, default=HOST_BW)
    ap.add_argument("--max-memory-gib", type=float, default=8.0,
                    help="largest cpu measurement (estimated peak); bigger cells extrapolated")
    ap.add_argument("--lock", default="/tmp/quilt-timing.lock")
    args = ap.parse_args()
    if args.t_launch is None:
        args.t_launch = T_LAUNCH[args.launch]
    if args.check:
        return run_checks(args)
    args.smoothers = [s for s in args.smoothers.split(",") if s]
    if args.quick:
        args.levels = "7,8"
    args.levels = [int(x) for x in args.levels.split(",")]
    args.macros = [int(x) for x in args.macros.split(",")]
    if args.inventory:
        print(inventory(args))
        return 0

    cells = [cpu_key(s, tuple(args.cycle) if args.cycle else DEFAULT_CYCLE[s], L, m, args)
             for s in args.smoothers for L in args.levels for m in args.macros]
    cpu = {}
    note = "not measured (--no-measure)"
    if args.cpu_times:
        with open(args.cpu_times) as f:
            cpu = complete(parse_rows(f.read()), cells)
        note = "read from %s" % args.cpu_times
    elif not args.no_measure:
        print("measuring the cpu target (quilt-bench-local --cycle):", file=sys.stderr)
        times, lines = measure(cells, args)
        if args.save_cpu_times:
            with open(args.save_cpu_times, "w") as f:
                f.write("\n".join(lines) + "\n")
        cpu = complete(times, cells)
        note = ("this machine (%s, %s), %s, 1 core, best of 3-8 solves (2 with --quick), %s; * = extrapolated "
                "linearly in macros from the same level (over --max-memory-gib %.0f)" % (
                    platform.node(), platform.processor() or platform.machine(),
                    datetime.date.today().isoformat(), args.cpu_precision, args.max_memory_gib))
    if args.cpu_times or not args.no_measure:
        note += "; cpu ordering: %s" % ("colour where the cuda target has it"
                                        if args.cpu_ordering == "same" else "lexicographic")
    if args.variants:
        print(variants(args, cpu))
        return 0
    rows = build_rows(args, cpu)
    print(header(args, note))
    print(markdown(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"parameters": {"bw_fraction": args.bw_fraction,
                                      "t_launch": args.t_launch, "pcie_bw": args.pcie_bw,
                                      "host_bw": args.host_bw, "t_dram": T_DRAM, "t_l1": T_L1,
                                      "devices": DEVICES},
                       "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
