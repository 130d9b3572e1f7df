# Sourced by tests/fault.sh and tests/replay_faults.sh: a temporary folder
# (removed on exit), the -J file under it, mpirun as root, and what a failed
# check prints (the command's stderr, the file's first lines).
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$dir/out.jsonl
mpirun=(mpirun --oversubscribe)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
fail() { echo "FAIL: $*"; echo "--- stderr"; head -c 3000 "$dir/err"; echo "--- file"; cut -c1-300 "$out" 2>/dev/null; exit 1; }
records() { local n; n=$(grep -c "\"type\":\"$1\"" "$out" 2>/dev/null); echo "${n:-0}"; }  # TYPE: how many
wait_records() {  # TYPE N: until the file holds N records of TYPE (at most 60 s)
  for _ in $(seq 600); do [ "$(records "$1")" -ge "$2" ] && return 0; sleep 0.1; done
  fail "never reached $2 $1 records"
}
