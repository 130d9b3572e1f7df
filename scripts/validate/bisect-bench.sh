#!/usr/bin/env bash
# Bisect vs pairwise on simulated clusters (bench/bench_bisect): the table in
# docs/acceptance.md and the chart docs/images/bisect-rounds.svg.
# Usage: scripts/validate/bisect-bench.sh [SEEDS] [PAIRWISE_MAX]   (defaults 100, 256)
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=${1:-100} pairwise_max=${2:-256}
[ -x build/bench/bench_bisect ] || cmake --build build --target bench_bisect >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
build/bench/bench_bisect --seeds "$seeds" --pairwise-max "$pairwise_max" --csv "$out/bisect.csv"
mkdir -p docs/images
# Rounds vs nodes: bisect for k = 1, 4, 8 at 5% noise; pairwise measured, and n - 1 beyond.
for k in 1 4 8; do
  awk -F, -v k=$k '$1=="bisect" && $3==k && $4==0.05 {print $2, $6}' "$out/bisect.csv" >"$out/b$k.dat"
done
awk -F, '$1=="pairwise" && $3==1 && $4==0.05 {print $2, $6}' "$out/bisect.csv" >"$out/p.dat"
gnuplot <<GP
set terminal svg size 900,520 font 'sans,14'
set output 'docs/images/bisect-rounds.svg'
set logscale xy 2
set xlabel 'nodes'
set ylabel 'rounds to a verdict (mean of runs)'
set key top left
set grid
plot '$out/p.dat' using 1:2 with linespoints lw 2 pt 7 title 'pairwise, 1 defective (measured)', \
     [8:16384] x-1 with lines dt 2 lc rgb '#888888' title 'pairwise: n - 1 rounds (first pass alone)', \
     '$out/b1.dat' using 1:2 with linespoints lw 2 pt 5 title 'bisect, 1 defective', \
     '$out/b4.dat' using 1:2 with linespoints lw 2 pt 9 title 'bisect, 4 defective', \
     '$out/b8.dat' using 1:2 with linespoints lw 2 pt 11 title 'bisect, 8 defective'
GP
echo "chart: docs/images/bisect-rounds.svg"
