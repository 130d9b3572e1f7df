#!/usr/bin/env bash
# Hostile and broken input: a corpus of bad command lines, result files and
# profile files (YAML, the spec files of compare), each built here in a
# temporary folder. Every case must exit with its code, print exactly one
# line on stderr matching its pattern, and finish within 60 s and 4 GiB of
# address space: never a crash, a hang or unbounded memory.
# Usage: hostile.sh CCBENCH GOOD_RESULT_FILE [cli|results|files|specs|accept|model|steps|history]
set -u
ccbench=$1 good=$2 only=${3:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0 count=0

# check NAME CODE REGEX -- ARGS...
check() {
  local name=$1 want=$2 regex=$3
  shift 4
  count=$((count + 1))
  (ulimit -v "${CCBENCH_HOSTILE_VMEM_KB:-4194304}"; timeout 60 "$ccbench" "$@" >"$dir/out" 2>"$dir/err")
  local code=$?
  local lines matches
  lines=$(wc -l <"$dir/err")
  matches=$(grep -cE -- "$regex" "$dir/err")
  if [ "$code" != "$want" ] || [ "$lines" != 1 ] || [ "$matches" != 1 ]; then
    failures=$((failures + 1))
    echo "FAIL $name: exit $code (want $want), $lines stderr lines, $matches matching /$regex/"
    head -c 600 "$dir/err" | cat -v
    echo
  fi
}
result() {  # result NAME REGEX FILE: the file as the second set of a compare
  check "result/$1" 2 "--run bad: .*$2" -- compare --run good="$good" --run bad="$3"
}
spec() {    # spec NAME REGEX FILE: the file as a cost profile
  check "spec/$1" 2 "$2" -- compare --run a="$good" --run b="$good" --cost a="$3"
}
workload() {
  check "workload/$1" 2 "$2" -- compare --run a="$good" --run b="$good" --workload "$3"
}
header='# nccl-tests version 2.13.9 nccl-headers=22309 nccl-library=22309
# Collective test starting: all_reduce_perf
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong'
nccl() { printf '%s\n%s\n' "$header" "$1" >"$dir/$2"; echo "$dir/$2"; }
huge=99999999999999999999999999

if [ -z "$only" ] || [ "$only" = cli ]; then
  check cli/negative_size 2 "-b/--minbytes '-5'" -- all_reduce -b -5
  check cli/huge_size 2 "-e/--maxbytes '$huge'" -- all_reduce -e $huge
  check cli/float_size 2 "-b/--minbytes '1e400'" -- all_reduce -b 1e400
  check cli/empty_size 2 "-b/--minbytes: empty value" -- all_reduce -b ""
  check cli/nan_timeout 2 "-T/--timeout 'nan'" -- all_reduce -T nan
  check cli/inf_timeout 2 "-T/--timeout 'inf'" -- all_reduce -T inf
  check cli/negative_timeout 2 "-T/--timeout '-1'" -- all_reduce -T -1
  check cli/zero_iters 2 "-n/--iters 0: out of range" -- all_reduce -n 0
  check cli/huge_iters 2 "-n/--iters 99999999999: out of range" -- all_reduce -n 99999999999
  check cli/text_warmup 2 "-w/--warmup_iters 'abc'" -- all_reduce -w abc
  check cli/bad_dtype 2 "unknown" -- all_reduce -d float128
  check cli/bad_op 2 "unknown" -- all_reduce -o xor
  check cli/non_utf8_path 2 "--path 'tcp\?\?': unknown" -- all_reduce --path "$(printf 'tcp\xff\xfe')"
  check cli/long_dtype 2 "unknown" -- all_reduce -d "$(head -c 100000 /dev/zero | tr '\0' x)"
  check cli/nan_precision 2 "--precision" -- all_reduce --precision nan
  check cli/zero_factor 2 "-f/--stepfactor 0: out of range" -- all_reduce -f 0
  check cli/negative_root 2 "-r/--root -5: out of range" -- broadcast -r -5
  check cli/alpha_nan 2 "--alpha 'nan'" -- compare --run a="$good" --run b="$good" --alpha nan
  check cli/zero_size_strict 2 "size 0 B: nothing to measure" -- all_reduce -b 0 -e 0 --strict-sizes
  check cli/json_equals_csv 2 "--csv $dir/same: the same file as -J/--json" -- all_reduce -b 8 -e 8 -J "$dir/same" --csv "$dir/same"
  ln -sf /nonexistent-target "$dir/dangling.jsonl"
  check cli/json_through_link 2 "-J/--json $dir/dangling.jsonl: is a symbolic link" -- all_reduce -b 8 -e 8 -J "$dir/dangling.jsonl"
  check cli/compare_out_is_input 2 "--json $good: is also the input --run a" -- compare --run a="$good" --run b="$good" --json "$good"
  check cli/baseline_out_is_input 2 "--out $good: is also the input run" -- baseline --out "$good" "$good"
  check cli/html_to_folder 2 "--html $dir: is a folder" -- compare --run a="$good" --run b="$good" --html "$dir"
  check cli/cost_twice 2 "--cost a: given twice for that label" -- compare --run a="$good" --run b="$good" --cost a=/nonexistent.yaml --cost a=/nonexistent2.yaml
  check cli/control_label 2 "--run a\?b: the label is used twice" -- compare --run "$(printf 'a\033b')=$good" --run "$(printf 'a\033b')=$good"
fi

if [ -z "$only" ] || [ "$only" = results ]; then
  : >"$dir/empty.log"; result empty "no measured points could be read" "$dir/empty.log"
  printf '\n\n\n' >"$dir/newlines.log"; result newlines "no measured points" "$dir/newlines.log"
  head -c 65536 /dev/urandom >"$dir/garbage.bin"; result garbage "no measured points" "$dir/garbage.bin"
  head -c 65536 /dev/zero >"$dir/nul.bin"; result nul_bytes "no measured points" "$dir/nul.bin"
  result non_utf8 "type 'fl\?oat' is not a type name" "$(nccl "$(printf '8 2 fl\xffoat sum -1 1.0 0.0 0.0 0 1.0 0.0 0.0 0')" non-utf8.log)"
  result huge_size "size '$huge' is not a byte count" "$(nccl "$huge 2 float sum -1 1.0 0.0 0.0 0 1.0 0.0 0.0 0" huge.log)"
  result nan_time "'nan' '0.00' '0.00' are not non-negative" "$(nccl "8 2 float sum -1 nan 0.00 0.00 0 nan 0.00 0.00 0" nan.log)"
  result negative_time "'-5.0'" "$(nccl "8 2 float sum -1 -5.0 0.00 0.00 0 -5.0 0.00 0.00 0" neg.log)"
  result inf_busbw "'inf'" "$(nccl "8 2 float sum -1 1.0 0.00 inf 0 1.0 0.00 inf 0" inf.log)"
  result many_columns "too many" "$(nccl "8 $(seq -s ' ' 1 60)" many.log)"
  result huge_count "count '$huge'" "$(nccl "8 $huge float sum -1 1.0 0.0 0.0 0 1.0 0.0 0.0 0" count.log)"
  { printf '{"type":"run","schema_version":2,"x":'; head -c 200000 /dev/zero | tr '\0' '['; echo; } >"$dir/deep.jsonl"
  result deep_jsonl "not a JSON object" "$dir/deep.jsonl"
  { printf '{"nccl_version":22309,"results":'; head -c 200000 /dev/zero | tr '\0' '['; } >"$dir/deep.json"
  result deep_nccl_json "not valid JSON" "$dir/deep.json"
  printf '%s\n' '{"type":"run","schema_version":2}' '{"type":"point","collective":"all_reduce","ranks":"x","bytes":"8"}' >"$dir/types.jsonl"
  result wrong_types "point record without a valid collective" "$dir/types.jsonl"
  printf '%s\n' '{"type":"run","schema_version":2}' '{"type":"point","collective":"all_reduce","ranks":1e20,"bytes":1e300}' >"$dir/hugenum.jsonl"
  result huge_numbers "point record without a valid" "$dir/hugenum.jsonl"
  printf '%s\n' '{"type":"run","schema_version":2}' '{"type":"point","collective":"all_reduce","ranks":2,"bytes":8,"out_of_place":{"time_us":NaN}}' >"$dir/nanlit.jsonl"
  result nan_literal "not a JSON object" "$dir/nanlit.jsonl"
  printf '%s\n' '{"type":"run","schema_version":2}' '{"type":"point","collective":"all_reduce","ranks":2,"bytes":-8}' >"$dir/negbytes.jsonl"
  result negative_bytes "point record without a valid" "$dir/negbytes.jsonl"
  printf '%s\n' '{"type":"run","schema_version":"2"}' >"$dir/verstr.jsonl"
  result schema_version_string "schema_version '\"2\"'" "$dir/verstr.jsonl"
  printf '%s' '{"nccl_version":22309,"args":["all_reduce_perf"],"results":{"size":8}}' >"$dir/notarray.json"
  result results_not_array "without a results list" "$dir/notarray.json"
  printf '%s' '{"nccl_version":22309,"args":["all_reduce_perf"],"results":[{"size":-8}]}' >"$dir/negsize.json"
  result nccl_json_negative_size "size missing or not a byte count" "$dir/negsize.json"
  printf '%s' '{"nccl_version":22309,"args":["all_reduce_perf"],"results":[{"size":8,"out_of_place":{"time":1e999}}]}' >"$dir/bignum.json"
  result nccl_json_number_out_of_range "a number out of range" "$dir/bignum.json"
  printf '%s' '{"nccl_version":22309,"args":[42],"results":[]}' >"$dir/args.json"
  result nccl_json_args "args\[0\] does not name one" "$dir/args.json"
  printf '# OSU MPI Allreduce Latency Test v7.3\n# Size       Avg Latency(us)\n' >"$dir/osu-header.txt"
  result osu_header_only "no measured points in this file" "$dir/osu-header.txt"
  printf '# OSU MPI Allreduce Latency Test v7.3\n# Size       Avg Latency(us)\n%s 1.5\n' $huge >"$dir/osu-huge.txt"
  result osu_huge_size "no measured points" "$dir/osu-huge.txt"
  printf '# Benchmarking Allreduce\n# #processes = 99999999999\n#bytes #repetitions t_min[usec] t_max[usec] t_avg[usec]\n8 1000 1.0 1.0 1.0\n' >"$dir/imb-procs.txt"
  result imb_huge_processes "#processes '99999999999' is not a process count" "$dir/imb-procs.txt"
  printf '# Benchmarking Allreduce\n# #processes = 4\n#bytes #repetitions t_min[usec] t_max[usec] t_avg[usec]\n8 1000 1.0 1.0 -1.0\n' >"$dir/imb-neg.txt"
  result imb_negative_time "IMB value '-1.0' is not a positive number" "$dir/imb-neg.txt"
  { printf '# nThread 1 nGpus 1\n'; } >"$dir/gigaline.log"; truncate -s 1G "$dir/gigaline.log"
  result one_gigabyte_line "line of [0-9]+ bytes: longer than [0-9]+ bytes" "$dir/gigaline.log"
  mkdir -p "$dir/only-subdir/sub"; result folder_without_files "folder holds no files" "$dir/only-subdir"
  mkfifo "$dir/fifo"; result fifo "not a regular file" "$dir/fifo"
  ln -s "$dir/nowhere" "$dir/dangling"; result dangling_symlink "no such file or folder" "$dir/dangling"
  result device "not a regular file" /dev/zero
  result control_chars_in_name "no such file or folder" "$dir/$(printf 'x\ny\033z')"
fi

if [ -z "$only" ] || [ "$only" = specs ]; then
  : >"$dir/empty.yaml"; spec empty "expected a mapping" "$dir/empty.yaml"
  printf 'kind: [cloud\n' >"$dir/trunc.yaml"; spec truncated "not valid YAML" "$dir/trunc.yaml"
  printf 'kind: cloud\nprice_per_gpu_hour: [1, 2]\n' >"$dir/list.yaml"; spec wrong_type "price_per_gpu_hour: '\(not a scalar\)' is not a number" "$dir/list.yaml"
  printf 'kind: cloud\nprice_per_gpu_hour: .nan\n' >"$dir/nan.yaml"; spec nan "price_per_gpu_hour: nan is out of range" "$dir/nan.yaml"
  printf 'kind: cloud\nprice_per_gpu_hour: 1e400\n' >"$dir/big.yaml"; spec huge "price_per_gpu_hour: .* (is out of range|is not a number)" "$dir/big.yaml"
  printf 'kind: cloud\nprice_per_gpu_hour: -3\n' >"$dir/neg.yaml"; spec negative "price_per_gpu_hour: -3 is out of range" "$dir/neg.yaml"
  head -c 4096 /dev/urandom >"$dir/bin.yaml"; spec binary "not valid YAML|expected a mapping|unknown key" "$dir/bin.yaml"
  spec directory "cannot read" "$dir"
  { printf 'kind: '; head -c 100000 /dev/zero | tr '\0' '['; } >"$dir/deep.yaml"; spec deep_nesting "not valid YAML" "$dir/deep.yaml"
  printf 'kind: cloud\nprice_per_gpu_hour: 2\nprice_per_gpu_hour: 3\n' >"$dir/dup.yaml"; spec duplicate_key "price_per_gpu_hour: (duplicate|given twice)" "$dir/dup.yaml"
  printf 'kind: cloud\n\xff\xfe: 3\n' >"$dir/key.yaml"; spec non_utf8_key "unknown key|not valid YAML" "$dir/key.yaml"
  printf 'kind: bare_metal\ncapital_cost: 1\namortisation_years: 4\nyearly_operating_cost: 1\nutilisation: 7\ngpus: 8\n' >"$dir/util.yaml"
  spec utilisation_over_one "utilisation: 7 is out of range" "$dir/util.yaml"
  printf 'kind: cloud\nprice_per_gpu_hour: 2\n' >"$dir/nocur.yaml"; spec no_currency "nocur.yaml:1: currency: required" "$dir/nocur.yaml"
  printf 'kind: cloud\ncurrency: euro\nprice_per_gpu_hour: 2\n' >"$dir/badcur.yaml"; spec bad_currency "currency: 'euro' is not a currency code" "$dir/badcur.yaml"
  printf 'kind: cloud\ncurrency: USD\nprice_per_gpu_hour: 0\n' >"$dir/free.yaml"; spec zero_price "the price per GPU-hour is 0: a profile must cost something" "$dir/free.yaml"
  printf 'kind: cloud\ncurrency: USD\nprice_per_gpu_hour: 2\ncapital_cost: 5\n' >"$dir/mixed.yaml"; spec other_kinds_key "mixed.yaml:4: capital_cost: a key of bare_metal profiles; this one is kind cloud" "$dir/mixed.yaml"
  printf 'kind: cloud\ncurrency: EUR\nprice_per_gpu_hour: 2\n' >"$dir/eur.yaml"; printf 'kind: cloud\ncurrency: JPY\nprice_per_gpu_hour: 300\n' >"$dir/jpy.yaml"
  check spec/mixed_currencies 2 "--cost: .*eur.yaml is in EUR and .*jpy.yaml in JPY: give every profile in one currency" -- \
    compare --run a="$good" --run b="$good" --cost a="$dir/eur.yaml" --cost b="$dir/jpy.yaml"
  printf 'parameters: 7e9\ngpus: 8.5\n' >"$dir/w1.yaml"; workload fractional_gpus "gpus: 8.5 is not a whole number" "$dir/w1.yaml"
  printf 'parameters: 0\ngpus: 8\n' >"$dir/w2.yaml"; workload zero_parameters "parameters: 0 is out of range" "$dir/w2.yaml"
  printf 'parameters: 7e9\ngpus: 8\ndtype: [bf16]\n' >"$dir/w3.yaml"; workload dtype_list "dtype: expected a string" "$dir/w3.yaml"
  printf 'parameters: 7e9\ngpus: 8\nlayers: 80\n' >"$dir/w4.yaml"; workload unknown_key "layers: unknown key" "$dir/w4.yaml"
  printf 'kind: cloud\ncurrency: USD\nprice_per_gpu_hour: 2\n---\nkind: cloud\n' >"$dir/two.yaml"; spec second_document "two.yaml:4: a second YAML document" "$dir/two.yaml"
  workload missing "cannot read" "$dir/nonexistent.yaml"
fi

if [ -z "$only" ] || [ "$only" = accept ]; then
  acc() { check "accept/$1" 2 "$2" -- accept "$3" --out "$dir/acc-out"; }  # acc NAME REGEX SPEC
  ok='checks:\n  - name: a\n    collective: all_reduce\n    sizes: [1M]\n    gates: [{metric: busbw, at: 1M, min: 1}]\n'
  : >"$dir/a-empty.yaml"; acc empty "a-empty.yaml:1: \(top level\): expected a mapping" "$dir/a-empty.yaml"
  printf 'checks: [\n' >"$dir/a-trunc.yaml"; acc truncated "not valid YAML" "$dir/a-trunc.yaml"
  head -c 4096 /dev/urandom >"$dir/a-bin.yaml"; acc binary "not valid YAML|expected a mapping|unknown key|checks" "$dir/a-bin.yaml"
  { printf 'checks: '; head -c 100000 /dev/zero | tr '\0' '['; } >"$dir/a-deep.yaml"; acc deep_nesting "not valid YAML" "$dir/a-deep.yaml"
  printf "${ok/min: 1/min: .nan}" >"$dir/a-nan.yaml"; acc nan_floor "gates\[0\].min: nan is out of range" "$dir/a-nan.yaml"
  printf "${ok/min: 1/min: 1e400}" >"$dir/a-inf.yaml"; acc huge_floor "gates\[0\].min: .* (is out of range|is not a number)" "$dir/a-inf.yaml"
  printf "${ok/min: 1/min: 1, tolerance: -0.5}" >"$dir/a-tol.yaml"; acc negative_tolerance "tolerance: -0.5 is out of range" "$dir/a-tol.yaml"
  printf "${ok/\[1M\]/[$huge]}" >"$dir/a-size.yaml"; acc huge_size "sizes\[0\]: '$huge': not a size" "$dir/a-size.yaml"
  printf "${ok/name: a/name: \"a\\x1b[31mred\"}" >"$dir/a-ctl.yaml"; acc control_chars_in_name "checks\[0\].name: 1 to 64 letters" "$dir/a-ctl.yaml"
  printf 'checks:\n  - name: caf\xe9\n    collective: all_reduce\n    sizes: [8]\n    gates: [{metric: time, at: 8, max: 1}]\n' >"$dir/a-utf.yaml"; acc non_utf8_name "name: 1 to 64 letters|not valid YAML" "$dir/a-utf.yaml"
  printf "${ok/min: 1/population: 0.2, baseline: b.json, max_drop: 0.1}" >"$dir/a-pop.yaml"; acc population_and_baseline "population: give baseline or population, not both" "$dir/a-pop.yaml"
  printf "${ok/min: 1/population: 1.5}" >"$dir/a-pop2.yaml"; acc population_out_of_range "population: 1.5 is out of range" "$dir/a-pop2.yaml"
  for bad in . .. .hidden; do
    printf "${ok/name: a/name: \"$bad\"}" >"$dir/a-name$bad.yaml"; acc "dot_name$bad" "checks\[0\].name: '\\$bad' starts with '.'" "$dir/a-name$bad.yaml"
  done
  printf "${ok/name: a/name: a\/b}" >"$dir/a-slash.yaml"; acc slash_in_name "checks\[0\].name: 1 to 64 letters" "$dir/a-slash.yaml"
  printf "${ok}    repeats: 3\n    repeats: 3\n" >"$dir/a-dup.yaml"; acc duplicate_key "checks\[0\].repeats: given twice" "$dir/a-dup.yaml"
  printf "${ok}    repeats: 2.5\n" >"$dir/a-frac.yaml"; acc fractional_repeats "repeats: 2.5 is not a whole number" "$dir/a-frac.yaml"
  { printf 'checks:\n'; for i in $(seq 300); do printf '  - {name: c%d, collective: all_reduce, sizes: [8], gates: [{metric: time, at: 8, max: 1}]}\n' "$i"; done; } >"$dir/a-many.yaml"
  acc too_many_checks "checks: expected a list of 1 to 256 checks" "$dir/a-many.yaml"
  mkfifo "$dir/a-fifo.yaml"; acc fifo "not a regular file" "$dir/a-fifo.yaml"
  acc directory "not a regular file" "$dir"
  acc missing "cannot read" "$dir/nonexistent.yaml"
  truncate -s 2M "$dir/a-big.yaml"; acc two_megabytes "over the 1 MiB limit" "$dir/a-big.yaml"
  head -c 4096 /dev/urandom >"$dir/base.json"
  printf "${ok/min: 1/baseline: base.json, max_drop: 0.05}" >"$dir/a-base.yaml"; acc binary_baseline "base.json:[0-9]+: not a valid baseline file" "$dir/a-base.yaml"
  printf '{"ccbench_baseline": 1, "runs": ["r"],\n "entries": [{"collective": "all_reduce"}]}\n' >"$dir/base.json"
  acc baseline_entry "base.json: entries\[0\]: not a valid baseline file" "$dir/a-base.yaml"
  printf '{"ccbench_baseline": 1,\n "runs": [\n oops ]}\n' >"$dir/base.json"
  acc baseline_broken_line "base.json:3: not a valid baseline file" "$dir/a-base.yaml"
  # --simulate: a plan that cannot be kept is refused before the first check
  # (4,096 nodes pairwise reached 8 GB and aborted), and 75,000 defective
  # names are looked up at once (minutes before).
  printf 'checks:\n  - {name: p, collective: all_reduce, sizes: [1M], pattern: pairwise, gates: [{metric: busbw, at: 1M, min: 1}]}\n' >"$dir/a-pw.yaml"
  printf 'nodes: 4096\n' >"$dir/c4096.yaml"
  check accept/simulate_pairwise_4096 2 "a-pw.yaml:2: checks: p: pattern pairwise on 4096 nodes runs 8386560 groups, more than a simulation keeps" -- \
    accept "$dir/a-pw.yaml" --simulate "$dir/c4096.yaml" --out "$dir/acc-sim"
  { printf 'nodes: 100000\ndefective: {factor: 0.5, nodes: ['; for i in $(seq 1 75000); do printf 'node%06d,' "$i"; done; printf 'node100000]}\n'; } >"$dir/c75k.yaml"
  printf 'checks:\n  - {name: b, collective: all_reduce, sizes: [1M], pattern: bisect, gates: [{metric: busbw, at: 1M, min: 1}]}\n' >"$dir/a-bi.yaml"
  printf 'nodes: 100000\ndefective: {factor: 0.5, nodes: [node100001]}\n' >"$dir/c75k-bad.yaml"
  check accept/simulate_unknown_node_of_100k 2 "defective.nodes\[0\]: 'node100001' is not a node of this cluster" -- \
    accept "$dir/a-bi.yaml" --simulate "$dir/c75k-bad.yaml" --out "$dir/acc-sim"
  printf 'checks:\n  - {name: a, collective: all_reduce, sizes: [1M], pattern: all, gates: [{metric: busbw, at: 1M, min: 1}]}\n' >"$dir/a-all.yaml"
  start=$SECONDS
  timeout 60 "$ccbench" accept "$dir/a-all.yaml" --simulate "$dir/c75k.yaml" --out "$dir/acc-75k" >/dev/null 2>"$dir/err"
  code=$? count=$((count + 1))
  if [ $code != 1 ] || [ ! -s "$dir/acc-75k/verdict.json" ]; then
    failures=$((failures + 1)); echo "FAIL accept/simulate_75k_defective: exit $code after $((SECONDS - start)) s (want 1, verdicts written)"
  fi
  # A verdict path that cannot be written is found before the first check ran.
  printf "$ok" >"$dir/a-ok.yaml"; mkdir -p "$dir/acc-dir/verdict.json"
  check accept/verdict_path_is_folder 2 "--out \(verdict.json\) .*acc-dir/verdict.json: is a folder" -- accept "$dir/a-ok.yaml" --out "$dir/acc-dir"
  # Spec validation the simulator shares with a real run (issue 29 #9, #13):
  # gates that judge nothing, population gates with no peers, switches.
  printf "${ok/min: 1/min: 0}" >"$dir/a-min0.yaml"; acc zero_floor "gates\[0\].min: a floor of 0 passes every measurement" "$dir/a-min0.yaml"
  printf 'checks:\n  - {name: t, collective: all_reduce, sizes: [8], gates: [{metric: time, at: 8, max: 0}]}\n' >"$dir/a-max0.yaml"
  check accept/zero_ceiling_simulated 2 "gates\[0\].max: a ceiling of 0 us fails every measurement" -- accept "$dir/a-max0.yaml" --simulate "$dir/c4096.yaml" --out "$dir/acc-sim"
  printf 'checks:\n  - {name: b, collective: all_reduce, sizes: [1M], pattern: bisect, gates: [{metric: busbw, at: 1M, population: 0.2}]}\n' >"$dir/a-popbi.yaml"
  acc population_only_bisect "gates: pattern bisect measures one group of every node first, which population gates cannot judge" "$dir/a-popbi.yaml"
  printf "switches: {leaf1: [h1], leaf1: [h2]}\n${ok}" >"$dir/a-sw2.yaml"; acc duplicate_switch "switches.leaf1: this switch is listed twice" "$dir/a-sw2.yaml"
  printf "switches: {leaf1: [h1, h2]}\n${ok}" >"$dir/a-swx.yaml"
  check accept/simulate_switches_of_other_hosts 2 "a-swx.yaml: switches: lists none of the simulated nodes \(node0001 ... node4096\)" -- \
    accept "$dir/a-swx.yaml" --simulate "$dir/c4096.yaml" --out "$dir/acc-sim"
  check accept/no_spec 2 "accept: give exactly one spec file" -- accept
  check accept/bad_color 2 "accept: --color 'blue': unknown" -- accept "$dir/a-nan.yaml" --color blue
  # The Slurm step controller's start-up flag (FILE.started) is made by rank 0, never through a link planted there.
  echo keep > "$dir/victim"; ln -sf "$dir/victim" "$dir/grp.json.started"
  check accept/started_flag_symlink 0 "grp.json.started: cannot make the start-up flag \(Too many levels of symbolic links\)" -- \
    accept "$(dirname "$0")/../examples/acceptance/cpu-tcp-cluster.yaml" --run-group node --group-out "$dir/grp.json"
  [ "$(cat "$dir/victim")" = keep ] || { failures=$((failures + 1)); echo "FAIL accept/started_flag_symlink: the link's target was written"; }
  check baseline/no_out 2 "baseline: --out FILE is required" -- baseline "$good"
  check baseline/no_points 2 "baseline: .*: no measured points could be read" -- baseline --out "$dir/b.json" "$dir/base.json"
fi

# Files a user names that are not files (issue 73 class 1): a FIFO (blocked
# the reader past -T), /dev/zero and a sparse 8 GiB file (bad_alloc, exit 134),
# a folder: each refused in one line before a byte is read, exit 2.
if [ -z "$only" ] || [ "$only" = files ]; then
  mkfifo "$dir/fifo"; mkdir -p "$dir/folder"; truncate -s 8G "$dir/sparse"
  for f in /dev/zero "$dir/fifo" "$dir/folder"; do
    n=$(basename "$f")
    check "files/matrix_$n" 2 "--traffic matrix $f: cannot read \(not a regular file\)" -- \
      alltoallv -T 3 -b 8 -e 8 --traffic "matrix:$f"
    NCCL_TESTS_ALLTOALLV_MATRIX_FILE=$f check "files/matrix_env_$n" 2 \
      "NCCL_TESTS_ALLTOALLV_MATRIX_FILE: --traffic matrix $f: cannot read \(not a regular file\)" -- alltoallv -T 3 -b 8 -e 8
    check "files/routing_$n" 2 "routing file $f: cannot read \(not a regular file\)" -- \
      moe -T 3 -b 8 -e 8 --traffic "moe:experts=4:topk=1:hidden=8:routing=$f"
    check "files/model_$n" 2 "model: $f: cannot read \(not a regular file\)" -- model predict "$f" --ranks 4
  done
  check files/matrix_sparse 2 "--traffic matrix $dir/sparse: cannot read \(8589934592 bytes, over the 64 MiB limit\)" -- \
    alltoallv -T 3 -b 8 -e 8 --traffic "matrix:$dir/sparse"
  check files/routing_sparse 2 "routing file $dir/sparse: cannot read \(8589934592 bytes, over the 64 MiB limit\)" -- \
    moe -T 3 -b 8 -e 8 --traffic "moe:experts=4:topk=1:hidden=8:routing=$dir/sparse"
  check files/model_sparse 2 "model: $dir/sparse: cannot read \(8589934592 bytes" -- model predict "$dir/sparse" --ranks 4
fi

if [ -z "$only" ] || [ "$only" = model ]; then
  # Model files: values out of what physics and ccbench allow are refused
  # before they reach a prediction (a NaN, an infinite or a [0, inf] interval,
  # a null series at 2^30 ranks per node that crashed predict and check).
  m=$(dirname "$0")/fixtures/model/model-200mbit.json
  mod() { sed -E "$2" "$m" >"$dir/m-$1.json"; check "model/$1" 2 "$3" -- model predict "$dir/m-$1.json" --ranks 64 --nodes 8; }
  mod ranks_per_node_2e30 's/"ranks_per_node": 1,/"ranks_per_node": 1073741824,/' "counts or placement out of range"
  mod tiny_time '0,/"time_us": [0-9.]+/s//"time_us": 5e-324/' "values out of range"
  mod huge_time '0,/"time_us": [0-9.]+/s//"time_us": 1.7e308/' "values out of range"
  mod noise_huge '0,/"noise": [0-9.e+-]+/s//"noise": 50/' "values out of range"
  mod left_out_huge '0,/"left_out": [0-9.e+-]+/s//"left_out": 50/' "values out of range"
  mod zero_bytes '0,/"bytes": [0-9]+/s//"bytes": 0/' "values out of range"
  mod huge_count 's/"counts": \[/"counts": [2, 3, 4, 100000000, /' "counts or placement out of range"
  check model/predict_empty_nodes 2 "model predict: --nodes '': expected a whole number" -- model predict "$m" --ranks 8 --nodes ""
  check model/check_trailing_comma 2 "model check: --targets '15,30,70,': expected LARGE,SMALL,COVER" -- model check "$m" "$good" --targets 15,30,70,
  check cli/json_new_file_under_dev 2 "-J/--json /dev/ccbench-hostile-new: does not exist; under /dev/" -- all_reduce -b 8 -e 8 -n 1 -J /dev/ccbench-hostile-new
  check cli/io_time_per_size_nan 2 "io: --time-per-size: expected seconds from 0 to 86400" -- io "$dir" --time-per-size nan -b 4K --file-size 64K
  check model/check_ranks_per_node 2 "counts or placement out of range" -- model check "$dir/m-ranks_per_node_2e30.json" "$good"
  # Whole-file outputs that cannot be written are exit 5 (an output), not 2.
  check model/fit_out_dev_full 5 "--out /dev/full: cannot write: No space left on device" -- model fit "$(dirname "$0")/fixtures/model/emu-200mbit-2-hosts.jsonl" "$(dirname "$0")/fixtures/model/emu-200mbit-4-hosts.jsonl" --out /dev/full
  check model/predict_json_dev_full 5 "--json /dev/full: cannot write: No space left on device" -- model predict "$m" --ranks 8 --json /dev/full
  check baseline/out_dev_full 5 "--out /dev/full: cannot write: No space left on device" -- baseline --out /dev/full "$good"
  # --scale leaving one set: the projection's reason is the one line (a note and then a second error before).
  check model/compare_scale_one_set_left 2 "--scale 16x16: 'b' cannot be projected to 16 ranks on 16 nodes: model fit: nothing to fit.*; compare needs two result sets" -- \
    compare --run a="$(dirname "$0")/fixtures/model" --run b="$(dirname "$0")/fixtures/model/emu-100mbit-2-hosts.jsonl" --scale 16x16
  # A newline in io's folder name stays on its one line.
  check cli/io_newline_in_dir 2 "io .*nonexistent\?x" -- io "$dir/nonexistent
x" -b 4K --file-size 64K
fi

if [ -z "$only" ] || [ "$only" = steps ]; then  # a yaml-cpp build only (tests/CMakeLists.txt)
  # Training steps inside the accepted ranges that expand beyond any machine (issue 52): refused in one line
  # while the step is built (they exhausted 4 GiB, or ran predict for minutes).
  w=$(dirname "$0")/fixtures/workload
  sed 's/global_batch: 8$/global_batch: 2000000/; s/micro_batch: 2$/micro_batch: 1/' "$w/tiny-3d.yaml" > "$dir/huge-batch.yaml"
  for verb in show predict; do
    args=(); [ $verb = predict ] && args=(--curves "$w/curves-1node.jsonl")
    check "steps/huge_batch_$verb" 2 "the step expands to more than 8000000 actions \(2000000 micro-batches" -- \
      workload $verb "$dir/huge-batch.yaml" --ranks 4 --ranks-per-node 4 "${args[@]}"
  done
fi

if [ "$only" = history ]; then  # a SQLite build only (tests/CMakeLists.txt)
  # History databases with schema versions ccbench never writes (issue 52): refused, one line, exit 2.
  # ccbench's application_id (0x63636268) with a negative version and a table; with a version and no table;
  # a version without the id.
  db() {  # db NAME APPLICATION_ID USER_VERSION TABLE(0|1)
    python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA application_id=' + sys.argv[2]); c.execute('PRAGMA user_version=' + sys.argv[3]); int(sys.argv[4]) and c.execute('CREATE TABLE runs(id)'); c.commit(); c.close()" "$dir/$1.db" "$2" "$3" "$4"
    echo "$dir/$1.db"
  }
  for v in -1 -5 -2147483648; do  # SQLite keeps 32 bits: -2^63 is 0, below
    f=$(db "v$v" 1667457640 "$v" 1)
    check "history/show_version_$v" 2 "not a ccbench history database .*schema version $v" -- history show --db "$f"
    check "history/add_version_$v" 2 "not a ccbench history database .*schema version $v" -- history add --db "$f" "$good"
  done
  check history/id_with_version_0 2 "not a ccbench history database .*schema version 0" -- \
    history add --db "$(db zero 1667457640 -9223372036854775808 1)" "$good"
  check history/id_without_tables 2 "not a ccbench history database .*0 schema objects" -- history show --db "$(db forged 1667457640 2 0)"
  check history/version_without_id 2 "not a ccbench history database .*application_id 0x0, schema version 1" -- \
    history add --db "$(db versioned 0 1 0)" "$good"
fi

echo "$count cases, $failures failed"
[ $failures = 0 ]
