#!/usr/bin/env bash
# ccbench next to the real OSU Micro-Benchmarks 5.3 and IMB-MPI1 on this
# machine's MPI: same collectives, sizes, iteration and warm-up counts, the
# three tools alternating in every round. The peers are built from their
# source archives in --peers DIR (default deps/peers; or --osu-archive /
# --imb-archive FILE), or taken as built (--osu DIR holding osu_allreduce ...,
# --imb FILE).
#
# Like is compared with like:
#   all_reduce reduce broadcast all_gather alltoall alltoallv gather scatter: OSU (-f)
#     and IMB time one
#     call with MPI_Wtime, a barrier between calls, take each rank's mean over
#     iterations and print the average, minimum and maximum of those over
#     ranks. ccbench --timing per_iteration (a barrier before each call)
#     records the same (rank_means in its JSON and CSV). Compared: the average
#     (OSU "Avg Latency", IMB t_avg) and the maximum (OSU "Max Latency", IMB
#     t_max) over ranks.
#   pingpong: osu_latency and IMB PingPong time a loop of round trips and
#     print half a round trip; ccbench pingpong --timing pipelined likewise.
#   uni_bw: osu_bw (window 64, MB/s, read as time per message); ccbench
#     uni_bw --timing pipelined, window 64. IMB has no windowed test.
# Per size: the median over rounds of each tool. Per case: the geometric mean
# over sizes of ccbench / OSU, ccbench / IMB and IMB / OSU (how far apart the
# two peers are on the same machine: the noise floor of the comparison).
# The peers print 2 decimals: at 0.2 us that alone is up to 2.5% per size.
#
#   scripts/validate/osu-imb-parity.sh [--np N] [--rounds R] [-n ITERS] [-w WARMUP]
#                             [--max BYTES] [--cases "all_reduce ..."]
#                             [--tolerance F] [--out DIR] [--ccbench PATH]
#                             [--osu DIR | --osu-archive FILE] [--imb FILE | --imb-archive FILE]
#     --np N        ranks (default 2; pingpong and uni_bw always 2)
#     --rounds R    alternations (default 5)
#     -n, -w        timed and warm-up iterations of every tool (default 1000, 200)
#     --max BYTES   largest size per rank (default 1048576)
#     --cases       default "all_reduce reduce broadcast all_gather alltoall gather scatter
#                   pingpong uni_bw"; also alltoallv (ccbench --traffic uniform)
#     --tolerance F largest |geomean ratio - 1| of ccbench vs each peer (default 0.05)
# Exit: 0 every case met (each ccbench geomean within the tolerance of each
# peer, or ccbench between the two peers: it cannot be judged closer than they
# agree), 1 one is not, 2 bad options or a run failed, 77 no peer sources or no
# mpicc/mpirun here.
set -uo pipefail
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }  # paths given are the caller's
np=2 rounds=5 iters=1000 warmup=200 max=1048576 tolerance=0.05 out="" ccbench=""
osu="" imb="" osu_archive="" imb_archive="" peers=""
cases="all_reduce reduce broadcast all_gather alltoall gather scatter pingpong uni_bw"
while [ $# -gt 0 ]; do
  case "$1" in  # an option without its value: said, not looped on
    --np|--rounds|-n|-w|--max|--cases|--tolerance|--out|--ccbench|--osu|--imb|--osu-archive|--imb-archive|--peers)
      [ $# -ge 2 ] || { echo "$(basename "$0" .sh): $1 needs a value (see --help)" >&2; exit 2; } ;;
  esac
  case "$1" in
    --np) np=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    -n) iters=$2; shift 2 ;;
    -w) warmup=$2; shift 2 ;;
    --max) max=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --tolerance) tolerance=$2; shift 2 ;;
    --out) out=$(abs "$2"); shift 2 ;;
    --ccbench) ccbench=$(abs "$2"); shift 2 ;;
    --osu) osu=$(abs "$2"); shift 2 ;;
    --imb) imb=$(abs "$2"); shift 2 ;;
    --osu-archive) osu_archive=$(abs "$2"); shift 2 ;;
    --imb-archive) imb_archive=$(abs "$2"); shift 2 ;;
    --peers) peers=$(abs "$2"); shift 2 ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    *) echo "osu-imb-parity: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for v in "$np" "$rounds" "$iters" "$warmup" "$max"; do
  [[ $v =~ ^[0-9]+$ ]] || { echo "osu-imb-parity: '$v' is not a whole number" >&2; exit 2; }
