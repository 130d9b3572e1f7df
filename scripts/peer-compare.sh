#!/usr/bin/env bash
# ccbench's per-iteration median vs an independent OSU/IMB-style reference loop
# (bench/peer_reference.cpp: barrier, MPI_Wtime around one call, max over
# ranks, median over iterations), side by side in one run on the same MPI:
# all_reduce, all_gather, alltoall and pingpong at 2 and 4 ranks, 8 B to
# 64 MiB. Prints the ratio ccbench / reference per point and the median ratio
# per case. Targets: median ratio within 0.95-1.05, small messages <= 1.05.
#   scripts/peer-compare.sh [ITERS]        (default 100; RANKS="2 4" to change)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/bench/peer_reference ] || scripts/setup.sh
ITERS=${1:-100}
RANKS=${RANKS:-"2 4"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-11s %5s %10s %12s %12s %7s\n' collective ranks bytes ccbench_us reference_us ratio
for np in $RANKS; do
  for coll in all_reduce all_gather alltoall pingpong; do
    # Alternate the two, each twice, and keep each one's faster median (less noise from the machine).
    for round in 1 2; do
      scripts/mpirun.sh -np "$np" build/bench/peer_reference "$coll" 8 $((64 << 20)) 8 "$ITERS" 5 > "$tmp/ref$round.txt"
      scripts/mpirun.sh -np "$np" build/ccbench "$coll" -b 8 -e 64M -f 8 -n "$ITERS" -w 5 -c 0 \
        --timing per_iteration --bind none --csv "$tmp/ccb$round.csv" > /dev/null
    done
    awk -F, -v coll="$coll" -v np="$np" '
      FNR == 1 { file++ }
      file <= 2 && $11 == "out_of_place" { v = $20 + 0; if (!(($12) in ccb) || v < ccb[$12]) ccb[$12] = v }
      file > 2 && $0 !~ /^#/ { split($0, f, " "); v = f[2] + 0; if (!(f[1] in ref) || v < ref[f[1]]) ref[f[1]] = v; order[++n] = f[1] }
      END {
        m = 0
        for (i = 1; i <= n; i++) { b = order[i]; if (seen[b]++ || !(b in ccb)) continue
          r = ccb[b] / ref[b]; ratios[++m] = r
          printf "%-11s %5d %10d %12.3f %12.3f %7.3f\n", coll, np, b, ccb[b], ref[b], r }
        for (i = 2; i <= m; i++) { x = ratios[i]; for (j = i - 1; j >= 1 && ratios[j] > x; j--) ratios[j + 1] = ratios[j]; ratios[j + 1] = x }
        med = m % 2 ? ratios[(m + 1) / 2] : (ratios[m / 2] + ratios[m / 2 + 1]) / 2
        printf "%-11s %5d %10s %12s %12s %7.3f  (median ratio)\n", coll, np, "", "", "", med
      }' "$tmp/ccb1.csv" "$tmp/ccb2.csv" "$tmp/ref1.txt" "$tmp/ref2.txt"
  done
done
