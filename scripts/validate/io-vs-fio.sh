#!/usr/bin/env bash
# ccbench io next to fio on the same jobs, on the same disk, alternating in one
# run (docs/io.md has the figures). Needs fio (Debian: apt-get install fio).
#   scripts/validate/io-vs-fio.sh [--rounds N] [--size S] [--ccbench PATH] DIR
# Jobs (both O_DIRECT, io_uring, one file of S bytes, read once each):
#   seq   1 MiB sequential reads, queue depth 8
#   rand  4 KiB random reads, queue depth 32 (each block once: fio's random map)
# Each round runs fio then ccbench, or ccbench then fio (alternating), for each
# job; the ratio ccbench / fio of GB/s per round, and its median over rounds,
# are printed. Exit 0 when each job's median ratio is within 0.9-1.1, else 1.
set -euo pipefail
rounds=7 size=1G ccbench="$(dirname "$0")/../../build/ccbench"
while [ $# -gt 1 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --ccbench) ccbench=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# = 1 ] || { sed -n '2,12p' "$0"; exit 2; }
command -v fio >/dev/null || { echo "io-vs-fio: fio not found (apt-get install fio)" >&2; exit 2; }
dir=$(mktemp -d "$1/io-vs-fio.XXXXXX")
trap 'rm -rf "$dir"' EXIT

fio_gbps() {  # job: bs rw qd
  fio --name=job --filename="$dir/fio.dat" --size="$size" --bs="$1" --rw="$2" --iodepth="$3" --ioengine=io_uring \
      --direct=1 --output-format=json 2>/dev/null |
    python3 -c "import json,sys; print(json.load(sys.stdin)['jobs'][0]['read']['bw_bytes'] / 1e9)"
}
ccbench_gbps() {  # job: bs pattern qd
  "$ccbench" io "$dir" -p "$2" -b "$1" --file-size "$size" --direct --engine io_uring --qd "$3" -q -J "$dir/c.jsonl"
  python3 -c "import json; print([json.loads(l) for l in open('$dir/c.jsonl')][1]['io']['gbps'])"
}
fio --name=layout --filename="$dir/fio.dat" --size="$size" --rw=write --bs=1M --direct=1 >/dev/null 2>&1

declare -A ratios
printf "%-5s %5s %10s %10s %7s\n" job round "fio GB/s" "ccb GB/s" ratio
for round in $(seq "$rounds"); do
  for job in seq rand; do
    if [ $job = seq ]; then args_f=(1M read 8) args_c=(1M seq_read 8); else args_f=(4K randread 32) args_c=(4K rand_read 32); fi
    if [ $((round % 2)) = 1 ]; then
      f=$(fio_gbps "${args_f[@]}"); c=$(ccbench_gbps "${args_c[@]}")
    else
      c=$(ccbench_gbps "${args_c[@]}"); f=$(fio_gbps "${args_f[@]}")
    fi
    r=$(python3 -c "print($c / $f)")
    ratios[$job]+="$r "
    printf "%-5s %5d %10.3f %10.3f %7.3f\n" $job "$round" "$f" "$c" "$r"
  done
done
ok=0
for job in seq rand; do
  python3 - "$job" ${ratios[$job]} <<'PY' || ok=1
import statistics, sys
job, r = sys.argv[1], [float(x) for x in sys.argv[2:]]
m = statistics.median(r)
print(f"{job}: median ratio ccbench/fio {m:.3f} over {len(r)} rounds (min {min(r):.3f}, max {max(r):.3f})")
sys.exit(0 if 0.9 <= m <= 1.1 else 1)
PY
done
exit $ok