done
[ "$np" -ge 2 ] && [ "$rounds" -ge 1 ] && [ "$iters" -ge 1 ] && [ "$max" -ge 16 ] ||
  { echo "osu-imb-parity: needs --np >= 2, --rounds >= 1, -n >= 1, --max >= 16" >&2; exit 2; }
cd "$(dirname "$0")/../.." || exit 2
root=$PWD
skip() { echo "osu-imb-parity: SKIP: $*" >&2; exit 77; }
command -v mpicc >/dev/null && command -v mpirun >/dev/null || skip "no mpicc/mpirun (apt-get install libopenmpi-dev openmpi-bin)"
[ -n "$ccbench" ] || ccbench=$root/build/ccbench
[ -x "$ccbench" ] || { echo "osu-imb-parity: build ccbench first (scripts/test.sh or cmake), or give --ccbench PATH" >&2; exit 2; }
[ -n "$out" ] || out=$(mktemp -d /tmp/ccbench-osu-imb.XXXXXX)
mkdir -p "$out"
[ -n "$peers" ] || peers=$root/deps/peers
snapshot() { ls "$peers"/$1 2>/dev/null | head -1; }

# The peers, built from their source archives.
if [ -z "$osu" ]; then
  [ -n "$osu_archive" ] || osu_archive=$(snapshot 'osu-micro-benchmarks-*.tar.gz')
  [ -f "$osu_archive" ] || skip "no OSU archive in $peers (give --peers DIR, --osu-archive FILE or --osu DIR)"
  rm -rf "$out/osu-src" && mkdir -p "$out/osu-src" "$out/osu" && tar xzf "$osu_archive" -C "$out/osu-src"
  mpi=$(ls -d "$out"/osu-src/*/mpi | head -1)
  version=$(basename "$(dirname "$mpi")" | sed 's/.*-//')
  for b in allreduce reduce bcast allgather alltoall alltoallv gather scatter; do
    mpicc -O2 -DPACKAGE_VERSION="\"$version\"" -I"$mpi/.." -I"$mpi/collective" -o "$out/osu/osu_$b" \
      "$mpi/collective/osu_$b.c" "$mpi/collective/osu_coll.c" -lm 2>> "$out/osu-build.log" ||
      { echo "osu-imb-parity: osu_$b did not build ($out/osu-build.log)" >&2; exit 2; }
  done
  for b in latency bw; do
    mpicc -O2 -DPACKAGE_VERSION="\"$version\"" -I"$mpi/.." -I"$mpi/pt2pt" -o "$out/osu/osu_$b" \
      "$mpi/pt2pt/osu_$b.c" "$mpi/pt2pt/osu_pt2pt.c" 2>> "$out/osu-build.log" ||
      { echo "osu-imb-parity: osu_$b did not build ($out/osu-build.log)" >&2; exit 2; }
  done
  osu=$out/osu
  echo "osu-imb-parity: OSU from $(basename "$osu_archive")" >&2
fi
if [ -z "$imb" ]; then
  [ -n "$imb_archive" ] || imb_archive=$(snapshot 'imb-*.tar.gz')
  [ -f "$imb_archive" ] || skip "no IMB archive in $peers (give --peers DIR, --imb-archive FILE or --imb FILE)"
  rm -rf "$out/imb-src" && mkdir -p "$out/imb-src" && tar xzf "$imb_archive" -C "$out/imb-src"
  src=$(ls -d "$out"/imb-src/* | head -1)
  make -C "$src" -j "$(nproc)" IMB-MPI1 CC=mpicc CXX=mpicxx CPPFLAGS=-DOMPI_SKIP_MPICXX=1 > "$out/imb-build.log" 2>&1 ||
    { tail -5 "$out/imb-build.log" >&2; echo "osu-imb-parity: IMB-MPI1 did not build" >&2; exit 2; }
  imb=$src/IMB-MPI1
  echo "osu-imb-parity: IMB from $(basename "$imb_archive")" >&2
fi

run() {  # run LOG NP PROGRAM ARGS...: one launch on this machine, its table into LOG
  "$root/scripts/mpirun.sh" -np "$2" "${@:3}" > "$1" 2>&1 ||
    { tail -5 "$1" >&2; echo "osu-imb-parity: failed: ${*:3}" >&2; exit 2; }
}
log2() { local v=$1 k=0; while [ "$v" -gt 1 ]; do v=$((v / 2)); k=$((k + 1)); done; echo "$k"; }

# case -> OSU program, IMB benchmark, ccbench dtype, sizes per process (1) or whole buffer (0)
declare -A OSU=([all_reduce]=osu_allreduce [reduce]=osu_reduce [broadcast]=osu_bcast [all_gather]=osu_allgather
                [alltoall]=osu_alltoall [alltoallv]=osu_alltoallv [gather]=osu_gather [scatter]=osu_scatter
                [pingpong]=osu_latency [uni_bw]=osu_bw)
declare -A IMB=([all_reduce]=Allreduce [reduce]=Reduce [broadcast]=Bcast [all_gather]=Allgather
                [alltoall]=Alltoall [alltoallv]=Alltoallv [gather]=Gather [scatter]=Scatter [pingpong]=PingPong
                [uni_bw]="")
declare -A DTYPE=([all_reduce]=float [reduce]=float [broadcast]=uint8 [all_gather]=uint8 [alltoall]=uint8
                  [alltoallv]=uint8 [gather]=uint8 [scatter]=uint8 [pingpong]=uint8 [uni_bw]=uint8)
declare -A PER_PROCESS=([all_gather]=1 [alltoall]=1 [alltoallv]=1 [gather]=1 [scatter]=1)
# alltoallv: the peers send the same bytes to every rank; so does ccbench's uniform traffic.
declare -A EXTRA=([alltoallv]="--traffic uniform")

rc=0
for c in $cases; do
  [ -n "${OSU[$c]+x}" ] || { echo "osu-imb-parity: unknown case '$c'" >&2; exit 2; }
  p2p=0; case $c in pingpong|uni_bw) p2p=1 ;; esac
  n=$np; [ $p2p = 1 ] && n=2
  # Sizes: OSU and IMB count per process for all_gather and alltoall, ccbench
  # the whole buffer, and ccbench (as nccl-tests) rounds those to 16 bytes per rank.
  lo=4; [ "${DTYPE[$c]}" = uint8 ] && lo=1; [ -n "${PER_PROCESS[$c]+x}" ] && lo=16
  scale=1; [ -n "${PER_PROCESS[$c]+x}" ] && scale=$n
  timing=per_iteration; [ $p2p = 1 ] && timing=pipelined
  dir=$out/$c; rm -rf "$dir"; mkdir -p "$dir/osu" "$dir/imb" "$dir/ccbench"
  for r in $(seq "$rounds"); do
    if [ $p2p = 1 ]; then  # osu_latency/osu_bw 5.3 take no size range: they sweep 0 B .. 4 MiB
      run "$dir/osu/$r.txt" 2 "$osu/${OSU[$c]}" -i "$iters" -x "$warmup"
    else
      run "$dir/osu/$r.txt" "$n" "$osu/${OSU[$c]}" -f -m "$lo:$max" -i "$iters" -x "$warmup"
    fi
    [ -n "${IMB[$c]}" ] && run "$dir/imb/$r.txt" "$n" "$imb" "${IMB[$c]}" -npmin "$n" -msglog "$(log2 "$lo"):$(log2 "$max")" \
      -iter "$iters" -iter_policy off
    # shellcheck disable=SC2086
    run "$dir/ccbench/$r.txt" "$n" "$ccbench" "$c" ${EXTRA[$c]:-} -d "${DTYPE[$c]}" -b $((lo * scale)) -e $((max * scale)) -f 2 \
      -n "$iters" -w "$warmup" -c 0 --timing "$timing" --bind none -J "$dir/ccbench/$r.jsonl" --csv "$dir/ccbench/$r.csv"
  done
  tables=("$dir"/osu/*.txt "$dir"/ccbench/*.csv); [ -n "${IMB[$c]}" ] && tables+=("$dir"/imb/*.txt)
  echo "== $c, $n ranks: medians of $rounds alternating rounds, -n $iters -w $warmup (ccbench --timing $timing)"
  awk -v tol="$tolerance" -v p2p="$p2p" -v bw="$([ "$c" = uni_bw ] && echo 1 || echo 0)" -v scale="$scale" '
    # vals[tool, metric, bytes]: one value per round; metric avg or max over ranks (one value for p2p)
    function add(tool, b, avg, max) {
      if (b <= 0 || avg <= 0 || max <= 0) return
      vals[tool, "avg", b] = vals[tool, "avg", b] " " avg; vals[tool, "max", b] = vals[tool, "max", b] " " max
      if (!(b in seen)) { seen[b] = 1; sizes[++ns] = b + 0 }
    }
    function median(tool, metric, b,   m, i, j, x, v) {
      if (!((tool, metric, b) in vals)) return 0
      m = split(vals[tool, metric, b], v, " ")
      for (i = 2; i <= m; i++) { x = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
      return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
    }
    FNR == 1 { tool = FILENAME ~ /\/osu\// ? "osu" : FILENAME ~ /\/imb\// ? "imb" : "ccbench"; delete col
               if (tool == "ccbench") { n = split($0, h, ","); for (i = 1; i <= n; i++) col[h[i]] = i; next } }
    tool == "ccbench" {
      split($0, f, ","); if (f[col["placement"]] != "out_of_place") next
      if (p2p) add("ccbench", f[col["bytes"]], f[col["time_us"]], f[col["time_us"]])
      else add("ccbench", f[col["bytes"]], f[col["rank_mean_avg_us"]], f[col["rank_mean_max_us"]])
      next
    }
    $1 !~ /^[0-9]+$/ { next }
    # OSU: size avg min max iterations (-f); size latency (osu_latency); size MB/s (osu_bw)
    tool == "osu" { if (bw) { if ($2 > 0) add("osu", $1, $1 / $2, $1 / $2) } else if (p2p) add("osu", $1, $2, $2)
                    else add("osu", $1 * scale, $2, $4); next }
    # IMB: bytes repetitions t_min t_max t_avg; PingPong: bytes repetitions t Mbytes/sec
    tool == "imb" { if (NF == 4) add("imb", $1, $3, $3); else add("imb", $1 * scale, $5, $4) }
    function geo(sum, k) { return k ? exp(sum / k) : 0 }
    function within(g) { return g >= 1 - tol && g <= 1 + tol }
    END {
      for (i = 2; i <= ns; i++) { x = sizes[i]; for (j = i - 1; j >= 1 && sizes[j] > x; j--) sizes[j + 1] = sizes[j]; sizes[j + 1] = x }
      nm = p2p ? 1 : 2; metric[1] = "avg"; metric[2] = "max"
      for (t = 1; t <= nm; t++) {
        me = metric[t]; k = ki = lo = li = lp = 0
        printf "  %s%10s %10s %10s %10s %9s %9s %9s\n", p2p ? "" : (me == "avg" ? "average over ranks of the rank means (OSU Avg Latency, IMB t_avg)\n  " \
          : "maximum over ranks of the rank means (OSU Max Latency, IMB t_max)\n  "), "bytes", "OSU us", "IMB us", "ccbench us", "ccb/OSU", "ccb/IMB", "IMB/OSU"
        for (i = 1; i <= ns; i++) {
          b = sizes[i]; c = median("ccbench", me, b); o = median("osu", me, b); m = median("imb", me, b)
          if (!c || !o) continue
          line = sprintf("  %10d %10.2f %10s %10.2f %9.3f", b, o, m ? sprintf("%.2f", m) : "-", c, c / o)
          lo += log(c / o); k++
          if (m) { li += log(c / m); lp += log(m / o); ki++; line = line sprintf(" %9.3f %9.3f", c / m, m / o) }
          print line
        }
        if (!k) { print "  no sizes line up"; exit 1 }
        # Met: within the tolerance of each peer, or between the two (no closer than they agree).
        between = ki && (geo(lo, k) - 1) * (geo(li, ki) - 1) <= 0
        good = within(geo(lo, k)) && (!ki || within(geo(li, ki))) || between
        ok = (t == 1 ? good : ok && good)
        printf "  geomean over %d sizes (%s): ccbench/OSU %.3f", k, p2p ? "time" : me, geo(lo, k)
        if (ki) printf ", ccbench/IMB %.3f, IMB/OSU %.3f", geo(li, ki), geo(lp, ki)
        printf " (tolerance %.0f%%): %s\n", 100 * tol, good ? (between ? "met (between the two peers)" : "met") : "MISSED"
      }
      exit !ok
    }' "${tables[@]}" || rc=1
done
echo "osu-imb-parity: outputs in $out (per case: each tool's output of each round)"
exit $rc
